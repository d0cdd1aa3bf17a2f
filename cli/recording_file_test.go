//go:build unix

package cli_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRecordingFileNamed: a recording that is a FIFO or a device is
// refused at once, without a read that waits, by every command that
// reads one (replay, verify, budget --from), in words that call it a
// recording file (not a snapshot file) and say what to do.
func TestRecordingFileNamed(t *testing.T) {
	r := newRunner(t)
	fifo := filepath.Join(r.dir, "rec.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	for _, file := range []string{"rec.fifo", "/dev/zero"} {
		for _, args := range [][]string{
			{"replay", file},
			{"verify", file, "--demo"},
			{"budget", "--demo", "--max-tokens", "5", "--from", file},
		} {
			res := r.run(t, args...)
			if res.code == 0 {
				t.Errorf("a %s recording is accepted:\n%s", file, res)
			}
			if !strings.Contains(res.stderr, "recording file") || strings.Contains(res.stderr, "snapshot") ||
				!strings.Contains(res.stderr, "replace it with a file") {
				t.Errorf("the error does not name a recording file and what to do:\n%s", res)
			}
		}
	}
}
