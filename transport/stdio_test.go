package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// hang bounds every wait of these tests, so that a bug fails instead of
// hanging; it is not a timing assertion.
const hang = 30 * time.Second

func connect(t *testing.T, s *Stdio) *StdioConn {
	t.Helper()
	c, err := s.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readNotification reads until a request (or notification) arrives.
func readRequest(t *testing.T, c *StdioConn) *jsonrpc.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	m, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		t.Fatalf("Read: got %T, want a request", m)
	}
	return req
}

func TestStdioBigLine(t *testing.T) {
	proctest.Check(t)
	c := connect(t, helperStdio(t, "jsonecho", nil))
	big := bytes.Repeat([]byte("a"), 64<<20)
	params, _ := json.Marshal([]string{string(big)})
	ctx := context.Background()
	if err := c.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "big", Params: params}); err != nil {
		t.Fatal(err)
	}
	m, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("%v; stderr: %s", err, c.StderrTail())
	}
	resp, ok := m.(*jsonrpc.Response)
	if !ok || resp.ID != jsonrpc.Int64ID(1) {
		t.Fatalf("got %#v", m)
	}
	if resp.Error != nil {
		t.Fatalf("error response: %v", resp.Error)
	}
	if !bytes.Equal(resp.Result, params) {
		t.Fatalf("result: %d bytes, want the %d bytes sent", len(resp.Result), len(params))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStdioExitErrorStderrTail(t *testing.T) {
	proctest.Check(t)
	var copied syncBuffer
	s := helperStdio(t, "exit3", nil)
	s.Stderr = &copied
	c := connect(t, s)
	_, err := c.Read(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Read: %v, want an *ExitError", err)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("ExitError does not unwrap to io.EOF")
	}
	if ee.Code != 3 || ee.Status != "exit status 3" {
		t.Errorf("Code %d, Status %q; want 3, \"exit status 3\"", ee.Code, ee.Status)
	}
	if len(ee.StderrTail) > DefaultStderrLimit+len(`\x1b`) || len(ee.StderrTail) < DefaultStderrLimit-100 {
		t.Errorf("tail has %d bytes, want about %d", len(ee.StderrTail), DefaultStderrLimit)
	}
	if !strings.HasSuffix(ee.StderrTail, "line 0000000010239\n\\x1b[2Jthe end\n") {
		t.Errorf("tail ends %q", ee.StderrTail[max(0, len(ee.StderrTail)-60):])
	}
	if strings.Contains(ee.StderrTail, "line 0000000000000") || strings.Contains(ee.StderrTail, "\x1b") {
		t.Errorf("tail holds the start of stderr or a control character")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(copied.String()); n != 200<<10/20*19+len("\x1b[2Jthe end\n") {
		t.Errorf("Stderr got %d bytes, want all of them", n)
	}
	if _, err := c.Read(context.Background()); !errors.As(err, &ee) {
		t.Errorf("Read after the end: %v, want the same *ExitError", err)
	}
}

func TestStdioStderrLimit(t *testing.T) {
	proctest.Check(t)
	s := helperStdio(t, "exit3", nil)
	s.StderrLimit = 20
	c := connect(t, s)
	c.Read(context.Background())
	<-c.Exited()
	// the last 20 bytes from the start of a line (the cut line "0010239"
	// is left out), the escape character shown escaped
	if got, want := c.StderrTail(), "\\x1b[2Jthe end\n"; got != want {
		t.Errorf("StderrTail() = %q, want %q", got, want)
	}
}

func TestStdioEnvAndDir(t *testing.T) {
	proctest.Check(t)
	t.Setenv("SECRET_TOKEN", "s3cr3t-value")
	t.Setenv("LC_ALL", "C")
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
	dir := t.TempDir()
	s := helperStdio(t, "env", map[string]string{"EXTRA": "from-config"})
	s.Dir = dir
	c := connect(t, s)
	req := readRequest(t, c)
	var got struct {
		Env []string
		Cwd string
	}
	if err := json.Unmarshal(req.Params, &got); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"EXTRA=from-config", "LC_ALL=C", "HTTPS_PROXY=http://127.0.0.1:3128", "PATH=" + os.Getenv("PATH")} {
		if !slices.Contains(got.Env, want) {
			t.Errorf("child env lacks %q", want)
		}
	}
	for _, kv := range got.Env {
		if strings.HasPrefix(kv, "SECRET_TOKEN=") || strings.Contains(kv, "s3cr3t") {
			t.Errorf("child env holds the host's secret: %s", strings.SplitN(kv, "=", 2)[0])
		}
	}
	want, _ := filepath.EvalSymlinks(dir)
	if cwd, _ := filepath.EvalSymlinks(got.Cwd); cwd != want {
		t.Errorf("child cwd %q, want %q", got.Cwd, dir)
	}
}

func TestChildEnv(t *testing.T) {
	host := []string{
		"PATH=/bin", "HOME=/home/u", "SECRET_TOKEN=x", "AWS_SECRET_ACCESS_KEY=y", "LC_CTYPE=C.UTF-8",
		"https_proxy=http://p", "NODE_EXTRA_CA_CERTS=/ca.pem", "noequals", "=C:=C:\\", "PATH=/usr/bin",
		"SystemRoot=C:\\Windows", "Path=C:\\bin",
	}
	env := map[string]string{"API_KEY": "k", "HOME": "/override", "BAD=NAME": "v", "": "v"}
	got := childEnv("linux", host, env)
	want := []string{"API_KEY=k", "HOME=/override", "LC_CTYPE=C.UTF-8", "NODE_EXTRA_CA_CERTS=/ca.pem", "PATH=/usr/bin", "https_proxy=http://p"}
	if !slices.Equal(got, want) {
		t.Errorf("linux:\n got %q\nwant %q", got, want)
	}
	got = childEnv("windows", host, map[string]string{"path": "D:\\tools"})
	want = []string{"HOME=/home/u", "LC_CTYPE=C.UTF-8", "NODE_EXTRA_CA_CERTS=/ca.pem", "SystemRoot=C:\\Windows", "https_proxy=http://p", "path=D:\\tools"}
	if !slices.Equal(got, want) {
		t.Errorf("windows:\n got %q\nwant %q", got, want)
	}
	if got := ChildEnv(nil, nil); len(got) != 0 {
		t.Errorf("ChildEnv(nil, nil) = %q", got)
	}
}

func TestStdioIgnoresSIGTERM(t *testing.T) {
	proctest.Check(t)
	s := helperStdio(t, "ignore-term", nil)
	s.CloseWait, s.TermWait = 50*time.Millisecond, 50*time.Millisecond
	c := connect(t, s)
	readRequest(t, c) // ready: SIGTERM is ignored from here on
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Exited():
	default:
		t.Fatal("Close returned before the server exited")
	}
	if st := c.group.ExitState(); st == nil || st.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("server ended with %v, want SIGKILL", st)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestStdioMuteServerStoppedAtOnce: a server that never sent a message
// (it hangs at its start) has no state to save: Close kills it without
// the grace waits (an hour each here; before, Close waited them out).
func TestStdioMuteServerStoppedAtOnce(t *testing.T) {
	proctest.Check(t)
	s := helperStdio(t, "mute", nil)
	s.CloseWait, s.TermWait = time.Hour, time.Hour
	c := connect(t, s)
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute): // a hang guard, far below the grace waits
		t.Fatal("Close waited for the grace of a server that never spoke")
	}
	select {
	case <-c.Exited():
	default:
		t.Fatal("Close returned before the server exited")
	}
}

func TestStdioGrandchildKilled(t *testing.T) {
	proctest.Check(t)
	s := helperStdio(t, "grandchild", nil)
	s.CloseWait, s.TermWait = 5*time.Second, 50*time.Millisecond
	c := connect(t, s)
	req := readRequest(t, c) // the grandchild is ready and ignores SIGTERM
	var p struct{ Pid int }
	json.Unmarshal(req.Params, &p)
	if p.Pid == 0 || p.Pid == c.Pid() {
		t.Fatalf("grandchild pid %d", p.Pid)
	}
	// The server exits by itself once stdin is closed; its grandchild stays
	// and must be killed all the same.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if st := c.group.ExitState(); st == nil || st.ExitCode() != 0 {
		t.Errorf("server ended with %v, want exit status 0", st)
	}
}

func TestStdioGarbage(t *testing.T) {
	proctest.Check(t)
	c := connect(t, helperStdio(t, "garbage", nil))
	ctx := context.Background()
	var kinds []string
	for range 10 {
		m, err := c.Read(ctx)
		var de *jsonrpc.DecodeError
		switch {
		case errors.As(err, &de):
			if strings.Contains(de.Reason, "\x1b") {
				t.Errorf("DecodeError holds a control character: %q", de.Reason)
			}
			kinds = append(kinds, "bad")
		case err != nil:
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != 0 {
				t.Fatalf("Read: %v, want an ExitError with code 0", err)
			}
			kinds = append(kinds, "exit")
		default:
			kinds = append(kinds, m.(*jsonrpc.Request).Method)
		}
		if err != nil && !errors.As(err, &de) {
			break
		}
	}
	if want := []string{"bad", "bad", "good", "bad", "exit"}; !slices.Equal(kinds, want) {
		t.Errorf("got %q, want %q", kinds, want)
	}
	if c.BadLines() != 3 {
		t.Errorf("BadLines() = %d, want 3", c.BadLines())
	}
}

func TestStdioCloseUnblocksRead(t *testing.T) {
	proctest.Check(t)
	s := helperStdio(t, "ignore-term", nil)
	s.CloseWait, s.TermWait = 10*time.Millisecond, 10*time.Millisecond
	c := connect(t, s)
	readRequest(t, c)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		errc <- err
	}()
	c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close: %v, want an error wrapping io.EOF", err)
		}
	case <-time.After(hang):
		t.Fatal("Read still blocked after Close")
	}
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "x"}); err == nil {
		t.Error("Write after Close succeeded")
	}
}

func TestStdioReadContext(t *testing.T) {
	proctest.Check(t)
	c := connect(t, helperStdio(t, "wait-stdin", nil))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(ctx)
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Read: %v, want context.Canceled", err)
		}
	case <-time.After(hang):
		t.Fatal("Read not ended by its context")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStdioSpawnErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "server.sh")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	exe, _ := os.Executable()
	tests := []struct {
		name string
		s    Stdio
		want string
	}{
		{"not found", Stdio{Command: "mcpwire-no-such-server"}, `starting "mcpwire-no-such-server": executable file not found in $PATH`},
		{"not executable", Stdio{Command: notExec}, `starting "` + notExec + `": permission denied`},
		{"no such path", Stdio{Command: filepath.Join(dir, "nope")}, `starting "` + filepath.Join(dir, "nope") + `": no such file or directory`},
		{"bad cwd", Stdio{Command: exe, Dir: filepath.Join(dir, "gone")}, `working directory "` + filepath.Join(dir, "gone") + `": no such file or directory`},
		{"cwd is a file", Stdio{Command: exe, Dir: notExec}, `working directory "` + notExec + `": not a directory`},
		{"empty", Stdio{}, `starting "": no command`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proctest.Check(t)
			c, err := tt.s.Connect(context.Background())
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			var se *SpawnError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want a *SpawnError with %q", err, tt.want)
			}
		})
	}
	_, err := (&Stdio{Command: "mcpwire-no-such-server"}).Connect(context.Background())
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("not found: %v does not wrap exec.ErrNotFound", err)
	}
}

// syncBuffer is a bytes.Buffer safe for the stderr copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestStdioStderrRelayedBeforeTheEnd relays stderr through a streaming
// redactor, which holds back the end of what it was given: by the time Read
// reports that the server exited, the relay has all of stderr, its last
// line included (held back until stderr ended, as the start of a secret).
func TestStdioStderrRelayedBeforeTheEnd(t *testing.T) {
	proctest.Check(t)
	var copied syncBuffer
	s := helperStdio(t, "exit3", nil)
	s.Stderr = safe.NewWriter(&copied, safe.NewRedactor("the end\nand a secret"))
	c := connect(t, s)
	_, err := c.Read(context.Background())
	if !errors.As(err, new(*ExitError)) {
		t.Fatalf("Read: %v, want an *ExitError", err)
	}
	got := copied.String()
	if n := len(got); n != 200<<10/20*19+len("\x1b[2Jthe end\n") {
		t.Errorf("the relay has %d bytes when the exit is reported, want all of them; it ends %q", n, got[max(0, n-40):])
	}
	if !strings.HasSuffix(got, "\x1b[2Jthe end\n") {
		t.Errorf("the relay ends %q", got[max(0, len(got)-40):])
	}
}
