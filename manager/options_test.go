package manager

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestNoRootsUnlessAsked: a manager offers no roots unless they were
// given, by Options.Roots or by a definition's roots (which win).
func TestNoRootsUnlessAsked(t *testing.T) {
	proctest.Check(t)
	dir, own := t.TempDir(), t.TempDir()
	roots := func(m *Manager, server string) string {
		t.Helper()
		tools := mustTools(t, m)
		res, err := m.Call(context.Background(), toolNamed(t, tools, server, "roots"), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	m, _ := newManager(t, Options{}, demoServer{name: "d"})
	if got := roots(m, "d"); !strings.Contains(got, "did not declare the roots capability") {
		t.Fatalf("without roots the server was offered some: %q", got)
	}
	m, _ = newManager(t, Options{Roots: []string{dir}}, demoServer{name: "d"},
		demoServer{name: "own", extra: map[string]any{"roots": []string{own}}})
	if got := roots(m, "d"); !strings.Contains(got, dir) {
		t.Fatalf("roots answer %q does not name %s", got, dir)
	}
	if got := roots(m, "own"); !strings.Contains(got, own) || strings.Contains(got, dir) {
		t.Fatalf("a definition's roots: answer %q, want %s alone", got, own)
	}
}

func TestLoginNeededIsTold(t *testing.T) {
	// A server that answers 401: its start fails in the auth phase, and
	// the agent is told (no browser is opened).
	h := demo.NewHTTPHandler(demo.Options{RequireAuth: "the-token"})
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	home := t.TempDir()
	entry := `{"mcpServers": {"locked": {"url": "` + srv.URL + `/mcp"}, "known": {"url": "` + srv.URL + `/mcp"}}}`
	writeFile(t, home, entry)
	cfg := loadConfig(t, home)
	told := make(chan string, 10)
	m, err := New(Options{Config: cfg, TrustAll: true,
		NeedsLogin:    func(s *config.Server) bool { return s.Name == "known" },
		OnLoginNeeded: func(name string) { told <- name },
		HTTPClient:    func(*config.Server) *http.Client { return srv.Client() }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"locked", "known"} {
		st := state(t, m, name)
		var lr *LoginRequiredError
		if st.State != StateNeedsLogin || st.Phase != PhaseAuth || !errors.As(st.Err, &lr) {
			t.Errorf("%s: state %s in %s (%v), want needs login in auth with a *LoginRequiredError", name, st.State, st.Phase, st.Err)
		}
	}
	for _, want := range []string{"known", "locked"} {
		if got := receive(t, told, "OnLoginNeeded"); got != want {
			t.Fatalf("OnLoginNeeded told %q, want %q (known at New, then locked when it answered 401)", got, want)
		}
	}
	// A call of the server that answered 401 says a login is needed,
	// and the notice is not given twice.
	if _, err := m.ReadResource(context.Background(), "locked", "demo://readme"); !errors.Is(err, ErrLoginRequired) {
		t.Fatalf("a read of a server that needs a login: %v, want ErrLoginRequired", err)
	}
	select {
	case name := <-told:
		t.Fatalf("OnLoginNeeded told %q again", name)
	default:
	}
}

// receive waits, up to 10s, for a value on ch.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// writeFile writes the home folder's .mcp.json.
func writeFile(t *testing.T, home, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
