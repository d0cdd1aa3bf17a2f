package manager

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

// within runs f and fails, with every goroutine's stack, when f has not
// returned after d: a deadlock shows where each goroutine waits. It
// ends the test binary rather than failing t, since the cleanups of a
// deadlocked Manager (its Close, deferred or not) would hang too. The bound is a watchdog against
// hangs, far above what f takes, not a timing assertion.
func within(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-done:
	case <-tm.C:
		fmt.Fprintf(os.Stderr, "--- FAIL: %s: %s did not return within %v; every goroutine:\n%s", t.Name(), what, d, allStacks())
		os.Exit(1)
	}
}

// waitClosed waits for ch to close, as within waits for a call.
func waitClosed(t testing.TB, d time.Duration, what string, ch <-chan struct{}) {
	t.Helper()
	within(t, d, what, func() { <-ch })
}

// allStacks returns the stacks of every goroutine.
func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}
