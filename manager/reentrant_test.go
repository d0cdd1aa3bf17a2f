package manager

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// hangBound is the watchdog of these tests: far above what any step
// takes, so that only a deadlock reaches it.
const hangBound = 60 * time.Second

// TestRemoveWhileStartingNoDeadlock removes, with Update, a server
// whose start is in a slow tools/list and which sends list_changed
// around its answer: the start used to close the new session under the
// server's lock while the session's reader waited for that lock to take
// a list_changed (Update, then Close, hung for good). Update and Close
// return.
func TestRemoveWhileStartingNoDeadlock(t *testing.T) {
	proctest.Check(t)
	for range 3 {
		logs := make(chan string, 1000)
		m, home := newManager(t, Options{Logf: func(f string, args ...any) {
			select {
			case logs <- fmt.Sprintf(f, args...):
			default:
			}
		}}, demoServer{name: "storm", args: []string{"--era", "legacy", "--list-delay", "300ms", "--list-changed", "2000"}})
		if _, err := m.Tools(context.Background()); err != nil {
			t.Fatal(err)
		}
		for f := range logs {
			if f == "storm: starting" {
				break
			}
		}
		writeConfig(t, home)
		empty := loadConfig(t, home)
		within(t, hangBound, "Update removing a server while it starts", func() { m.Update(empty) })
		within(t, hangBound, "Close", func() { m.Close() })
	}
}

// TestEveryCallbackMayCallBack: each callback of Options (Logf, OnChange,
// OnNotice, OnLoginNeeded, OnResourceUpdated, OnProgress, Elicit) calls
// every method of the Manager, Update and Restart included, and finally
// Close; none deadlocks (a watchdog fails the test with every stack).
// Before, a Logf that read the state deadlocked every start (it ran
// under the server's lock), a Logf or an OnProgress that closed the
// Manager waited for itself.
func TestEveryCallbackMayCallBack(t *testing.T) {
	proctest.Check(t)
	for _, kind := range []string{"logf", "change", "notice", "login", "updated", "progress", "elicit"} {
		t.Run(kind, func(t *testing.T) { testCallbackCallsBack(t, kind) })
	}
}

func testCallbackCallsBack(t *testing.T, kind string) {
	h := demo.NewHTTPHandler(demo.Options{RequireAuth: "the-token"})
	srv := httptest.NewServer(h)
	defer func() { srv.Close(); h.Close() }()
	home := t.TempDir()
	writeConfig(t, home, demoServer{name: "good", args: []string{"--era", "legacy"}},
		demoServer{name: "exits", args: []string{"--exit-at-start"}}, demoServer{name: "spare"})
	cfg := loadConfig(t, home)
	locked := &config.Server{Name: "locked", Type: config.TypeHTTP, URL: srv.URL + "/mcp", Enabled: true, Timeout: config.DefaultTimeout}
	locked.Expanded = &config.Expanded{URL: locked.URL}
	cfg.Servers = append(cfg.Servers, locked)
	less := *cfg
	less.Servers = slices.DeleteFunc(slices.Clone(cfg.Servers), func(s *config.Server) bool { return s.Name == "spare" })

	var m *Manager
	ready := make(chan struct{})
	closed := make(chan struct{})
	var once sync.Once
	callBack := func(what string) {
		if what != kind {
			return
		}
		<-ready
		once.Do(func() {
			defer close(closed)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_ = m.States()
			_, _ = m.Tools(ctx)
			_ = m.Instructions()
			_ = m.Subscriptions("good")
			_ = m.Wait(ctx)
			_ = m.Restart(ctx, "good")
			m.Update(&less)
			m.Update(cfg)
			_, _ = m.Tools(ctx)
			_ = m.Close()
		})
	}
	opts := Options{Config: cfg, TrustAll: true, StartupTimeout: 20 * time.Second,
		Logf:              func(string, ...any) { callBack("logf") },
		OnChange:          func(string) { callBack("change") },
		OnNotice:          func(Notice) { callBack("notice") },
		OnLoginNeeded:     func(string) { callBack("login") },
		OnResourceUpdated: func(string, string) { callBack("updated") },
		OnProgress:        func(string, protocol.ProgressParams) { callBack("progress") },
		Elicit: func(context.Context, string, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			callBack("elicit")
			return &protocol.ElicitResult{Action: "decline"}, nil
		},
	}
	var err error
	m, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	close(ready)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	within(t, hangBound, "the events that call back", func() {
		tools, _ := m.Tools(ctx)
		_ = m.Wait(ctx)
		tools, _ = m.Tools(ctx)
		switch kind {
		case "updated":
			_ = m.Subscribe(ctx, "good", "demo://item/1")
		case "progress":
			_, _ = m.Call(ctx, qualifiedOf(tools, "good", "notify"), nil)
		case "elicit":
			_, _ = m.Call(ctx, qualifiedOf(tools, "good", "ask"), nil)
		}
	})
	waitClosed(t, hangBound, "the callback "+kind+" that calls back", closed)
	within(t, hangBound, "Close after the callback's", func() { m.Close() })
}

// qualifiedOf is the qualified name of server's tool original, or ""
// (a call of it then fails, which a test of callbacks may allow).
func qualifiedOf(tools []Tool, server, original string) string {
	for _, tl := range tools {
		if tl.Server == server && tl.Original == original {
			return tl.Name
		}
	}
	return ""
}
