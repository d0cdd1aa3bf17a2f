package manager

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	var mu sync.Mutex
	var told []string
	m, err := New(Options{Config: cfg, TrustAll: true,
		NeedsLogin: func(s *config.Server) bool { return s.Name == "known" },
		OnLoginNeeded: func(name string) {
			mu.Lock()
			told = append(told, name)
			mu.Unlock()
		},
		HTTPClient: func(*config.Server) *http.Client { return srv.Client() }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := m.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"locked", "known"} {
		if st := state(t, m, name); st.State != StateNeedsLogin {
			t.Errorf("%s: state %s (%v), want needs login", name, st.State, st.Err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(told, ",") != "known,locked" {
		t.Fatalf("OnLoginNeeded told %q, want known then locked", told)
	}
}

// writeFile writes the home folder's .mcp.json.
func writeFile(t *testing.T, home, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
