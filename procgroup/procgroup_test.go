//go:build unix

package procgroup

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// helperArg, first on the test binary's command line, makes it a helper
// process: "leave SHAPE" starts a descendant of the shape, writes its pid
// on stdout, and waits for stdin to end; "linger" waits forever;
// "fork-linger" starts a linger and exits.
const helperArg = "procgroup-test-helper"

func TestMain(m *testing.M) {
	RunLauncher()
	if len(os.Args) >= 3 && os.Args[1] == helperArg {
		os.Exit(helper(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func helper(args []string) int {
	self, _ := os.Executable()
	sub := func(attr *syscall.SysProcAttr, words ...string) *exec.Cmd {
		cmd := exec.Command(self, append([]string{helperArg}, words...)...)
		cmd.SysProcAttr = attr
		return cmd
	}
	switch args[0] {
	case "linger":
		select {}
	case "fork-linger":
		if err := sub(nil, "linger").Start(); err != nil {
			return 1
		}
		return 0
	case "leave":
		var err error
		switch args[1] {
		case "setsid":
			err = sub(&syscall.SysProcAttr{Setsid: true}, "linger").Start()
		case "daemon":
			err = sub(&syscall.SysProcAttr{Setsid: true}, "fork-linger").Run()
		case "group":
			err = sub(&syscall.SysProcAttr{Setpgid: true}, "linger").Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("ready")
		buf := make([]byte, 1)
		os.Stdin.Read(buf) // until stdin ends
		return 0
	}
	return 2
}

// startLeaving starts a helper that leaves a descendant of shape, with r
// (nil: procgroup.Start), and waits until it did.
func startLeaving(t *testing.T, r *Reaper, shape string) (*Group, *os.File) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, helperArg, "leave", shape)
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	cmd.Stdin, cmd.Stdout = inR, outW
	var g *Group
	if r != nil {
		g, err = r.Start(cmd)
	} else {
		g, err = Start(cmd)
	}
	if err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	buf := make([]byte, 6)
	if n, _ := outR.Read(buf); string(buf[:n]) != "ready\n" {
		t.Fatalf("helper said %q", buf[:n])
	}
	outR.Close()
	return g, inW
}

// TestReaperStopsWhatLeftTheGroup stops a group whose leader left a
// descendant outside it: with a Reaper nothing is left (proctest reads the
// process table).
func TestReaperStopsWhatLeftTheGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a child subreaper is linux only")
	}
	r, err := NewReaper()
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []string{"setsid", "daemon", "group"} {
		t.Run(shape, func(t *testing.T) {
			proctest.Check(t)
			g, stdin := startLeaving(t, r, shape)
			if err := g.Stop(stdin, &StopOptions{CloseWait: time.Second, TermWait: time.Second}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHurryCutsTheStopShort stops a leader that ignores the end of stdin
// and SIGTERM with waits of a minute each: closing Hurry makes Stop kill it
// at once.
func TestHurryCutsTheStopShort(t *testing.T) {
	proctest.Check(t)
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	out.Read(buf)
	hurry := make(chan struct{})
	stopped := make(chan error, 1)
	go func() {
		stopped <- g.Stop(nil, &StopOptions{CloseWait: time.Minute, TermWait: time.Minute, Hurry: hurry})
	}()
	close(hurry)
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not hurry")
	}
	if st := g.ExitState(); st == nil || !strings.Contains(st.String(), "killed") {
		t.Errorf("the leader ended as %v, want killed", st)
	}
}
