package manager_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/manager"
)

// TestThirtyLineAgent is the program an agent author writes first
// (issue 14 item 17), on the public API only: three servers, of which one
// never answers initialize. Tools answers at once; the two others' tools
// are listed as OnChange announces them, while the third is still starting
// (its startup budget is ten minutes: nothing here waits for it). The
// time they took is logged, not asserted: under load it varies.
func TestThirtyLineAgent(t *testing.T) {
	proctest.Check(t)
	h := demo.NewHTTPHandler(demo.Options{})
	web := httptest.NewServer(h)
	defer func() { web.Close(); h.Close() }()
	exe, _ := os.Executable()
	home := t.TempDir()
	stdio := func(args ...string) map[string]any {
		args = append([]string{}, args...)
		return map[string]any{"command": exe, "args": args, "env": map[string]string{"MCPWIRE_MANAGER_TEST_DEMO": "1"}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"local": stdio(), "web": map[string]any{"url": web.URL + "/mcp"}, "silent": stdio("--hang-initialize")}})
	if err := os.WriteFile(filepath.Join(home, config.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}

	// The agent: load, trust what it was given, start, list, call.
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	changed := make(chan string, 10)
	agentHome, err := manager.OpenHome(home)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manager.New(manager.Options{Config: cfg, Home: agentHome, TrustAll: true,
		StartupTimeout: 10 * time.Minute, // the silent one stays "connecting" all along
		OnChange:       func(server string) { changed <- server }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	if _, err := m.Tools(ctx); err != nil { // returns at once, whatever is connected
		t.Fatal(err)
	}
	start := time.Now()
	deadline := time.After(time.Minute) // a bug fails instead of hanging; not a timing assertion
	servers := map[string]int{}
	for servers["local"] == 0 || servers["web"] == 0 {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the tools of local and web never listed: %v; states %+v", servers, m.States())
		}
		tools, err := m.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		clear(servers)
		for _, tl := range tools {
			servers[tl.Server]++
		}
	}
	t.Logf("local's and web's tools listed %v after Tools returned", time.Since(start).Round(time.Millisecond))
	for _, st := range m.States() {
		if st.Name == "silent" && st.State != manager.StateConnecting {
			t.Errorf("silent is %s, want still connecting: the others did not wait for it", st.State)
		}
	}
	res, err := m.Call(ctx, "mcp__web__echo", map[string]any{"text": "hello"})
	if err != nil || res.Text() != "hello" || servers["silent"] != 0 {
		t.Fatalf("call: %v, %v; tools per server %v", res, err, servers)
	}
}
