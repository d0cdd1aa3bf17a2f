package cli_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// winSessions is the --json document of connect, sessions, disconnect.
type winSessions struct {
	Sessions []struct {
		Name  string `json:"name"`
		Pid   int    `json:"pid"`
		Calls int    `json:"calls"`
		State string `json:"state"`
	} `json:"sessions"`
}

// winRunner is newRunner for Windows: what a Windows program needs of
// the environment besides the runner's, and a folder of its own removed
// file by file (os.RemoveAll, which t.TempDir uses, fails under wine 8:
// "unlinkat …: Invalid function").
func winRunner(t *testing.T) *runner {
	base, err := os.MkdirTemp("", "mcpwire-win-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(t, base) })
	r := &runner{bin: buildMcpwire(t), home: filepath.Join(base, "home", "mcpwire"), dir: filepath.Join(base, "work")}
	tmp := filepath.Join(base, "tmp")
	for _, d := range []string{r.dir, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(r.home), "USERPROFILE=" + filepath.Dir(r.home),
		"MCPWIRE_HOME=" + r.home, "TEMP=" + tmp, "TMP=" + tmp}
	for _, k := range []string{"SystemRoot", "SystemDrive", "WINDIR", "ComSpec", "PATHEXT"} {
		if v, ok := os.LookupEnv(k); ok {
			r.env = append(r.env, k+"="+v)
		}
	}
	return r
}

// removeTree removes dir, deepest first, one os.Remove each.
func removeTree(t *testing.T, dir string) {
	var paths []string
	filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		paths = append(paths, p)
		return nil
	})
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Remove(paths[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("removing %s: %v", paths[i], err)
		}
	}
}

// winDoc runs args with --json and decodes the sessions document.
func (r *runner) winDoc(t *testing.T, code int, args ...string) winSessions {
	t.Helper()
	res := r.run(t, append(args, "--json")...).want(t, code)
	var doc winSessions
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	return doc
}

// waitProcessGone waits (at most hang) until pid has ended.
func waitProcessGone(t *testing.T, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // gone already
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, uint32(hang.Milliseconds()))
	if err != nil || ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("process %d still running after %v (%v)", pid, hang, err)
	}
}

// TestSessionsWindowsPipe connects the demo server (a daemon started
// detached, listening on the user's named pipe), calls it through the
// session, lists it and disconnects it; the daemon then ends.
func TestSessionsWindowsPipe(t *testing.T) {
	r := winRunner(t)
	r.run(t, "add", "d", "--", r.bin, "serve-demo").want(t, 0)
	doc := r.winDoc(t, 0, "connect", "d")
	if len(doc.Sessions) != 1 || doc.Sessions[0].Pid <= 0 || doc.Sessions[0].State != "connected" {
		t.Fatalf("connect: %+v", doc)
	}
	pid := doc.Sessions[0].Pid
	t.Cleanup(func() {
		r.run(t, "disconnect", "--all")
		waitProcessGone(t, pid)
	})
	for _, text := range []string{"hi", "again"} {
		if res := r.run(t, "call", "d", "echo", "text="+text).want(t, 0); strings.TrimSpace(res.stdout) != text {
			t.Fatalf("call: %s", res)
		}
	}
	doc = r.winDoc(t, 0, "sessions")
	if len(doc.Sessions) != 1 || doc.Sessions[0].Calls != 2 || doc.Sessions[0].Pid != pid {
		t.Fatalf("sessions after two calls through the session: %+v", doc)
	}
	doc = r.winDoc(t, 0, "disconnect", "d")
	if len(doc.Sessions) != 1 || doc.Sessions[0].Name != "d" {
		t.Fatalf("disconnect: %+v", doc)
	}
	waitProcessGone(t, pid) // its last session ended: the daemon goes too
	if doc := r.winDoc(t, 0, "sessions"); len(doc.Sessions) != 0 {
		t.Fatalf("sessions after disconnect: %+v", doc)
	}
	if res := r.run(t, "call", "d", "echo", "text=direct").want(t, 0); strings.TrimSpace(res.stdout) != "direct" {
		t.Fatalf("call without a session: %s", res)
	}
}

// TestSessionsWindowsSquatted holds the daemon's pipe name with a
// listener that says nothing: connect does not trust it, cannot replace
// it and says so; a call does not use it and starts the server itself.
func TestSessionsWindowsSquatted(t *testing.T) {
	r := winRunner(t)
	r.run(t, "add", "d", "--", r.bin, "serve-demo").want(t, 0)
	sid, err := safe.UserSID()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(filepath.Join(r.home, "sessions")))
	name := `\\.\pipe\mcpwire-` + sid + "-" + hex.EncodeToString(sum[:6]) // the daemon's (socketPath)
	ln, err := safe.ListenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16) // accepted and never answered
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case held <- c:
			default:
				c.Close()
			}
		}
	}()
	defer func() {
		ln.Close()
		for len(held) > 0 {
			(<-held).Close()
		}
	}()
	res := r.run(t, "connect", "d").want(t, 1)
	for _, want := range []string{"did not answer within", "is not trusted: another process holds the pipe", "hint: another process holds the session pipe"} {
		if !strings.Contains(res.stderr, want) {
			t.Fatalf("connect with the pipe squatted: want %q in\n%s", want, res)
		}
	}
	res = r.run(t, "call", "d", "echo", "text=direct").want(t, 0)
	if strings.TrimSpace(res.stdout) != "direct" || !strings.Contains(res.stderr, "did not answer within") || !strings.Contains(res.stderr, "not used") {
		t.Fatalf("call with the pipe squatted: %s", res)
	}
}
