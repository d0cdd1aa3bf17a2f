package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// openPty opens a pseudo-terminal: the master end, and the path of the
// slave end.
func openPty(t *testing.T) (*os.File, string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		// CI has pseudo-terminals (the prompts are tested there); a
		// container without /dev/ptmx may skip, elsewhere only.
		if os.Getenv("CI") == "true" {
			t.Fatalf("no pseudo-terminal under CI=true: %v", err)
		}
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	return m, fmt.Sprintf("/dev/pts/%d", n)
}

// screen collects what a program writes to a terminal.
type screen struct {
	mu   sync.Mutex
	b    bytes.Buffer
	seen chan struct{} // told of every write
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.b.Write(p)
	s.mu.Unlock()
	select {
	case s.seen <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the screen shows text.
func (s *screen) waitFor(t *testing.T, text string, done <-chan struct{}) {
	t.Helper()
	deadline := time.After(hang)
	for !strings.Contains(s.String(), text) {
		select {
		case <-s.seen:
		case <-done:
			t.Fatalf("mcpwire exited before showing %q:\n%s", text, s.String())
		case <-deadline:
			t.Fatalf("the terminal never showed %q:\n%s", text, s.String())
		}
	}
}

// TestCtrlCAtTheElicitationPrompt runs mcpwire in a terminal: the demo
// server asks a form, and Ctrl-C at the first field ends mcpwire, exit
// 130, without an answer to any field (it used to wait for them all).
func TestCtrlCAtTheElicitationPrompt(t *testing.T) {
	proctest.Check(t)
	bin := buildMcpwire(t)
	dir := t.TempDir()
	// A session of its own with the terminal as its controlling terminal:
	// Ctrl-C typed there reaches mcpwire, as in a shell.
	scr, m, exited, code := ptyRun(t, bin, dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "MCPWIRE_HOME=" + dir + "/mcpwire", "TERM=dumb"}, "call", "--demo", "ask")
	scr.waitFor(t, "The server asks", exited)
	scr.waitFor(t, ": ", exited) // the first field's prompt
	// Ctrl-C, typed at the prompt.
	if _, err := m.Write([]byte{0x03}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(hang):
		t.Fatalf("mcpwire still waits at the prompt after Ctrl-C:\n%s", scr.String())
	}
	if *code != 130 {
		t.Errorf("exit: %d, want status 130\n%s", *code, scr.String())
	}
}
