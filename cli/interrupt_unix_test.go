//go:build unix

package cli_test

import (
	"strings"
	"syscall"
	"testing"

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
