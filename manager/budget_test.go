package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestTimeoutBoundsTheWholeStart: a definition that gives a request
// timeout and no startupTimeout has its whole start (probe, initialize,
// first list together) bounded by that timeout; before, the probe and
// initialize each had it, within the Manager's budget (a minute here).
// A tool call past its definition's toolTimeout names the tool and the
// server.
func TestTimeoutBoundsTheWholeStart(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{StartupTimeout: time.Minute},
		demoServer{name: "silent", args: []string{"--hang-initialize"}, extra: map[string]any{"timeout": 1}},
		demoServer{name: "slow", extra: map[string]any{"toolTimeout": 0.3}})
	tools := mustTools(t, m)
	if st := state(t, m, "silent"); st.State != StateFailed || !strings.Contains(st.Err.Error(), "startup budget of 1s") {
		t.Fatalf("a silent server with timeout 1: %+v, want failed within the startup budget of 1s", st)
	}
	_, err := m.Call(context.Background(), toolNamed(t, tools, "slow", "sleep"), map[string]any{"ms": 30000})
	var te *ToolTimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "tool sleep on server slow timed out after 300ms") ||
		!errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past toolTimeout: %v", err)
	}
}

// TestCallBeforeTools: a tool can be called by its qualified name once
// its server is connected, without a Tools first (after Wait, and after
// Restart); before, the call said "no tool … (list the tools again)".
func TestCallBeforeTools(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{}, demoServer{name: "srv"})
	ctx := context.Background()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := m.Call(ctx, "mcp__srv__echo", map[string]any{"text": "first"})
	if err != nil || res.Text() != "first" {
		t.Fatalf("a call after Wait, before Tools: %v, %v", res, err)
	}
	if err := m.Restart(ctx, "srv"); err != nil {
		t.Fatal(err)
	}
	if res, err := m.Call(ctx, "mcp__srv__echo", map[string]any{"text": "again"}); err != nil || res.Text() != "again" {
		t.Fatalf("a call after Restart: %v, %v", res, err)
	}
	if _, err := m.Call(ctx, "mcp__srv__nope", nil); err == nil || !strings.Contains(err.Error(), "no tool") {
		t.Fatalf("a tool that is not there: %v", err)
	}
}

// TestMaxRetries: a definition's maxRetries bounds the starts that follow
// a failure (0: none, fail fast), until Restart; before, a server was
// started again on every use, without end.
func TestMaxRetries(t *testing.T) {
	proctest.Check(t)
	clock := newFakeClock()
	m, _ := newManager(t, Options{Now: clock.Now},
		demoServer{name: "fast", args: []string{"--crash-on-first-call"}, extra: map[string]any{"maxRetries": 0}},
		demoServer{name: "exits", args: []string{"--exit-at-start"}, extra: map[string]any{"maxRetries": 2}})
	ctx := context.Background()
	tools := mustTools(t, m)
	echo := toolNamed(t, tools, "fast", "echo")
	if _, err := m.Call(ctx, echo, map[string]any{"text": "x"}); err == nil {
		t.Fatal("the crashing call worked")
	}
	waitFor(t, "the crash to be seen", func() bool { return state(t, m, "fast").State == StateIdle })
	if _, err := m.Call(ctx, echo, map[string]any{"text": "x"}); err == nil || !strings.Contains(err.Error(), "maxRetries is 0") {
		t.Fatalf("a call after the crash with maxRetries 0: %v, want no reconnect", err)
	}
	if err := m.Restart(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	if res, err := m.Call(ctx, echo, map[string]any{"text": "back"}); err == nil || res != nil {
		// --crash-on-first-call crashes the first call of each process.
		t.Fatalf("the first call of the new process: %v, %v", res, err)
	}

	// A server whose start fails: two retries (past the breaker's
	// cooldowns), then none.
	for i := range 2 {
		clock.Advance(time.Hour)
		_, err := m.ReadResource(ctx, "exits", "demo://readme")
		if err == nil || strings.Contains(err.Error(), "not started again") {
			t.Fatalf("retry %d: %v, want the start's failure", i+1, err)
		}
	}
	clock.Advance(time.Hour)
	_, err := m.ReadResource(ctx, "exits", "demo://readme")
	if err == nil || !strings.Contains(err.Error(), "not started again: it failed again 2 times in a row, maxRetries") {
		t.Fatalf("a use after two failed retries: %v", err)
	}
}
