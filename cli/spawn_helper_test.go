//go:build unix

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// spawnHelperArg, as the first argument of the test binary, makes it a
// helper process of the descendant tests (TestMain calls spawnHelper):
//
//	spawn SHAPE MCPWIRE   start a descendant of the shape, then become
//	                      `MCPWIRE serve-demo --verbose` (same pid)
//	linger [ignore-term]  wait forever (ignoring SIGTERM)
//	fork-linger           start a linger and exit (the middle of a double
//	                      fork or of a daemon)
const spawnHelperArg = "mcpwire-test-helper"

// The shapes of the descendant a server leaves: the cases of issue 12.9.
const (
	ShapeIgnoreTerm = "grandchild-ignoring-sigterm" // in the group, ignores SIGTERM
	ShapeDoubleFork = "double-fork"                 // in the group, orphaned at once
	ShapeSetsid     = "setsid-child"                // a session (and group) of its own
	ShapeDaemon     = "daemon"                      // fork, setsid, fork: orphaned at once, out of the group
	ShapeNewGroup   = "new-process-group-child"     // a process group of its own
)

// SpawnShapes lists the shapes.
func SpawnShapes() []string {
	return []string{ShapeIgnoreTerm, ShapeDoubleFork, ShapeSetsid, ShapeDaemon, ShapeNewGroup}
}

// SpawnHelperArgs returns the command line (after the program) that runs
// a stdio server leaving a descendant of shape behind: the test binary as
// the spawn helper, then mcpwire's demo server.
func SpawnHelperArgs(shape, mcpwire string) []string {
	return []string{spawnHelperArg, "spawn", shape, mcpwire}
}

func spawnHelper(args []string) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	helper := func(attr *syscall.SysProcAttr, words ...string) *exec.Cmd {
		cmd := exec.Command(self, append([]string{spawnHelperArg}, words...)...)
		cmd.SysProcAttr = attr // its stdio is /dev/null, as a daemon's
		return cmd
	}
	switch args[0] {
	case "linger":
		if len(args) > 1 && args[1] == "ignore-term" {
			signal.Ignore(syscall.SIGTERM)
		}
		select {}
	case "fork-linger":
		if err := helper(nil, "linger").Start(); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		return 0
	case "spawn":
		if len(args) != 3 {
			return 2
		}
		var err error
		switch shape := args[1]; shape {
		case ShapeIgnoreTerm:
			err = helper(nil, "linger", "ignore-term").Start()
		case ShapeDoubleFork:
			err = helper(nil, "fork-linger").Run()
		case ShapeSetsid:
			err = helper(&syscall.SysProcAttr{Setsid: true}, "linger").Start()
		case ShapeDaemon:
			err = helper(&syscall.SysProcAttr{Setsid: true}, "fork-linger").Run()
		case ShapeNewGroup:
			err = helper(&syscall.SysProcAttr{Setpgid: true}, "linger").Start()
		default:
			err = fmt.Errorf("unknown shape %q", shape)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		mcpwire := args[2]
		err = syscall.Exec(mcpwire, []string{mcpwire, "serve-demo", "--verbose"}, os.Environ())
		fmt.Fprintln(os.Stderr, "helper: exec:", err)
		return 1
	}
	return 2
}
