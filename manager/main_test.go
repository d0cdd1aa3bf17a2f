package manager

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
)

// demoEnv, set to 1 in a child's environment, makes the test binary run
// the demo server instead of the tests.
const demoEnv = "MCPWIRE_MANAGER_TEST_DEMO"

func TestMain(m *testing.M) {
	RunSandboxLauncher() // the sandbox launcher of the tests' contained servers
	if os.Getenv(floodEnv) == "1" {
		os.Exit(floodServerMain(os.Stdin, os.Stdout)) // see events_test.go
	}
	if os.Getenv(demoEnv) == "1" {
		os.Exit(demo.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// A test that gives no Home gets the default one: never the user's.
	dir, err := os.MkdirTemp("", "mcpwire-manager-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("MCPWIRE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// openHome returns the Home in dir.
func openHome(t testing.TB, dir string) *Home {
	t.Helper()
	h, err := OpenHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A demoServer is one entry of a test configuration: the demo server with
// args, plus whatever else the entry needs.
type demoServer struct {
	name  string
	args  []string
	extra map[string]any // more members of the entry (enabledTools, required, …)
}

// testExe is the test binary, run as the demo server.
func testExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// writeConfig writes home/.mcp.json with servers, in order.
func writeConfig(t testing.TB, home string, servers ...demoServer) {
	t.Helper()
	exe := testExe(t)
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i, s := range servers {
		entry := map[string]any{
			"command": exe,
			"args":    append([]string{}, s.args...),
			"env":     map[string]string{demoEnv: "1"},
		}
		for k, v := range s.extra {
			entry[k] = v
		}
		name, _ := json.Marshal(s.name)
		e, err := json.Marshal(entry)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n" + string(name) + ": " + string(e))
	}
	b.WriteString("\n}}\n")
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// loadConfig loads the configuration of home (no project file).
func loadConfig(t testing.TB, home string) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: filepath.Join(home, "project"),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.Servers {
		if s.Err != nil {
			t.Fatalf("server %s: %v", s.Name, s.Err)
		}
	}
	return cfg
}

// newManager writes servers into a fresh home, loads it and returns a
// Manager closed at the end of the test. opts.Config is filled in.
func newManager(t testing.TB, opts Options, servers ...demoServer) (*Manager, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "project"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, home, servers...)
	opts.Config = loadConfig(t, home)
	opts.TrustAll = true
	if opts.Home == nil {
		opts.Home = openHome(t, home)
	}
	if opts.StartupTimeout == 0 {
		opts.StartupTimeout = 20 * time.Second
	}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, home
}

// state returns the state of the server named name.
func state(t testing.TB, m *Manager, name string) ServerState {
	t.Helper()
	for _, st := range m.States() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no server %q in States", name)
	return ServerState{}
}

// toolNamed returns the qualified name of server's tool original.
func toolNamed(t testing.TB, tools []Tool, server, original string) string {
	t.Helper()
	for _, tl := range tools {
		if tl.Server == server && tl.Original == original {
			return tl.Name
		}
	}
	t.Fatalf("no tool %s of server %s among %d tools", original, server, len(tools))
	return ""
}

// mustTools waits until no server is starting, then returns the tools.
func mustTools(t testing.TB, m *Manager) []Tool {
	t.Helper()
	if err := m.Wait(context.Background()); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	tools, err := m.Tools(context.Background())
	if err != nil {
		t.Fatalf("Tools: %v", err)
	}
	return tools
}

// A fakeClock is the breaker's clock in tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// waitFor waits, up to 10s, until cond holds, checking it now and then;
// it fails the test with what when the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
