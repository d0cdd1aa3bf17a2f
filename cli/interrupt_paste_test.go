package cli

import (
	"bytes"
	"context"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
)

// TestSignalEndsPasteWait: login --no-browser waits for the redirected
// address on a stdin nobody writes to; a signal (the cancel of Main's ctx
// with its Interrupt) ends it with the signal's exit code (issue 20,
// item 10).
func TestSignalEndsPasteWait(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var out, errb bytes.Buffer
	env := Env{Stdin: pr, Stdout: &out, Stderr: &lineWatcher{w: &errb, onURL: func(string) {
		cancel(InterruptOf(syscall.SIGHUP))
	}}, Dir: r.home, Home: r.home, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, []string{"login", f.URL + "/mcp", "--no-browser"}, env) }()
	select {
	case code := <-done:
		if code != ExitHangup {
			t.Errorf("exit %d, want %d\n%s", code, ExitHangup, errb.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("login still waits for a paste after the signal\n%s", errb.String())
	}
}
