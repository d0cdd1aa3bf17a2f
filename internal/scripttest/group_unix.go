//go:build unix

package scripttest

import (
	"os/exec"
	"syscall"
)

const isUnix = true

// setGroup makes cmd the leader of a new process group.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to cmd's whole process group.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errNotStarted
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
