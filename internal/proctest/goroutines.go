package proctest

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Goroutines records the goroutines running now and returns the check of
// those started from then on, by anything in this process: it waits (up
// to about 10s) until each of them has ended, and fails t with the
// stacks of those left. Unlike a count of runtime.NumGoroutine, a
// goroutine that was there before and ended meanwhile cannot hide a
// leaked one, and one that was there before and lingers is not blamed.
func Goroutines(t testing.TB) (check func()) {
	t.Helper()
	before := map[int]bool{}
	for id := range goroutineStacks() {
		before[id] = true
	}
	return func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			left := []string{}
			for id, stack := range goroutineStacks() {
				if !before[id] {
					left = append(left, stack)
				}
			}
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d goroutines started by the test are left:\n\n%s", len(left), strings.Join(left, "\n\n"))
			}
			<-tick.C
		}
	}
}

// goroutineStacks returns the stack of every goroutine but the caller's,
// by goroutine id.
func goroutineStacks() map[int]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[int]string{}
	for i, block := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // the caller's own
		}
		rest, ok := strings.CutPrefix(block, "goroutine ")
		if !ok {
			continue
		}
		id, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, ' '), 0)])
		if err == nil {
			out[id] = block
		}
	}
	return out
}
