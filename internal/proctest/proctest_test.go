package proctest

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports.
type recorder struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) run() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func TestCheckFindsLeftovers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("proctest checks only on linux")
	}
	rec, rec2 := &recorder{TB: t}, &recorder{TB: t}
	Check(rec)
	Check(rec2)
	child := exec.Command("sleep", "3600")
	if err := child.Start(); err != nil {
		t.Skip(err)
	}
	// An orphaned grandchild: sh exits at once, its sleep stays.
	out, err := exec.Command("sh", "-c", "sleep 3600 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan := strings.TrimSpace(string(out))
	rec.run()
	report := strings.Join(rec.errs, "\n")
	if !strings.Contains(report, fmt.Sprintf("pid %d ", child.Process.Pid)) || !strings.Contains(report, "pid "+orphan+" ") {
		t.Errorf("report does not name the child %d and the orphan %s:\n%s", child.Process.Pid, orphan, report)
	}

	// Clean up, and check that Check is then satisfied: the orphan, dead,
	// is reaped by Check itself.
	child.Process.Kill()
	child.Wait()
	var pid int
	fmt.Sscan(orphan, &pid)
	syscall.Kill(pid, syscall.SIGKILL)
	rec2.run()
	if len(rec2.errs) != 0 {
		t.Errorf("after cleanup: %s", rec2.errs)
	}
}
