package manager

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// flakyLists is the demo server over HTTP whose tools/list fails (503)
// while failing is set; lists counts the tools/list requests.
type flakyLists struct {
	srv     *httptest.Server
	failing atomic.Bool
	lists   atomic.Int32
}

func newFlakyLists(t *testing.T) *flakyLists {
	t.Helper()
	f := &flakyLists{}
	h := demo.NewHTTPHandler(demo.Options{SSE: true})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if strings.Contains(string(body), `"tools/list"`) {
				f.lists.Add(1)
				if f.failing.Load() {
					http.Error(w, "listing is down", http.StatusServiceUnavailable)
					return
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { f.srv.Close(); h.Close() })
	return f
}

// TestRefreshFailureRetriedOnce: a listing after list_changed that fails
// keeps the previous list (Tools offers it, at once) and says why; the
// next use tries once more, and after that only a new list_changed does
// (before, it was tried again after 15 s, 30 s, 60 s … without end).
// When a listing works, OnChange tells.
func TestRefreshFailureRetriedOnce(t *testing.T) {
	f := newFlakyLists(t)
	home := t.TempDir()
	writeFile(t, home, `{"mcpServers": {"n": {"url": "`+f.srv.URL+`/mcp"}}}`)
	changed := make(chan string, 10)
	m, err := New(Options{Config: loadConfig(t, home), TrustAll: true, OnChange: func(s string) { changed <- s }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := context.Background()
	tools := mustTools(t, m)
	receive(t, changed, "OnChange of the start")
	notify := toolNamed(t, tools, "n", "notify")

	f.failing.Store(true)
	lists := f.lists.Load()
	if _, err := m.Call(ctx, notify, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the refresh to fail", func() bool { return state(t, m, "n").RefreshErr != nil })
	st := state(t, m, "n")
	if !st.Stale || !strings.Contains(st.RefreshErr.Error(), "previous list is kept; tried again at the next use") {
		t.Fatalf("after a failed refresh: %+v", st)
	}
	// The next use tries once more; it fails too.
	if tools, err := m.Tools(ctx); err != nil || len(tools) != demoTools {
		t.Fatalf("Tools after the failure: %d tools, %v; want the previous %d", len(tools), err, demoTools)
	}
	waitFor(t, "the retry to fail", func() bool {
		e := state(t, m, "n").RefreshErr
		return e != nil && strings.Contains(e.Error(), "after the server's next list_changed")
	})
	if n := f.lists.Load() - lists; n != 2 {
		t.Fatalf("tools/list sent %d times, want the refresh and one retry", n)
	}
	// No more until a list_changed, however often the tools are used.
	for range 3 {
		if tools, err := m.Tools(ctx); err != nil || len(tools) != demoTools {
			t.Fatalf("Tools: %d tools, %v", len(tools), err)
		}
	}
	if n := f.lists.Load() - lists; n != 2 {
		t.Fatalf("tools/list sent %d times without a new list_changed, want 2", n)
	}

	f.failing.Store(false)
	if _, err := m.Call(ctx, notify, nil); err != nil { // a new list_changed
		t.Fatal(err)
	}
	if got := receive(t, changed, "OnChange of the refresh"); got != "n" {
		t.Fatalf("OnChange(%q)", got)
	}
	if st := state(t, m, "n"); st.Stale || st.RefreshErr != nil {
		t.Fatalf("after the list_changed: %+v", st)
	}
}

// TestToolsNeverWait: with a server that never answers initialize (and a
// startup budget of a minute), Tools returns at once, and the tools of
// the two others join as they come, each told by OnChange; the hanging
// one is still connecting meanwhile. Close ends its start.
func TestToolsNeverWait(t *testing.T) {
	proctest.Check(t)
	changed := make(chan string, 10)
	m, _ := newManager(t, Options{StartupTimeout: time.Minute, OnChange: func(s string) { changed <- s }},
		demoServer{name: "hangs", args: []string{"--hang-initialize"}},
		demoServer{name: "a"}, demoServer{name: "b", args: []string{"--start-delay", "100ms"}})
	ctx := context.Background()
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	joined := map[string]bool{}
	for _, tl := range tools {
		joined[tl.Server] = true
	}
	for len(joined) < 2 || !joined["a"] || !joined["b"] {
		name := receive(t, changed, "the servers that answer to join")
		if name == "hangs" {
			t.Fatal("OnChange for the server that never answers")
		}
		tools, err = m.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			joined[tl.Server] = true
		}
	}
	if len(tools) != 2*demoTools {
		t.Fatalf("%d tools, want the %d of a and b", len(tools), 2*demoTools)
	}
	if st := state(t, m, "hangs"); st.State != StateConnecting {
		t.Fatalf("the hanging server: %+v", st)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNoticesOncePerTransition: a server that fails is told failed once,
// paused once when its breaker opens (and not again at each failed trial),
// recovered once it works; each notice carries its state.
func TestNoticesOncePerTransition(t *testing.T) {
	proctest.Check(t)
	clock := newFakeClock()
	var mu sync.Mutex
	var got []string
	m, _ := newManager(t, Options{Now: clock.Now, OnNotice: func(n Notice) {
		mu.Lock()
		defer mu.Unlock()
		kind := n.Server + " " + string(n.Kind)
		if n.Kind == NoticePaused && n.State.RetryAt.IsZero() {
			kind += " without RetryAt"
		}
		got = append(got, kind)
	}}, demoServer{name: "b"})
	ctx := context.Background()
	tools := mustTools(t, m)
	crash, echo := toolNamed(t, tools, "b", "crash"), toolNamed(t, tools, "b", "echo")
	for range 2 {
		if _, err := m.Call(ctx, crash, nil); err == nil {
			t.Fatal("crash succeeded")
		}
	}
	for range 2 { // failed trials after each cooldown
		clock.Advance(10 * time.Minute)
		if _, err := m.Call(ctx, crash, nil); err == nil {
			t.Fatal("crash succeeded")
		}
	}
	clock.Advance(10 * time.Minute)
	if res, err := m.Call(ctx, echo, map[string]any{"text": "back"}); err != nil || res.Text() != "back" {
		t.Fatalf("call after the cooldown = %v, %v", res, err)
	}
	if res, err := m.Call(ctx, echo, map[string]any{"text": "again"}); err != nil || res.Text() != "again" {
		t.Fatalf("second good call = %v, %v", res, err)
	}
	want := []string{"b failed", "b paused", "b recovered"}
	waitFor(t, "the notices", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= len(want)
	})
	m.Close() // no callback runs after Close
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
