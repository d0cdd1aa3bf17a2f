//go:build unix

package cli_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/internal/safe"
)

// startWatched starts cmd with its stderr read line by line; the channel
// gets every line, and is closed at the end of stderr.
func startWatched(t *testing.T, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, stderr)
	}()
	return lines
}

// waitStderr waits for a stderr line holding text, and returns what came.
func waitStderr(t *testing.T, lines <-chan string, text string) string {
	t.Helper()
	var seen strings.Builder
	deadline := time.After(hang)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stderr ended before %q:\n%s", text, seen.String())
			}
			seen.WriteString(l + "\n")
			if strings.Contains(l, text) {
				return seen.String()
			}
		case <-deadline:
			t.Fatalf("stderr never showed %q:\n%s", text, seen.String())
		}
	}
}

// exitCode waits (with the hang deadline) for cmd, whose stderr lines
// drain, and returns its exit code.
func exitCode(t *testing.T, cmd *exec.Cmd, lines <-chan string) int {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for range lines {
		}
		done <- cmd.Wait()
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(hang):
		cmd.Process.Kill()
		<-done
		t.Fatal("mcpwire did not exit")
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// homeWithServer returns a runner whose home .mcp.json holds one server,
// the file's path and its bytes.
func homeWithServer(t *testing.T) (*runner, string, []byte) {
	t.Helper()
	r := newRunner(t)
	os.MkdirAll(r.home, 0o700)
	mcp := filepath.Join(r.home, ".mcp.json")
	before := []byte(`{"mcpServers": {"keep": {"command": "true"}}}` + "\n")
	if err := os.WriteFile(mcp, before, 0o600); err != nil {
		t.Fatal(err)
	}
	return r, mcp, before
}

// lockHeld takes the lock of path (as another mcpwire would) until the
// test ends.
func lockHeld(t *testing.T, path string) {
	t.Helper()
	l, err := safe.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Unlock() })
}

// TestSignalEndsLockWait: add, waiting for the lock of the .mcp.json
// another program holds, ends on SIGINT, SIGTERM and SIGHUP with the
// signal's exit code and writes nothing (issue 20, item 10).
func TestSignalEndsLockWait(t *testing.T) {
	proctest.Check(t)
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			r, mcp, before := homeWithServer(t)
			lockHeld(t, mcp)
			cmd := exec.Command(r.bin, "add", "x", "--", "true")
			cmd.Dir, cmd.Env = r.dir, r.env
			lines := startWatched(t, cmd)
			waitStderr(t, lines, "waiting for "+mcp)
			cmd.Process.Signal(c.sig)
			if got := exitCode(t, cmd, lines); got != c.code {
				t.Errorf("exit %d, want %d", got, c.code)
			}
			if after, _ := os.ReadFile(mcp); !bytes.Equal(after, before) {
				t.Errorf(".mcp.json changed:\n%s", after)
			}
			if _, err := os.Stat(filepath.Join(r.home, "settings.json")); err == nil {
				t.Error("settings.json was written")
			}
		})
	}
}

// TestSignalEndsApprovalLockWait: add, interrupted while it waits for the
// lock of settings.json to approve what it added, takes the entry out
// again: the server is not left in the file, unapproved.
func TestSignalEndsApprovalLockWait(t *testing.T) {
	proctest.Check(t)
	r, mcp, before := homeWithServer(t)
	lockHeld(t, filepath.Join(r.home, "settings.json"))
	cmd := exec.Command(r.bin, "add", "x", "--", "true")
	cmd.Dir, cmd.Env = r.dir, r.env
	lines := startWatched(t, cmd)
	waitStderr(t, lines, "settings.json: another program holds its lock")
	cmd.Process.Signal(syscall.SIGINT)
	if got := exitCode(t, cmd, lines); got != 130 {
		t.Errorf("exit %d, want 130", got)
	}
	if after, _ := os.ReadFile(mcp); !bytes.Equal(after, before) {
		t.Errorf(".mcp.json kept the interrupted add:\n%s", after)
	}
}

// TestSpecialConfigDoesNotBlock: a project .mcp.json that is /dev/stdin
// (a pipe nobody writes to) or a FIFO no one opens is refused at once:
// list does not wait for it, and names the file.
func TestSpecialConfigDoesNotBlock(t *testing.T) {
	proctest.Check(t)
	for _, kind := range []string{"stdin", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			r := newRunner(t)
			p := filepath.Join(r.dir, ".mcp.json")
			cmd := exec.Command(r.bin, "list", "--no-connect")
			cmd.Dir, cmd.Env = r.dir, r.env
			switch kind {
			case "stdin":
				if err := os.Symlink("/dev/stdin", p); err != nil {
					t.Fatal(err)
				}
				pr, pw, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				defer pw.Close()
				defer pr.Close()
				cmd.Stdin = pr
			case "fifo":
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			lines := startWatched(t, cmd)
			seen := waitStderr(t, lines, ".mcp.json")
			if got := exitCode(t, cmd, lines); got != 0 {
				t.Errorf("exit %d, want 0", got)
			}
			if !strings.Contains(seen, "not a regular file") {
				t.Errorf("stderr does not say the rule:\n%s", seen)
			}
		})
	}
}

// TestSignalEndsStdinRead: call TOOL - waits for its arguments on a
// stdin nobody writes to; SIGTERM ends it with 143.
func TestSignalEndsStdinRead(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	cmd := exec.Command(r.bin, "call", "--verbose", "echo", "-", "--", r.bin, "serve-demo", "--verbose")
	cmd.Dir, cmd.Env = r.dir, r.env
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	cmd.Stdin = pr
	lines := startWatched(t, cmd)
	pr.Close()
	waitStderr(t, lines, "demo: <- tools/list") // the arguments come next
	cmd.Process.Signal(syscall.SIGTERM)
	if got := exitCode(t, cmd, lines); got != 143 {
		t.Errorf("exit %d, want 143", got)
	}
}
