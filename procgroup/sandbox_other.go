//go:build !linux && !darwin

package procgroup

import (
	"errors"
	"os/exec"
	"runtime"
)

func contain(cmd *exec.Cmd, launcher string, boxes []*Sandbox) error {
	return &SandboxError{Missing: "a sandbox on " + runtime.GOOS + " (mcpwire contains servers on Linux, with Landlock, and on macOS, with sandbox-exec)"}
}

func launch(boxes []*Sandbox, path string, argv []string) error {
	return errors.New("no sandbox on " + runtime.GOOS)
}

// SandboxSupport says what this system can enforce, for doctor.
func SandboxSupport() string { return "none: no sandbox on " + runtime.GOOS }
