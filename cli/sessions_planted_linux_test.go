package cli_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSessionsPlantedDaemon: a listener of our own user planted at the
// daemon's socket says hello and answers every request with sessions
// and errors whose every string carries escape sequences; sessions,
// connect and disconnect print none of them raw.
func TestSessionsPlantedDaemon(t *testing.T) {
	r := newRunner(t)
	r.run(t, "add", "d", "--", r.bin, "serve-demo").want(t, 0)
	dir := filepath.Join(r.home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer ln.Close()
	wg.Add(1)
	go func() {
		defer wg.Done()
		plantedDaemon(ln, &wg)
	}()
	for _, args := range [][]string{{"sessions"}, {"connect", "d"}, {"disconnect", "d"}, {"disconnect", "--all"}} {
		res := r.run(t, args...)
		if out := res.stdout + res.stderr; strings.ContainsAny(out, "\x1b\x07\u009b\u202e") {
			t.Errorf("a planted daemon's words reach the terminal raw:\n%q", out)
		}
	}
}

// plantedDaemon answers each connection of ln as a daemon would, in
// hostile words, until ln is closed.
func plantedDaemon(ln net.Listener, wg *sync.WaitGroup) {
	e := hostile
	s := map[string]any{"name": "n" + e, "pid": 1, "since": "x" + e, "state": "connected" + e,
		"transport": "stdio" + e, "protocol": "p" + e}
	answer, _ := json.Marshal(map[string]any{"ok": true, "error": "boom" + e, "phase": "call" + e,
		"hints": []string{"do" + e}, "protocol": "p" + e, "sessions": []any{s}})
	answer = append(answer, '\n')
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			c.Write([]byte("{\"daemon\":1}\n"))
			sc := bufio.NewScanner(c)
			sc.Buffer(make([]byte, 1<<16), 1<<20)
			for sc.Scan() {
				if _, err := c.Write(answer); err != nil {
					return
				}
			}
		}()
	}
}

// TestSessionsPlantedFolder: a session folder that others may reach
// (planted in XDG_RUNTIME_DIR, mode 0777) is refused by connect in words
// that call it a folder and say what to do; a call still starts the
// server directly.
func TestSessionsPlantedFolder(t *testing.T) {
	r := newRunner(t)
	r.run(t, "add", "d", "--", r.bin, "serve-demo").want(t, 0)
	rt := filepath.Join(filepath.Dir(r.dir), "run")
	if err := os.MkdirAll(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	r.env = append(r.env, "XDG_RUNTIME_DIR="+rt)
	sum := sha256.Sum256([]byte(filepath.Clean(r.home)))
	dir := filepath.Join(rt, "mcpwire-"+hex.EncodeToString(sum[:6]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	res := r.run(t, "connect", "d").want(t, 1)
	if !strings.Contains(res.stderr, "session folder "+dir+" is not trusted: mode 0777") ||
		!strings.Contains(res.stderr, "hint: if it is not yours, remove it (rm -r") {
		t.Errorf("a planted session folder:\n%s", res)
	}
	if res := r.run(t, "call", "d", "echo", "text=direct").want(t, 0); strings.TrimSpace(res.stdout) != "direct" {
		t.Errorf("a call beside a planted session folder:\n%s", res)
	}
}
