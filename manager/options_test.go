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

func TestRootsAreTheWorkingDirectory(t *testing.T) {
	proctest.Check(t)
	dir := t.TempDir()
	m, _ := newManager(t, Options{Dir: dir}, demoServer{name: "d"})
	tools := mustTools(t, m)
	res, err := m.Call(context.Background(), toolNamed(t, tools, "d", "roots"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Text(), dir) {
		t.Fatalf("roots answer %q does not name %s", res.Text(), dir)
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
