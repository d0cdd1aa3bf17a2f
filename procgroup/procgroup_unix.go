//go:build unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// sysGroup is the process group: its id is the leader's pid.
type sysGroup struct{ pgid int }

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A new process group whose id is the child's pid.
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

func attach(p *os.Process) (sysGroup, error) { return sysGroup{pgid: p.Pid}, nil }

func (s sysGroup) signal(g *Group, sig os.Signal) error {
	ssig, ok := sig.(syscall.Signal)
	if !ok {
		return errors.New("procgroup: signal " + sig.String() + " not supported")
	}
	// kill(-pgid) reaches every process of the group, the leader too, and
	// still works after the leader was reaped while others remain.
	err := syscall.Kill(-s.pgid, ssig)
	if err == syscall.ESRCH {
		return nil // nobody left
	}
	return err
}

func (s sysGroup) release() {}
