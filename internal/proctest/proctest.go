// Package proctest checks that a test leaves no process behind.
package proctest

import "testing"

// Check records the descendants of the current process and registers a
// cleanup that waits (up to about 5s) until every descendant that was not
// there before is gone, then fails t naming the pids and command lines of
// those that remain. On linux it also makes the current process a child
// subreaper, so that orphaned grandchildren stay visible as descendants
// (and are reaped here). Elsewhere Check does nothing.
//
// Tests that use Check should not run in parallel with other tests that
// start processes.
func Check(t testing.TB) {
	t.Helper()
	check(t)
}
