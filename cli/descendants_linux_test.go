package cli_test

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwire/mcpwire/cli"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestNoDescendantSurvives runs a stdio server that leaves a descendant of
// each shape (a grandchild ignoring SIGTERM, a double fork, a setsid
// child, a daemon, a child in a process group of its own) and ends
// mcpwire each way (a normal exit, a timeout, SIGINT, SIGTERM, SIGHUP):
// afterwards the process table holds none of them (proctest reads it;
// the test process is a subreaper, so an escaped orphan comes to it and
// is seen).
func TestNoDescendantSurvives(t *testing.T) {
	bin := buildMcpwire(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type ending struct {
		name string
		args []string
		sig  syscall.Signal // sent once the call is in flight; 0: none
		code int
	}
	endings := []ending{
		{"normal exit", []string{"call", "echo", "text=hi"}, 0, 0},
		{"timeout", []string{"call", "--timeout", "300ms", "sleep", "ms=60000"}, 0, 1},
		{"SIGINT", []string{"call", "sleep", "ms=60000"}, syscall.SIGINT, 130},
		{"SIGTERM", []string{"call", "sleep", "ms=60000"}, syscall.SIGTERM, 143},
		{"SIGHUP", []string{"call", "sleep", "ms=60000"}, syscall.SIGHUP, 129},
	}
	for _, shape := range cli.SpawnShapes() {
		for _, end := range endings {
			t.Run(shape+"/"+end.name, func(t *testing.T) {
				t.Cleanup(func() { killHelpers(self) }) // after proctest's check: a failure leaves nothing
				proctest.Check(t)
				args := append(append([]string{}, end.args...), "--verbose", "--", self)
				args = append(args, cli.SpawnHelperArgs(shape, bin)...)
				code, stderr := runUntil(t, bin, args, end.sig)
				if code != end.code {
					t.Errorf("exit %d, want %d\n%s", code, end.code, stderr)
				}
			})
		}
	}
}

// killHelpers kills what is left of the helpers of this test binary.
func killHelpers(self string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.HasPrefix(string(cl), self+"\x00"+cli.SpawnHelperArgs("", "")[0]+"\x00") {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
