package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// ptyRun starts bin with args in a terminal of its own, in dir, and
// returns the screen, the master end and a channel closed at its exit
// (with the exit code in *code) once the screen holds all it wrote.
func ptyRun(t *testing.T, bin, dir string, env []string, args ...string) (*screen, *os.File, <-chan struct{}, *int) {
	t.Helper()
	m, slavePath := openPty(t)
	slave, err := os.OpenFile(slavePath, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	scr := &screen{seen: make(chan struct{}, 1)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			scr.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan struct{})
	code := new(int)
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			*code = ee.ExitCode()
		} else if err != nil {
			*code = -1
		}
		// The terminal's last output, up to its end (EIO once no one
		// holds the slave end).
		select {
		case <-copied:
		case <-time.After(hang):
		}
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	return scr, m, exited, code
}

func waitExit(t *testing.T, scr *screen, exited <-chan struct{}) {
	t.Helper()
	select {
	case <-exited:
	case <-time.After(hang):
		t.Fatalf("mcpwire did not exit:\n%s", scr.String())
	}
}

// TestApproveAllProjectAsksOnce: approve --all --project on a terminal
// shows every review, then asks once; "n" approves nothing (exit 3), "y"
// approves them all, and --yes does not ask (issue 20, item 11).
func TestApproveAllProjectAsksOnce(t *testing.T) {
	proctest.Check(t)
	bin := buildMcpwire(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "mcpwire")
	os.MkdirAll(home, 0o700)
	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"one": {"command": "true"}, "two": {"command": "false"}, "off": {"command": "true", "disabled": true}}}`), 0o600)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "MCPWIRE_HOME=" + home, "TERM=dumb"}
	settings := filepath.Join(home, "settings.json")

	for _, answer := range []string{"n", "y"} {
		scr, m, exited, code := ptyRun(t, bin, dir, env, "approve", "--all", "--project")
		scr.waitFor(t, "[y/N] ", exited)
		got := scr.String()
		if strings.Count(got, "[y/N]") != 1 || strings.Index(got, "approving two from") > strings.Index(got, "[y/N]") || !strings.Contains(got, "approving one from") {
			t.Fatalf("want both reviews, then one question:\n%s", got)
		}
		if strings.Contains(got, "approving off") {
			t.Errorf("the disabled entry was reviewed for approval:\n%s", got)
		}
		m.Write([]byte(answer + "\r"))
		waitExit(t, scr, exited)
		data, _ := os.ReadFile(settings)
		switch answer {
		case "n":
			if *code != 3 || strings.Contains(string(data), `"one"`) {
				t.Errorf("answer n: exit %d, settings %s\n%s", *code, data, scr.String())
			}
		case "y":
			if *code != 0 || !strings.Contains(string(data), `"one"`) || !strings.Contains(string(data), `"two"`) || strings.Contains(string(data), `"off"`) {
				t.Errorf("answer y: exit %d, settings %s\n%s", *code, data, scr.String())
			}
		}
	}

	os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"three": {"command": "true"}}}`), 0o600)
	scr, _, exited, code := ptyRun(t, bin, dir, env, "approve", "--all", "--project", "--yes")
	waitExit(t, scr, exited)
	if *code != 0 || strings.Contains(scr.String(), "[y/N]") || !strings.Contains(scr.String(), "approved three") {
		t.Errorf("--yes: exit %d\n%s", *code, scr.String())
	}
}
