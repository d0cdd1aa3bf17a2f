//go:build unix

package cli_test

import (
	"bufio"
	"errors"
	"io"
	"os/exec"
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
	cmd := exec.Command(bin, "call", "--verbose", "sleep", "ms=60000", "--", bin, "serve-demo", "--verbose")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + cmd.Dir, "MCPWIRE_HOME=" + cmd.Dir + "/mcpwire"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	})

	// Read stderr line by line; signal when the call is in flight.
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
	waitErr := make(chan error, 1)
	go func() {
		<-readDone
		waitErr <- cmd.Wait()
		close(done)
	}()

	select {
	case <-inFlight:
	case <-readDone:
		t.Fatalf("mcpwire ended before the call was in flight:\n%s", all.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the call never showed up in the demo's log")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var werr error
	select {
	case werr = <-waitErr:
	case <-time.After(30 * time.Second):
		t.Fatal("mcpwire did not exit after SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want status 130\n%s", werr, all.String())
	}
	if !strings.Contains(all.String(), "cancelled") {
		t.Errorf("the demo did not log a cancellation:\n%s", all.String())
	}
}
