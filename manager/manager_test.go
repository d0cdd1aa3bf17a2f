package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// demoTools is how many tools the demo server has without --tools.
const demoTools = 12

func TestStartTwentyWithThreeBroken(t *testing.T) {
	proctest.Check(t)
	var servers []demoServer
	for i := range 17 {
		servers = append(servers, demoServer{name: fmt.Sprintf("ok%02d", i)})
	}
	servers = append(servers,
		demoServer{name: "hangs", args: []string{"--hang-initialize"}},
		demoServer{name: "exits", args: []string{"--exit-at-start"}},
		demoServer{name: "crashes", args: []string{"--crash-on-first-call"}},
	)
	m, _ := newManager(t, Options{StartupTimeout: 5 * time.Second}, servers...)
	tools := mustTools(t, m)

	per := map[string]int{}
	for _, tl := range tools {
		per[tl.Server]++
	}
	for i := range 17 {
		name := fmt.Sprintf("ok%02d", i)
		if per[name] != demoTools {
			t.Errorf("server %s offers %d tools, want %d", name, per[name], demoTools)
		}
		if st := state(t, m, name); st.State != StateConnected || st.Pid == 0 {
			t.Errorf("server %s: state %s pid %d, want connected with a pid", name, st.State, st.Pid)
		}
	}
	hang := state(t, m, "hangs")
	if hang.State != StateFailed || hang.Phase != PhaseInitialize || hang.Err == nil {
		t.Errorf("hanging server: state %q phase %q err %v, want failed in initialize", hang.State, hang.Phase, hang.Err)
	}
	exits := state(t, m, "exits")
	if exits.State != StateFailed || exits.Err == nil {
		t.Errorf("exiting server: state %q err %v, want failed", exits.State, exits.Err)
	}
	if per["hangs"] != 0 || per["exits"] != 0 {
		t.Errorf("broken servers offer tools: %v", per)
	}

	// The one that crashes on its first call started; its call fails, and
	// the others are untouched.
	res, err := m.Call(context.Background(), toolNamed(t, tools, "crashes", "echo"), map[string]any{"text": "hi"})
	if err == nil {
		t.Fatalf("call to the crashing server succeeded: %+v", res)
	}
	var se *ServerError
	if !errors.As(err, &se) || se.Server != "crashes" || se.Phase != PhaseCall {
		t.Errorf("crash error = %v (%T), want a *ServerError of crashes in call", err, err)
	}
	res, err = m.Call(context.Background(), toolNamed(t, tools, "ok03", "echo"), map[string]any{"text": "still here"})
	if err != nil || res.Text() != "still here" {
		t.Fatalf("call to ok03 = %v, %v", res, err)
	}
}

func TestCallsUseOriginalNames(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{},
		demoServer{name: "my.server", args: []string{"--tools", "3"}},
		demoServer{name: "trailing_", args: []string{"--page-size", "4"}},
	)
	tools := mustTools(t, m)
	if len(tools) != 2*demoTools+3 {
		t.Fatalf("got %d tools, want %d", len(tools), 2*demoTools+3)
	}
	seen := map[string]bool{}
	for _, tl := range tools {
		checkQualified(t, tl.Name)
		if seen[tl.Name] {
			t.Errorf("name %s given twice", tl.Name)
		}
		seen[tl.Name] = true
	}
	name := toolNamed(t, tools, "my.server", "tool-0002")
	if !strings.HasPrefix(name, "mcp__my_server__tool-0002_") {
		t.Errorf("qualified name %q", name)
	}
	res, err := m.Call(context.Background(), name, nil)
	if err != nil || res.Text() != "tool-0002 called" {
		t.Fatalf("Call(%s) = %v, %v", name, res, err)
	}
	name = toolNamed(t, tools, "trailing_", "echo")
	if strings.Contains(name, "trailing___") {
		t.Errorf("server part ends in _: %q", name)
	}
	res, err = m.Call(context.Background(), name, map[string]any{"text": "x"})
	if err != nil || res.Text() != "x" {
		t.Fatalf("Call(%s) = %v, %v", name, res, err)
	}
	// The same configuration gives the same names.
	again := mustTools(t, m)
	for i := range tools {
		if tools[i].Name != again[i].Name {
			t.Errorf("names changed between lists: %s then %s", tools[i].Name, again[i].Name)
		}
	}
	if _, err := m.Call(context.Background(), "mcp__my_server__nope", nil); err == nil {
		t.Error("a call of an unknown name succeeded")
	}
}

func TestCrashReconnectAndBreaker(t *testing.T) {
	proctest.Check(t)
	clock := newFakeClock()
	m, _ := newManager(t, Options{Now: clock.Now}, demoServer{name: "b"})
	ctx := context.Background()
	tools := mustTools(t, m)
	echo := toolNamed(t, tools, "b", "echo")
	crash := toolNamed(t, tools, "b", "crash")
	fail := toolNamed(t, tools, "b", "fail")
	pid1 := state(t, m, "b").Pid

	// Tool errors do not count.
	for range 3 {
		res, err := m.Call(ctx, fail, nil)
		if err != nil || !res.IsError {
			t.Fatalf("fail = %+v, %v; want a tool error", res, err)
		}
	}
	if st := state(t, m, "b"); !st.RetryAt.IsZero() || st.Pid != pid1 {
		t.Fatalf("after tool errors: %+v", st)
	}

	// A crash mid-call fails the call; the next call reconnects.
	if _, err := m.Call(ctx, crash, nil); err == nil {
		t.Fatal("crash succeeded")
	}
	res, err := m.Call(ctx, echo, map[string]any{"text": "back"})
	if err != nil || res.Text() != "back" {
		t.Fatalf("call after the crash = %v, %v", res, err)
	}
	pid2 := state(t, m, "b").Pid
	if pid2 == 0 || pid2 == pid1 {
		t.Fatalf("pid after reconnect = %d (was %d), want a new process", pid2, pid1)
	}

	// Two transport failures in a row open the breaker for 15s.
	for range 2 {
		if _, err := m.Call(ctx, crash, nil); err == nil {
			t.Fatal("crash succeeded")
		}
	}
	st := state(t, m, "b")
	if want := clock.Now().Add(15 * time.Second); !st.RetryAt.Equal(want) {
		t.Fatalf("RetryAt = %v, want %v", st.RetryAt, want)
	}
	_, err = m.Call(ctx, echo, map[string]any{"text": "x"})
	if err == nil || !strings.Contains(err.Error(), "10:00:15") || !strings.Contains(err.Error(), "15s") {
		t.Fatalf("call while open = %v, want a message saying it retries at 10:00:15, in 15s", err)
	}
	if tools := mustTools(t, m); slices.ContainsFunc(tools, func(tl Tool) bool { return tl.Server == "b" }) {
		t.Fatal("tools offered while the breaker is open")
	}

	// The cooldown doubles at each failed trial, up to 5 minutes.
	cooldown := 15 * time.Second
	for _, next := range []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute} {
		clock.Advance(cooldown - time.Second)
		if _, err := m.Call(ctx, echo, map[string]any{"text": "x"}); err == nil {
			t.Fatal("call went through before the cooldown ended")
		}
		clock.Advance(time.Second)
		_, err := m.Call(ctx, crash, nil)
		if err == nil {
			t.Fatal("crash succeeded")
		}
		st := state(t, m, "b")
		if want := clock.Now().Add(next); !st.RetryAt.Equal(want) {
			t.Fatalf("after a failed trial (%v): RetryAt = %v, want now + %v", err, st.RetryAt, next)
		}
		cooldown = next
	}

	// After the cooldown, a good trial closes the breaker.
	clock.Advance(cooldown)
	tools = mustTools(t, m)
	if !slices.ContainsFunc(tools, func(tl Tool) bool { return tl.Server == "b" }) {
		t.Fatalf("tools of b not offered after the cooldown: %+v", state(t, m, "b"))
	}
	res, err = m.Call(ctx, echo, map[string]any{"text": "closed"})
	if err != nil || res.Text() != "closed" {
		t.Fatalf("trial call = %v, %v", res, err)
	}
	if st := state(t, m, "b"); !st.RetryAt.IsZero() || st.State != StateConnected {
		t.Fatalf("after a good trial: %+v", st)
	}
	// The breaker counts from scratch again: one failure does not open it.
	if _, err := m.Call(ctx, crash, nil); err == nil {
		t.Fatal("crash succeeded")
	}
	if res, err := m.Call(ctx, echo, map[string]any{"text": "y"}); err != nil || res.Text() != "y" {
		t.Fatalf("call after one failure = %v, %v", res, err)
	}
}

// TestListChanged: list_changed has the list taken again in the
// background; OnChange says when it is done; Tools never waits for it.
// Progress notifications of a call reach OnProgress.
func TestListChanged(t *testing.T) {
	proctest.Check(t)
	var mu sync.Mutex
	var progress []float64
	changed := make(chan string, 10)
	m, _ := newManager(t, Options{OnProgress: func(server string, p protocol.ProgressParams) {
		mu.Lock()
		defer mu.Unlock()
		if server == "n" {
			progress = append(progress, p.Progress)
		}
	}, OnChange: func(server string) { changed <- server }}, demoServer{name: "n", args: []string{"--page-size", "5"}})
	ctx := context.Background()
	tools := mustTools(t, m)
	if got := receive(t, changed, "OnChange of the start"); got != "n" {
		t.Fatalf("OnChange(%q), want n", got)
	}
	res, err := m.Call(ctx, toolNamed(t, tools, "n", "notify"), nil)
	if err != nil || res.IsError {
		t.Fatalf("notify = %+v, %v", res, err)
	}
	// OnProgress runs on the Manager's goroutine of callbacks: it may
	// hear of the progress after the call returned.
	waitFor(t, "three progress notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) == 3
	})
	// notify sent tools/list_changed: the list is taken again, and
	// OnChange tells.
	if got := receive(t, changed, "OnChange of the refresh"); got != "n" {
		t.Fatalf("OnChange(%q), want n", got)
	}
	tools = mustTools(t, m)
	if st := state(t, m, "n"); st.Stale || st.RefreshErr != nil || len(tools) != demoTools {
		t.Fatalf("after the refresh: %d tools, %+v", len(tools), st)
	}
}

func TestUpdate(t *testing.T) {
	proctest.Check(t)
	m, home := newManager(t, Options{},
		demoServer{name: "same"}, demoServer{name: "changed"}, demoServer{name: "removed"}, demoServer{name: "disabled"})
	mustTools(t, m)
	before := map[string]int{}
	for _, st := range m.States() {
		if st.Pid == 0 {
			t.Fatalf("%s not running: %+v", st.Name, st)
		}
		before[st.Name] = st.Pid
	}
	writeConfig(t, home,
		demoServer{name: "same"},
		demoServer{name: "changed", args: []string{"--page-size", "3"}},
		demoServer{name: "disabled", extra: map[string]any{"disabled": true}},
		demoServer{name: "added"})
	m.Update(loadConfig(t, home))
	// Update stopped the changed, removed and disabled servers' processes
	// before it returned (their pids are reaped), not the unchanged one.
	for name, pid := range before {
		if alive, want := processAlive(pid), name == "same"; alive != want {
			t.Errorf("after Update, process of %s (pid %d) alive = %v, want %v", name, pid, alive, want)
		}
	}
	// Until tools are asked for, the changed and new ones do not run.
	var names []string
	for _, st := range m.States() {
		names = append(names, st.Name)
	}
	if want := []string{"same", "changed", "disabled", "added"}; !slices.Equal(names, want) {
		t.Fatalf("servers after Update = %v, want %v", names, want)
	}
	if st := state(t, m, "same"); st.Pid != before["same"] || st.State != StateConnected {
		t.Errorf("unchanged server: %+v, want still pid %d", st, before["same"])
	}
	if st := state(t, m, "changed"); st.Pid != 0 || st.State != StateIdle {
		t.Errorf("changed server before Tools: %+v", st)
	}
	if st := state(t, m, "disabled"); st.Pid != 0 || st.State != StateDisabled {
		t.Errorf("disabled server: %+v", st)
	}
	tools := mustTools(t, m)
	after := map[string]int{}
	for _, st := range m.States() {
		after[st.Name] = st.Pid
	}
	if after["same"] != before["same"] {
		t.Errorf("unchanged server restarted: pid %d → %d", before["same"], after["same"])
	}
	if after["changed"] == 0 || after["changed"] == before["changed"] {
		t.Errorf("changed server: pid %d → %d, want a new process", before["changed"], after["changed"])
	}
	if after["added"] == 0 || after["disabled"] != 0 {
		t.Errorf("pids after Update: %v", after)
	}
	res, err := m.Call(context.Background(), toolNamed(t, tools, "added", "echo"), map[string]any{"text": "new"})
	if err != nil || res.Text() != "new" {
		t.Fatalf("call of the added server = %v, %v", res, err)
	}
	if _, err := m.Call(context.Background(), "mcp__removed__echo", map[string]any{"text": "x"}); err == nil {
		t.Error("a removed server's tool still answers")
	}
}

// processAlive says whether the process pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

func TestCallCancellation(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{}, demoServer{name: "c"})
	tools := mustTools(t, m)
	sleep := toolNamed(t, tools, "c", "sleep")
	pid := state(t, m, "c").Pid
	status := func() (calls float64, cancelled []string) {
		m.mu.Lock()
		s := m.servers[0]
		m.mu.Unlock()
		s.mu.Lock()
		conn := s.conn
		s.mu.Unlock()
		r, err := conn.ReadResource(context.Background(), "demo://status")
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("reading demo://status: %v", err)
		}
		var st struct {
			ToolCalls float64  `json:"toolCalls"`
			Cancelled []string `json:"cancelled"`
		}
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &st); err != nil {
			t.Fatal(err)
		}
		return st.ToolCalls, st.Cancelled
	}

	ctx, cancel := context.WithCancel(context.Background())
	long := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, sleep, map[string]any{"ms": 60000})
		long <- err
	}()
	waitFor(t, "the long call to reach the server", func() bool { n, _ := status(); return n >= 1 })
	short := make(chan error, 1)
	go func() {
		res, err := m.Call(context.Background(), sleep, map[string]any{"ms": 300})
		if err == nil && res.Text() != "slept 300 ms" {
			err = fmt.Errorf("short call answered %q", res.Text())
		}
		short <- err
	}()
	waitFor(t, "the short call to reach the server", func() bool { n, _ := status(); return n >= 2 })
	cancel()
	if err := <-long; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call = %v, want context.Canceled", err)
	}
	if err := <-short; err != nil {
		t.Errorf("the overlapping call: %v", err)
	}
	waitFor(t, "the server to see notifications/cancelled", func() bool { _, c := status(); return len(c) == 1 })
	st := state(t, m, "c")
	if st.Pid != pid || st.State != StateConnected || !st.RetryAt.IsZero() {
		t.Errorf("after a cancelled call: %+v, want the same connected process", st)
	}
}

func TestToolFilters(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{},
		demoServer{name: "allow", extra: map[string]any{"enabledTools": []string{"echo", "add", "nosuch"}}},
		demoServer{name: "deny", extra: map[string]any{"disabledTools": []string{"crash", "fail"}}},
	)
	tools := mustTools(t, m)
	per := map[string][]string{}
	for _, tl := range tools {
		per[tl.Server] = append(per[tl.Server], tl.Original)
	}
	if !slices.Equal(per["allow"], []string{"echo", "add"}) {
		t.Errorf("allow offers %v", per["allow"])
	}
	if len(per["deny"]) != demoTools-2 || slices.Contains(per["deny"], "crash") || slices.Contains(per["deny"], "fail") {
		t.Errorf("deny offers %v", per["deny"])
	}
	if _, err := m.Call(context.Background(), "mcp__deny__crash", nil); err == nil {
		t.Error("a disabled tool was called")
	}
}

func TestRequiredServerFailsTools(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{},
		demoServer{name: "fine"},
		demoServer{name: "needed", args: []string{"--exit-at-start"}, extra: map[string]any{"required": true}},
		demoServer{name: "optional", args: []string{"--exit-at-start"}},
	)
	if err := m.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	tools, err := m.Tools(context.Background())
	if err == nil || !strings.Contains(err.Error(), "needed") || strings.Contains(err.Error(), "optional") {
		t.Fatalf("Tools error = %v, want the required server's failure only", err)
	}
	if len(tools) != demoTools {
		t.Errorf("got %d tools beside the error, want the %d of fine", len(tools), demoTools)
	}
}

func TestResultsFromServer(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{MaxText: 1000}, demoServer{name: "r"})
	ctx := context.Background()
	tools := mustTools(t, m)

	res, err := m.Call(ctx, toolNamed(t, tools, "r", "big"), map[string]any{"bytes": 5000})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !res.Truncated || !strings.HasPrefix(text, strings.Repeat("x", 1000)+"\n[") || !strings.Contains(text, "4000 more bytes") {
		t.Errorf("big result: truncated %v, text %.80q…%q", res.Truncated, text, text[max(0, len(text)-60):])
	}

	res, err = m.Call(ctx, toolNamed(t, tools, "r", "image"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blocks) != 4 || res.Blocks[0].Type != "image" || res.Blocks[0].MimeType != "image/png" ||
		!bytes.HasPrefix(res.Blocks[0].Data, []byte("\x89PNG")) {
		t.Fatalf("image result blocks: %+v", res.Blocks)
	}
	for i, want := range []string{"[audio of type audio/wav", "[resource link: Demo logo <demo://logo.png>", "[resource demo://readme]\n"} {
		if b := res.Blocks[i+1]; b.Type != "text" || !strings.HasPrefix(b.Text, want) {
			t.Errorf("block %d = %+v, want text starting %q", i+1, b, want)
		}
	}

	res, err = m.Call(ctx, toolNamed(t, tools, "r", "add"), map[string]any{"a": 2, "b": 3})
	if err != nil || res.Text() != "5" || res.IsError {
		t.Fatalf("add = %+v, %v", res, err)
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	proctest.Check(t)
	leaks := proctest.Goroutines(t)
	m, _ := newManager(t, Options{StartupTimeout: 3 * time.Second},
		demoServer{name: "a"}, demoServer{name: "b"}, demoServer{name: "hang", args: []string{"--hang-initialize"}})
	tools := mustTools(t, m)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := m.Call(ctx, toolNamed(t, tools, "a", "sleep"), map[string]any{"ms": 60000})
		done <- err
	}()
	m.mu.Lock()
	s := m.servers[0]
	m.mu.Unlock()
	waitFor(t, "the call to reach the server", func() bool {
		s.mu.Lock()
		conn := s.conn
		s.mu.Unlock()
		r, err := conn.ReadResource(context.Background(), "demo://status")
		return err == nil && strings.Contains(r.Contents[0].Text, `"toolCalls":1`)
	})
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("a call under way succeeded across Close")
	}
	for _, st := range m.States() {
		t.Errorf("a server remains after Close: %+v", st)
	}
	if _, err := m.Tools(context.Background()); err == nil {
		t.Error("Tools after Close succeeded")
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	leaks() // the manager's goroutines, and the call's, have ended
}

// TestUpdateDuringStart removes a server while it starts: the start ends,
// its process is stopped, and the other server is untouched.
func TestUpdateDuringStart(t *testing.T) {
	proctest.Check(t)
	m, home := newManager(t, Options{}, demoServer{name: "keep"},
		demoServer{name: "slow", args: []string{"--start-delay", "500ms"}})
	done := make(chan []Tool, 1)
	go func() {
		tools, _ := m.Tools(context.Background())
		done <- tools
	}()
	waitFor(t, "slow to be connecting", func() bool { return state(t, m, "slow").State == StateConnecting })
	writeConfig(t, home, demoServer{name: "keep"})
	m.Update(loadConfig(t, home))
	<-done
	if sts := m.States(); len(sts) != 1 || sts[0].Name != "keep" {
		t.Fatalf("states after Update: %+v", sts)
	}
	tools := mustTools(t, m)
	if len(tools) != demoTools {
		t.Fatalf("%d tools, want keep's %d", len(tools), demoTools)
	}
	if _, err := m.Call(context.Background(), "mcp__slow__echo", map[string]any{"text": "x"}); err == nil {
		t.Fatal("a removed server answered")
	}
}

// TestApprovalAndDisabled: without TrustAll, a server not approved
// does not run and says so; an approved one runs; a disabled one is
// disabled.
func TestApprovalAndDisabled(t *testing.T) {
	proctest.Check(t)
	home := t.TempDir()
	writeConfig(t, home, demoServer{name: "approved"}, demoServer{name: "unknown"},
		demoServer{name: "off", extra: map[string]any{"enabled": false}})
	cfg := loadConfig(t, home)
	approvals, err := config.OpenApprovals(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := approvals.Approve(cfg.Server("approved")); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: cfg, Home: openHome(t, home), StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	if len(tools) != demoTools || tools[0].Server != "approved" {
		t.Fatalf("%d tools (first of %s), want approved's %d", len(tools), tools[0].Server, demoTools)
	}
	if st := state(t, m, "unknown"); st.State != StateNeedsApproval || st.Phase != PhaseApproval || st.Pid != 0 || st.Err == nil {
		t.Errorf("unapproved server: %+v", st)
	}
	if st := state(t, m, "off"); st.State != StateDisabled || st.Pid != 0 {
		t.Errorf("disabled server: %+v", st)
	}
}

// TestCallTimeout: a call that outlives the server's timeout is given up
// with notifications/cancelled; the connection stays, and timeouts count
// as transport failures for the breaker.
func TestCallTimeout(t *testing.T) {
	proctest.Check(t)
	clock := newFakeClock()
	// Only tool calls have the short budget: the start and the good call
	// below must not depend on how loaded the machine is.
	m, _ := newManager(t, Options{Now: clock.Now}, demoServer{name: "t", extra: map[string]any{"toolTimeout": 0.3}})
	ctx := context.Background()
	tools := mustTools(t, m)
	sleep := toolNamed(t, tools, "t", "sleep")
	pid := state(t, m, "t").Pid
	_, err := m.Call(ctx, sleep, map[string]any{"ms": 30000})
	var se *ServerError
	if err == nil || !errors.As(err, &se) || se.Phase != PhaseCall || !strings.Contains(err.Error(), "tool sleep on server t timed out after 300ms") {
		t.Fatalf("timed-out call = %v, want a call-phase error naming the timeout", err)
	}
	if res, err := m.CallWith(ctx, sleep, map[string]any{"ms": 1}, &CallOptions{Timeout: time.Minute}); err != nil || res.IsError {
		t.Fatalf("call after a timeout = %+v, %v", res, err)
	}
	if st := state(t, m, "t"); st.Pid != pid || !st.RetryAt.IsZero() {
		t.Fatalf("after a timeout: %+v, want the same process, breaker closed", st)
	}
	for range 2 {
		if _, err := m.Call(ctx, sleep, map[string]any{"ms": 30000}); err == nil {
			t.Fatal("a call outlived its timeout")
		}
	}
	if st := state(t, m, "t"); st.RetryAt.IsZero() {
		t.Fatalf("two timeouts in a row did not open the breaker: %+v", st)
	}
}

// TestWaitStartsAllAtOnce: Wait starts every server before it waits for
// any, so a server that hangs in its start holds up none of the others.
func TestWaitStartsAllAtOnce(t *testing.T) {
	joined := make(chan string, 4)
	m, _ := newManager(t, Options{StartupTimeout: 10 * time.Minute, OnChange: func(server string) { joined <- server }},
		demoServer{name: "hangs", args: []string{"--hang-initialize"}}, demoServer{name: "fast"})
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() { waited <- m.Wait(ctx) }()
	deadline := time.After(time.Minute)
	for got := ""; got != "fast"; {
		select {
		case got = <-joined:
		case err := <-waited:
			t.Fatalf("Wait returned %v with a server still starting", err)
		case <-deadline:
			t.Fatal("the second server did not start while the first one hung")
		}
	}
	cancel()
	if err := <-waited; !errors.Is(err, context.Canceled) {
		t.Errorf("Wait: %v, want context.Canceled", err)
	}
}
