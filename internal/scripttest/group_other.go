//go:build !unix

package scripttest

import "os/exec"

const isUnix = false

// setGroup does nothing here: process groups are a unix notion.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills the process itself.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errNotStarted
	}
	return cmd.Process.Kill()
}
