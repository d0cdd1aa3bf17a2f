package manager

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestPrefixProjectCannotTakeNames: a project definition whose prefix
// is that of one of the user's own definitions does not take its names:
// the user's server keeps <prefix>__<tool>, the project's gets the hash.
func TestPrefixProjectCannotTakeNames(t *testing.T) {
	proctest.Check(t)
	home := t.TempDir()
	proj := filepath.Join(home, "project")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, home, demoServer{name: "zeta", extra: map[string]any{"prefix": "gh"}})
	entry, _ := json.Marshal(map[string]any{"command": testExe(t), "env": map[string]string{demoEnv: "1"},
		"prefix": "gh", "args": []string{"--tools", "1"}})
	if err := os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte(`{"mcpServers": {"alpha": `+string(entry)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: loadConfig(t, home), Home: openHome(t, home), TrustAll: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, tl := range mustTools(t, m) {
		if tl.Name == "gh__echo" && tl.Server != "zeta" {
			t.Fatalf("gh__echo is %s's: a project took the user's name", tl.Server)
		}
	}
	res, err := m.Call(context.Background(), "gh__echo", map[string]any{"text": "mine"})
	if err != nil || res.Text() != "mine" {
		t.Fatalf("gh__echo: %v %v", err, res)
	}
}
