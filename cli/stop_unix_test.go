//go:build unix

package cli_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// slowStopServer configures, in r's home, the approved server "slow": the
// demo server, then a shell that ignores SIGTERM and waits until the test
// writes to a FIFO, with a shutdownTimeout of 100s (a stop of 200s). It
// returns the FIFO's path and the file where the shell writes its pid.
func slowStopServer(t *testing.T, r *runner) (fifo, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	fifo, pidFile = filepath.Join(dir, "fifo"), filepath.Join(dir, "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `echo $$ > "$1"; "$2" serve-demo --verbose; trap '' TERM; read x < "$3"`
	def := fmt.Sprintf(`{"mcpServers": {"slow": {"command": "sh", "args": ["-c", %q, "sh", %q, %q, %q], "shutdownTimeout": 100}}}`,
		script, pidFile, r.bin, fifo)
	if err := os.MkdirAll(r.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.home, ".mcp.json"), []byte(def), 0o600); err != nil {
		t.Fatal(err)
	}
	r.run(t, "approve", "slow").want(t, 0)
	return fifo, pidFile
}

// release lets the slow server's shell end.
func release(t *testing.T, fifo string) {
	t.Helper()
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// alive says whether the process pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil // not linux: no zombie check
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// started runs mcpwire with args and returns its stderr, line by line,
// and a channel with its exit code.
func started(t *testing.T, r *runner, args ...string) (*exec.Cmd, <-chan string, <-chan int) {
	t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 10000) // never full: the reader must not block
	code := make(chan int, 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
		io.Copy(io.Discard, stderr)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			code <- 0
		case errors.As(err, &ee):
			code <- ee.ExitCode()
		default:
			code <- -1
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	return cmd, lines, code
}

// waitLine waits for a line of stderr that holds text.
func waitLine(t *testing.T, lines <-chan string, text string) {
	t.Helper()
	deadline := time.After(hang)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("mcpwire's stderr ended without %q", text)
			}
			if strings.Contains(l, text) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q on mcpwire's stderr", text)
		}
	}
}

// TestFailurePrintedBeforeTheStop times a call out against a server whose
// stop takes long: the error is on stderr while the server still runs
// (the stop sequence starts after it), and mcpwire exits once the server
// is gone.
func TestFailurePrintedBeforeTheStop(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	fifo, pidFile := slowStopServer(t, r)
	_, lines, code := started(t, r, "call", "slow", "sleep", "ms=60000", "--timeout", "500ms")
	waitLine(t, lines, "timed out after")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !alive(pid) {
		t.Fatal("the error came after the server was stopped")
	}
	release(t, fifo)
	select {
	case c := <-code:
		if c != 1 {
			t.Errorf("exit %d, want 1", c)
		}
	case <-time.After(hang):
		t.Fatal("mcpwire did not exit once the server could end")
	}
}

// TestSecondSignalCutsTheStopShort stops mcpwire with SIGTERM while a
// server takes 200s to stop: a second signal kills what is left at once,
// and mcpwire exits 143 (the first signal's code).
func TestSecondSignalCutsTheStopShort(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	slowStopServer(t, r)
	cmd, lines, code := started(t, r, "call", "--verbose", "slow", "sleep", "ms=60000")
	waitLine(t, lines, "demo: <- tools/call")
	cmd.Process.Signal(syscall.SIGTERM)
	waitLine(t, lines, "interrupted by SIGTERM")
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case c := <-code:
		if c != 143 {
			t.Errorf("exit %d, want 143", c)
		}
	case <-time.After(hang):
		t.Fatal("a second signal did not cut the stop short")
	}
}

// runUntil runs mcpwire with args; with sig, it sends sig once the demo
// logged the tool call. It returns the exit code and stderr.
func runUntil(t *testing.T, bin string, args []string, sig syscall.Signal) (int, string) {
	t.Helper()
	return runUntilOut(t, bin, args, sig, nil)
}

// runUntilOut is runUntil writing mcpwire's stdout to stdout.
func runUntilOut(t *testing.T, bin string, args []string, sig syscall.Signal, stdout io.Writer) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdout = stdout
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cmd.Dir, "MCPWIRE_HOME=" + cmd.Dir + "/mcpwire"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inFlight := make(chan struct{})
	var all strings.Builder
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !seen && strings.Contains(sc.Text(), "demo: <- tools/call") {
				seen = true
				close(inFlight)
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	waited := make(chan error, 1)
	go func() {
		<-readDone
		waited <- cmd.Wait()
	}()
	if sig != 0 {
		select {
		case <-inFlight:
		case <-readDone:
		case <-time.After(hang):
			cmd.Process.Kill()
			t.Fatal("the call never showed up in the demo's log")
		}
		cmd.Process.Signal(sig)
	}
	var werr error
	select {
	case werr = <-waited:
	case <-time.After(hang):
		cmd.Process.Kill()
		<-waited
		t.Fatalf("mcpwire did not exit\n%s", all.String())
	}
	var ee *exec.ExitError
	switch {
	case werr == nil:
		return 0, all.String()
	case errors.As(werr, &ee):
		return ee.ExitCode(), all.String()
	}
	t.Fatal(werr)
	return -1, ""
}
