//go:build !unix

package peers

import "os/exec"

// setGroup does nothing here: the peers run on unix only.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills the process itself.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errNotStarted
	}
	return cmd.Process.Kill()
}
