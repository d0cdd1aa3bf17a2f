//go:build unix

package cli_test

import (
	"encoding/json"
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
