package cli_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"os/exec"
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

// TestSessionsOlderDaemon: a daemon of an earlier mcpwire (one that
// refuses the request members it does not know, the pin policy among
// them) still serves a call: the command asks again as that daemon asks,
// speaks MCP over its socket and checks the surface itself.
func TestSessionsOlderDaemon(t *testing.T) {
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
	var mu sync.Mutex
	var refused, served int
	defer wg.Wait()
	defer ln.Close()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ok := olderDaemonConn(t, r, c)
			mu.Lock()
			if ok {
				served++
			} else {
				refused++
			}
			mu.Unlock()
		}
	}()
	res := r.run(t, "call", "d", "echo", "text=hi").want(t, 0)
	if strings.TrimSpace(res.stdout) != "hi" || res.stderr != "" {
		t.Fatalf("through an older daemon:\n%s", res)
	}
	ln.Close()
	wg.Wait()
	if refused != 1 || served != 1 {
		t.Fatalf("the older daemon refused %d requests and served %d (want 1 and 1)", refused, served)
	}
}

// olderDaemonConn answers one connection as a daemon of an earlier
// mcpwire: a request with a member it does not know is refused in its
// words, one without is served by a demo server of its own (false: it
// refused).
func olderDaemonConn(t *testing.T, r *runner, c net.Conn) bool {
	defer c.Close()
	c.Write([]byte("{\"daemon\":1}\n"))
	br := bufio.NewReader(c)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return false
	}
	var req struct {
		Op, Name, Dir, Digest string
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		a, _ := json.Marshal(map[string]any{"error": "session socket: not a protocol line: " + err.Error()})
		c.Write(append(a, '\n'))
		return false
	}
	c.Write([]byte(`{"ok":true,"protocol":"2026-07-28"}` + "\n"))
	cmd := exec.Command(r.bin, "serve-demo")
	cmd.Env = r.env
	cmd.Stdin, cmd.Stdout = br, c
	if err := cmd.Run(); err != nil {
		t.Errorf("the older daemon's server: %v", err)
	}
	return true
}
