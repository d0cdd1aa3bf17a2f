//go:build unix

package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestInterruptCancelsCall sends SIGINT to mcpwire while a long call is in
// flight: the server sees notifications/cancelled, mcpwire exits 130, and
// no process remains.
func TestInterruptCancelsCall(t *testing.T) {
	proctest.Check(t)
	bin := buildMcpwire(t)
	code, stderr := runUntil(t, bin, []string{"call", "--verbose", "sleep", "ms=60000", "--", bin, "serve-demo", "--verbose"}, syscall.SIGINT)
	if code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "cancelled") {
		t.Errorf("the demo did not log a cancellation:\n%s", stderr)
	}
}

// TestInterruptJSONCode: a call stopped by Ctrl-C with --json prints one
// document whose error has code and phase "interrupted", not "internal".
func TestInterruptJSONCode(t *testing.T) {
	proctest.Check(t)
	bin := buildMcpwire(t)
	var out strings.Builder
	code, stderr := runUntilOut(t, bin, []string{"call", "--json", "--verbose", "sleep", "ms=60000", "--", bin, "serve-demo", "--verbose"}, syscall.SIGINT, &out)
	if code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, stderr)
	}
	var doc struct {
		OK    bool `json:"ok"`
		Error struct{ Code, Phase string }
	}
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil || doc.OK || doc.Error.Code != "interrupted" || doc.Error.Phase == "internal" {
		t.Errorf("the --json document of an interrupted call (%v):\n%s", err, out.String())
	}
}

// TestInterruptCancelsTask sends SIGINT to mcpwire while call --task
// waits for a task: mcpwire sends tasks/cancel (the demo logs it), says
// so, and exits 130.
func TestInterruptCancelsTask(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	cmd, lines, code := started(t, r, "call", "--task", "--verbose", "slow-task", "ms=60000", "poll=50", "--", r.bin, "serve-demo", "--tasks", "--verbose")
	// The wait subscribes after the call made the task.
	waitLine(t, lines, "demo: <- subscriptions/listen")
	cmd.Process.Signal(syscall.SIGINT)
	// Both, in either order: the demo's log is relayed apart.
	want := []string{"demo: <- tasks/cancel", "cancelled task "}
	deadline := time.After(hang)
	for len(want) > 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("mcpwire's stderr ended without %q", want)
			}
			want = slices.DeleteFunc(want, func(w string) bool { return strings.Contains(l, w) })
		case <-deadline:
			t.Fatalf("no %q on mcpwire's stderr", want)
		}
	}
	select {
	case c := <-code:
		if c != 130 {
			t.Errorf("exit %d, want 130", c)
		}
	case <-time.After(hang):
		t.Fatal("mcpwire did not exit after the task was cancelled")
	}
}
