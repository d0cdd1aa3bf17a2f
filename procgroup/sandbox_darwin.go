package procgroup

import (
	"errors"
	"os/exec"
)

// sandboxExec is macOS's sandbox-exec.
const sandboxExec = "/usr/bin/sandbox-exec"

// contain runs cmd under sandbox-exec with a profile made from the one
// sandbox given (macOS cannot stack profiles: two are refused).
func contain(cmd *exec.Cmd, launcher string, boxes []*Sandbox) error {
	if len(boxes) > 1 {
		return &SandboxError{Missing: "stacked sandboxes (a project's under the home's default) on macOS"}
	}
	profile := seatbeltProfile(boxes[0])
	cmd.Args = append([]string{sandboxExec, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sandboxExec
	return nil
}

func launch(boxes []*Sandbox, path string, argv []string) error {
	return errors.New("the launcher is not used on macOS (sandbox-exec is)")
}

// SandboxSupport says what this system can enforce, for doctor.
func SandboxSupport() string {
	return "sandbox-exec with a generated profile (files, network all or nothing); one sandbox at a time"
}
