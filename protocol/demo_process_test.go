package protocol_test

// The whole stdio stack (protocol over the stdio transport) against the
// demo server as a separate process: this test binary, re-executed as
// `serve-demo` when MCPWIRE_PROTOCOL_TEST_DEMO holds its arguments.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

const demoEnv = "MCPWIRE_PROTOCOL_TEST_DEMO"

func TestMain(m *testing.M) {
	if era := os.Getenv(benchServerEnv); era != "" {
		os.Exit(benchServerMain(era, os.Stdin, os.Stdout)) // see stdio_bench_test.go
	}
	if os.Getenv(mrtrServerEnv) != "" {
		os.Exit(mrtrServerMain(os.Stdin, os.Stdout)) // see mrtr_bounds_test.go
	}
	if args, ok := os.LookupEnv(demoEnv); ok {
		os.Exit(demo.Main(context.Background(), strings.Fields(args), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// startDemo runs the demo server with args as a child process and
// returns the stdio connection, not yet initialized.
func startDemo(t testing.TB, args ...string) *transport.StdioConn {
	t.Helper()
	return startDemoLogged(t, nil, args...)
}

// startDemoLogged is startDemo with a copy of the server's stderr written
// to stderr as it comes (nil: no copy; StderrTail holds its end either way).
func startDemoLogged(t testing.TB, stderr io.Writer, args ...string) *transport.StdioConn {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	st := &transport.Stdio{Command: exe, Args: []string{"-test.run=^$"}, Stderr: stderr,
		Env: transport.ChildEnv(os.Environ(), map[string]string{demoEnv: strings.Join(args, " ")})}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// demoSession starts the demo server and initializes a session.
func demoSession(t testing.TB, opts *protocol.Options, args ...string) (*protocol.Session, *transport.StdioConn) {
	t.Helper()
	return demoSessionLogged(t, opts, nil, args...)
}

// demoSessionLogged is demoSession with a copy of the server's stderr
// written to stderr.
func demoSessionLogged(t testing.TB, opts *protocol.Options, stderr io.Writer, args ...string) (*protocol.Session, *transport.StdioConn) {
	t.Helper()
	conn := startDemoLogged(t, stderr, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := protocol.Connect(ctx, conn, opts)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, conn.StderrTail())
	}
	t.Cleanup(func() { s.Close() })
	return s, conn
}

func TestDemoPagination50Pages(t *testing.T) {
	proctest.Check(t)
	s, _ := demoSession(t, nil, "--tools", "488", "--page-size", "10")
	tools, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 500 {
		t.Fatalf("got %d tools, want 500 (12 + 488) over 50 pages", len(tools))
	}
	seen := map[string]bool{}
	for _, tool := range tools {
		if seen[tool.Name] {
			t.Fatalf("tool %s listed twice", tool.Name)
		}
		seen[tool.Name] = true
	}
}

func TestDemo100ConcurrentCalls(t *testing.T) {
	proctest.Check(t)
	s, _ := demoSession(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			want := fmt.Sprintf("call %d", i)
			res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": want}, nil)
			switch {
			case err != nil:
				errs <- err
			case len(res.Content) != 1 || res.Content[0].Text != want:
				errs <- fmt.Errorf("call %d got %+v", i, res.Content)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDemoBigResult(t *testing.T) {
	if testing.Short() {
		t.Skip("a big result in -short mode")
	}
	proctest.Check(t)
	s, _ := demoSession(t, nil)
	// A result far past every buffer of the stdio path (64 KiB lines,
	// 1 MiB chunks). Under the race detector, 8 MiB: 64 MiB of JSON work
	// on both sides took 13s there, and over the call's 2 minutes on two
	// busy cores (go test -race -count=5 under a CPU hog).
	n := 64 << 20
	if raceDetector {
		n = 8 << 20
	}
	res, err := s.CallTool(context.Background(), "big", map[string]any{"bytes": n}, &protocol.CallOptions{Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || len(res.Content[0].Text) != n {
		t.Fatalf("got %d contents, first %d bytes", len(res.Content), len(res.Content[0].Text))
	}
}

// logSignal is a server's stderr that closes seen when a line holding
// want has been written.
type logSignal struct {
	want string
	seen chan struct{}
	once sync.Once
	mu   sync.Mutex
	line []byte // the line being written
}

func newLogSignal(want string) *logSignal {
	return &logSignal{want: want, seen: make(chan struct{})}
}

func (l *logSignal) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range p {
		if b != '\n' {
			l.line = append(l.line, b)
			continue
		}
		if strings.Contains(string(l.line), l.want) {
			l.once.Do(func() { close(l.seen) })
		}
		l.line = l.line[:0]
	}
	return len(p), nil
}

func TestDemoTimeoutKeepsConnection(t *testing.T) {
	proctest.Check(t)
	told := newLogSignal("cancelled ")
	s, conn := demoSessionLogged(t, nil, told)
	_, err := s.CallTool(context.Background(), "sleep", map[string]any{"ms": 60000}, &protocol.CallOptions{Timeout: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a timeout", err)
	}
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "still here"}, nil)
	if err != nil || res.Content[0].Text != "still here" {
		t.Fatalf("next call: %v %+v", err, res)
	}
	// The server was told. The notification is sent in the background
	// (the timed-out call returns at once), so it may reach the server
	// after the echo call: wait for the server's log line, then its
	// status resource lists the cancelled id.
	select {
	case <-told.seen:
	case <-time.After(time.Minute):
		t.Fatalf("the server logged no notifications/cancelled within a minute; stderr: %s", conn.StderrTail())
	}
	rr, err := s.ReadResource(context.Background(), "demo://status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rr.Contents[0].Text, `"cancelled"`) || strings.Contains(rr.Contents[0].Text, `"cancelled":[]`) {
		t.Fatalf("the server saw no notifications/cancelled: %s\nstderr: %s", rr.Contents[0].Text, conn.StderrTail())
	}
}

func TestDemoCrashMidCall(t *testing.T) {
	proctest.Check(t)
	s, _ := demoSession(t, nil)
	_, err := s.CallTool(context.Background(), "crash", nil, nil)
	var ee *transport.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("got %v (%T), want a *transport.ExitError", err, err)
	}
	if ee.Code != 3 || !strings.Contains(ee.StderrTail, "crashing as asked") {
		t.Fatalf("exit %q code %d, stderr tail %q", ee.Status, ee.Code, ee.StderrTail)
	}
	if _, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "x"}, nil); err == nil {
		t.Fatal("a call on a dead server succeeded")
	}
}

func TestDemoGarbageOnStdout(t *testing.T) {
	proctest.Check(t)
	s, conn := demoSession(t, nil, "--banner", "--garbage")
	for i := range 3 {
		res, err := s.CallTool(context.Background(), "echo", map[string]any{"text": "ok"}, nil)
		if err != nil || res.Content[0].Text != "ok" {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if conn.BadLines() < 2 {
		t.Fatalf("BadLines = %d, want the banner and garbage counted", conn.BadLines())
	}
}

func TestDemoNeverAnswersInitialize(t *testing.T) {
	proctest.Check(t)
	conn := startDemo(t, "--hang-initialize")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := protocol.Connect(ctx, conn, nil)
	if err == nil {
		t.Fatal("initialize succeeded")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the startup budget's deadline", err)
	}
}

func TestDemoRootsAnswered(t *testing.T) {
	proctest.Check(t)
	dir := t.TempDir()
	s, _ := demoSession(t, &protocol.Options{Roots: func(context.Context) ([]protocol.Root, error) {
		return []protocol.Root{protocol.DirRoot(dir)}, nil
	}})
	res, err := s.CallTool(context.Background(), "roots", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Content[0].Text, dir) {
		t.Fatalf("roots answer %+v does not name %s", res.Content, dir)
	}
}
