//go:build unix

package manager

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestRefreshFailureKeepsList stops the server (SIGSTOP) after
// list_changed, so that the refresh times out: the last good list stays
// offered and the state says the refresh failed; once the server goes on,
// the next Tools lists again.
func TestRefreshFailureKeepsList(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{StartupTimeout: 2 * time.Second}, demoServer{name: "n"})
	ctx := context.Background()
	tools := mustTools(t, m)
	if _, err := m.Call(ctx, toolNamed(t, tools, "n", "notify"), nil); err != nil {
		t.Fatal(err)
	}
	pid := state(t, m, "n").Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	tools = mustTools(t, m)
	if len(tools) != demoTools {
		t.Fatalf("after a failed refresh: %d tools, want the %d of the last list", len(tools), demoTools)
	}
	st := state(t, m, "n")
	if st.State != StateConnected || !st.Stale || st.RefreshErr == nil || !strings.Contains(st.RefreshErr.Error(), "previous list is kept") {
		t.Fatalf("after a failed refresh: %+v", st)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	tools = mustTools(t, m)
	if st := state(t, m, "n"); len(tools) != demoTools || st.Stale || st.RefreshErr != nil || st.Pid != pid {
		t.Fatalf("after the server went on: %d tools, %+v", len(tools), st)
	}
}
