package manager_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/manager"
)

// exampleHome makes a home folder whose .mcp.json defines the servers
// named, each the demo server (this test binary run as it), with args.
// A real agent has a home already; this is the examples' stand-in.
func exampleHome(servers map[string][]string) string {
	home, err := os.MkdirTemp("", "manager-example")
	if err != nil {
		log.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	entries := map[string]any{}
	for name, args := range servers {
		entries[name] = map[string]any{
			"command": exe,
			"args":    append([]string{}, args...),
			"env":     map[string]string{"MCPWIRE_MANAGER_TEST_DEMO": "1"},
		}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": entries})
	if err := os.WriteFile(filepath.Join(home, config.FileName), data, 0o600); err != nil {
		log.Fatal(err)
	}
	return home
}

// demoManager is a Manager of one server, "demo" (Example shows how an
// agent makes one); done closes it and removes its home.
func demoManager() (m *manager.Manager, done func()) {
	home := exampleHome(map[string][]string{"demo": nil})
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		log.Fatal(err)
	}
	m, err = manager.New(manager.Options{Config: cfg, TrustAll: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	return m, func() { m.Close(); os.RemoveAll(home) }
}

// An agent loads the configuration, asks for the tools of every server
// (they start in parallel), offers them to its model beside its own, and
// calls one under its qualified name.
func Example() {
	home := exampleHome(map[string][]string{"demo": nil})
	defer os.RemoveAll(home)

	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		log.Fatal(err)
	}
	// The agent's own home folder (nil would mean mcpwire's).
	h, err := manager.OpenHome(home)
	if err != nil {
		log.Fatal(err)
	}
	// Servers run only once approved; an agent asks its user first.
	approvals, err := h.Approvals()
	if err != nil {
		log.Fatal(err)
	}
	if err := approvals.Approve(cfg.Server("demo")); err != nil {
		log.Fatal(err)
	}

	m, err := manager.New(manager.Options{Config: cfg, Home: h, StartupTimeout: 20 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	ctx := context.Background()
	// Tools never waits for a server; a program that runs once waits
	// for the starts first. (An agent asks for Tools at each turn and
	// hears of late servers through OnChange.)
	if err := m.Wait(ctx); err != nil {
		log.Fatal(err)
	}
	tools, err := m.Tools(ctx)
	if err != nil {
		log.Fatal(err) // only a server marked "required" fails Tools
	}
	for _, t := range tools[:3] {
		fmt.Printf("%s (%s on %s): %s\n", t.Name, t.Original, t.Server, t.Description)
	}

	res, err := m.Call(ctx, "mcp__demo__echo", map[string]any{"text": "hello"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("echo:", res.Text(), "tool error:", res.IsError)
	// Output:
	// mcp__demo__echo (echo on demo): Returns the text it is given.
	// mcp__demo__add (add on demo): Adds a and b; the sum comes as text and as structured content.
	// mcp__demo__sleep (sleep on demo): Waits ms milliseconds, then answers; stops when cancelled.
	// echo: hello tool error: false
}

// States tell an agent (or its user) which servers work, and why the
// others do not: a broken server shows its phase and error, and never
// keeps the others from working.
func ExampleManager_States() {
	home := exampleHome(map[string][]string{
		"good":   nil,
		"broken": {"--exit-at-start"},
	})
	defer os.RemoveAll(home)
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		log.Fatal(err)
	}
	// TrustAll: this program wrote the definitions itself.
	m, err := manager.New(manager.Options{Config: cfg, TrustAll: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	fmt.Println("before:", m.States()[0].State)
	_ = m.Wait(context.Background())
	tools, _ := m.Tools(context.Background())
	fmt.Println("tools:", len(tools))
	for _, st := range m.States() {
		fmt.Printf("%s: %s, %d tools, phase %q\n", st.Name, st.State, st.Tools, st.Phase)
	}
	// Output:
	// before: idle
	// tools: 12
	// broken: failed, 0 tools, phase "initialize"
	// good: connected, 12 tools, phase ""
}

// A tool error is a result, not an error: the model reads it and may try
// again. An error from Call means the call did not happen or broke.
func ExampleManager_Call() {
	home := exampleHome(map[string][]string{"demo": nil})
	defer os.RemoveAll(home)
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		log.Fatal(err)
	}
	m, err := manager.New(manager.Options{Config: cfg, TrustAll: true, MaxText: 40, StartupTimeout: 20 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	_ = m.Wait(ctx)
	if _, err := m.Tools(ctx); err != nil { // names are known once listed
		log.Fatal(err)
	}

	res, err := m.Call(ctx, "mcp__demo__fail", nil)
	fmt.Printf("fail: %q, tool error %v, err %v\n", res.Text(), res.IsError, err)

	res, err = m.Call(ctx, "mcp__demo__big", map[string]any{"bytes": 45})
	fmt.Printf("big: %q, truncated %v, err %v\n", res.Text(), res.Truncated, err)

	_, err = m.Call(ctx, "mcp__demo__nosuch", nil)
	fmt.Println(err)
	// Output:
	// fail: "this tool always fails (as asked)", tool error true, err <nil>
	// big: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n[… output cut: 5 more bytes not shown]", truncated true, err <nil>
	// manager: no tool "mcp__demo__nosuch" (list the tools again)
}

// An agent asks for the tools at each turn: Tools never waits, so a
// server that starts slowly (or never) holds nothing up. OnChange says
// when a server's tools join; the agent lists them again then.
func ExampleManager_Tools() {
	home := exampleHome(map[string][]string{
		"quick":  nil,
		"slow":   {"--start-delay", "300ms"},
		"silent": {"--hang-initialize"}, // never answers initialize
	})
	defer os.RemoveAll(home)
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		log.Fatal(err)
	}
	joined := make(chan string, 10)
	m, err := manager.New(manager.Options{Config: cfg, TrustAll: true, StartupTimeout: time.Minute,
		OnChange: func(server string) { joined <- server }})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	ctx := context.Background()
	tools, _ := m.Tools(ctx) // at once, with what is connected: here nothing yet
	var names []string
	for range 2 {
		names = append(names, <-joined)
	}
	slices.Sort(names)
	tools, _ = m.Tools(ctx)
	fmt.Println("joined:", names, "-", len(tools), "tools")
	for _, st := range m.States() {
		fmt.Println(st.Name, st.State)
	}
	// Output:
	// joined: [quick slow] - 24 tools
	// quick connected
	// silent connecting
	// slow connected
}

// A server that needs a login is told through OnLoginNeeded; the agent
// runs the login with its own UI (here a browser that approves at once),
// then restarts the server.
func ExampleHome_Login() {
	as := fakeauth.Start() // an MCP server behind an OAuth authorization server
	defer as.Close()
	home, err := os.MkdirTemp("", "manager-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(home)
	data := `{"mcpServers": {"remote": {"url": "` + as.URL + `/mcp"}}}`
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(data), 0o600); err != nil {
		log.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: home})
	if err != nil {
		log.Fatal(err)
	}
	needsLogin := make(chan string, 1)
	h, err := manager.OpenHome(home)
	if err != nil {
		log.Fatal(err)
	}
	m, err := manager.New(manager.Options{Config: cfg, Home: h, TrustAll: true,
		OnLoginNeeded: func(server string) { needsLogin <- server }})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	_ = m.Wait(ctx)
	name := <-needsLogin
	fmt.Println(name, "needs a login:", m.States()[0].State)

	res, err := m.Home().Login(ctx, manager.LoginOptions{Server: cfg.Server(name),
		OpenURL: func(url string) error {
			// An agent shows url and opens the person's browser.
			go fakeauth.Approve(url)
			return nil
		}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("logged in with scopes", res.Scopes)
	if err := m.Restart(ctx, name); err != nil {
		log.Fatal(err)
	}
	tools, _ := m.Tools(ctx)
	fmt.Println(m.States()[0].State, "with", len(tools), "tools")
	// Output:
	// remote needs a login: needs login
	// logged in with scopes [mcp:read]
	// connected with 12 tools
}

// Each server's instructions go into the agent's prompt marked as the
// server's words.
func ExampleManager_Instructions() {
	m, done := demoManager()
	defer done()
	_ = m.Wait(context.Background())
	for _, in := range m.Instructions() {
		marked := in.Marked()
		fmt.Println(marked[:strings.Index(marked, "\n")])
		fmt.Println(marked[strings.LastIndex(marked, "\n")+1:])
	}
	// Output:
	// <mcp-server-instructions server="demo">
	// </mcp-server-instructions>
}

// Resources are listed across servers and read by server.
func ExampleManager_Resources() {
	m, done := demoManager()
	defer done()
	ctx := context.Background()
	_ = m.Wait(ctx)
	resources, err := m.Resources(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range resources[:2] {
		fmt.Println(r.Server, r.URI, r.MimeType)
	}
	res, err := m.ReadResource(ctx, "demo", "demo://item/42")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Contents[0].Text)
	// Output:
	// demo demo://readme text/markdown
	// demo demo://config.json application/json
	// item 42
}
