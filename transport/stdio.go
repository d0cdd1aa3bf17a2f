package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
	"github.com/mcpwire/mcpwire/procgroup"
)

// DefaultStderrLimit is how much of a stdio server's stderr is kept when
// Stdio.StderrLimit is 0.
const DefaultStderrLimit = 64 << 10

// exitWait bounds how long Read waits, at the end of the server's stdout,
// for the process to exit; stderrWait how long it then waits for the rest
// of stderr.
const (
	exitWait   = 2 * time.Second
	stderrWait = time.Second
)

// Stdio runs an MCP server as a child process and speaks newline-delimited
// JSON-RPC over its stdin and stdout (the stdio transport). The child runs
// in a process group of its own, so that closing the connection stops it
// and everything it started.
type Stdio struct {
	Command string   // the program: a name looked up in PATH, or a path
	Args    []string // its arguments (never shown in errors)

	// Env is the child's whole environment; build it with ChildEnv. Nil
	// means ChildEnv(os.Environ(), nil), never the whole host environment.
	Env []string
	Dir string // the working directory ("" = ours)

	StderrLimit int // bytes of stderr kept for diagnostics (0 = 64 KiB)
	// MaxMessageBytes is the longest line read from the server's stdout
	// (0 = DefaultMaxMessageBytes): a longer one fails the connection with
	// a *TooLargeError, and is never held whole.
	MaxMessageBytes int64
	// Stderr, when set, gets a copy of the child's stderr as it comes.
	// When it has a Flush method (a streaming redactor that holds back
	// the start of a secret, say), Flush is called once stderr ends, before
	// the end of the server is reported.
	Stderr io.Writer

	// CloseWait and TermWait are the waits of the stepped stop on Close:
	// after closing stdin, and after SIGTERM (0 = 2s each).
	CloseWait, TermWait time.Duration
	// Hurry, when closed, cuts the stop of Close short: what is left of
	// the server is killed at once (a second Ctrl-C, say).
	Hurry <-chan struct{}
	// Reaper, when set, starts the server, so that Close also stops the
	// descendants that left its process group (setsid, daemons); see
	// procgroup.Reaper for what that means for the whole process.
	Reaper *Reaper
	// Sandbox, when set, contains the server and what it starts: each
	// sandbox narrows what the ones before allow, with the defaults
	// added to each (see contain). Where one cannot be enforced, Connect
	// fails with a *SpawnError wrapping a *SandboxError.
	Sandbox []*Sandbox
	// Launcher is the program that applies the sandbox on Linux: one that
	// calls RunSandboxLauncher first ("" = this program).
	Launcher string
}

// A Reaper makes Close stop, besides a stdio server's process group, the
// descendants that left it; see [procgroup.Reaper].
type Reaper = procgroup.Reaper

// NewReaper returns a Reaper; on Linux it makes this process a child
// subreaper (process-wide).
func NewReaper() (*Reaper, error) { return procgroup.NewReaper() }

// A SpawnError says that a stdio server could not be started.
type SpawnError struct {
	Command string // the command as configured
	Err     error  // why, e.g. exec.ErrNotFound, fs.ErrPermission
}

func (e *SpawnError) Error() string { return fmt.Sprintf("starting %q: %v", e.Command, e.Err) }

// Unwrap returns e.Err.
func (e *SpawnError) Unwrap() error { return e.Err }

// A StdioConn is a running stdio server. It implements [jsonrpc.Stream]:
// Read and Write may be called concurrently with each other and with Close,
// but Read only from one goroutine at a time.
type StdioConn struct {
	cmdName string
	group   *procgroup.Group
	tmpDir  string // a sandbox's private temporary folder, removed on Close
	stop    procgroup.StopOptions
	// heard says the server sent a message: only then may it have state
	// to save, and get the grace waits of the stop.
	heard atomic.Bool

	stdin  *os.File
	stdout *os.File
	stderr *os.File

	r        *jsonscan.LineReader
	max      int64             // the longest line read
	queue    []jsonrpc.Message // the line's messages; queue[next:] are still to read
	next     int
	readErr  error           // sticky: the stream ended or broke
	readCtx  context.Context // the ctx whose end unblocks a read
	readStop func() bool     // stops that
	bad      atomic.Int64
	// badTail are the starts of the last lines of stdout that were not
	// JSON-RPC (at most badTailLines), for the ExitError of a server
	// that printed something else and exited. Read appends; a Write that
	// finds the server gone reads it too (tailMu).
	tailMu  sync.Mutex
	badTail []string
	// stdoutEnd is closed when Read met the end of stdout.
	stdoutEnd     chan struct{}
	stdoutEndOnce sync.Once

	wmu    sync.Mutex
	wbuf   []byte
	wbroke error // sticky: a write was cut short
	quick  quickWriter

	ring       *ring
	stderrDone chan struct{}

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ jsonrpc.Stream = (*StdioConn)(nil)

// Connect starts the server. ctx bounds the start only, not the life of the
// connection; Close stops the server. The error of a failed start is a
// *SpawnError naming the command and the reason.
func (s *Stdio) Connect(ctx context.Context) (*StdioConn, error) {
	if err := ctx.Err(); err != nil {
		return nil, &SpawnError{Command: s.Command, Err: err}
	}
	if s.Command == "" {
		return nil, &SpawnError{Command: s.Command, Err: errors.New("no command")}
	}
	if s.Dir != "" {
		fi, err := os.Stat(s.Dir)
		if err == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		} else if err != nil {
			err = unwrapPath(err)
		}
		if err != nil {
			return nil, &SpawnError{Command: s.Command, Err: fmt.Errorf("working directory %q: %w", s.Dir, err)}
		}
	}
	cmd := exec.Command(s.Command, s.Args...)
	if cmd.Err != nil {
		var ee *exec.Error
		if errors.As(cmd.Err, &ee) {
			return nil, &SpawnError{Command: s.Command, Err: ee.Err}
		}
		return nil, &SpawnError{Command: s.Command, Err: cmd.Err}
	}
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	if cmd.Env == nil {
		cmd.Env = ChildEnv(os.Environ(), nil)
	}
	var tmp string
	if len(s.Sandbox) > 0 {
		var err error
		if tmp, err = contain(cmd, s.Launcher, s.Sandbox); err != nil {
			return nil, &SpawnError{Command: s.Command, Err: err}
		}
	}

	var files []*os.File // every end, closed on failure
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, &SpawnError{Command: s.Command, Err: err}
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, &SpawnError{Command: s.Command, Err: err}
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, &SpawnError{Command: s.Command, Err: err}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	var g *procgroup.Group
	if s.Reaper != nil {
		g, err = s.Reaper.Start(cmd)
	} else {
		g, err = procgroup.Start(cmd)
	}
	if err != nil {
		closeAll()
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return nil, &SpawnError{Command: s.Command, Err: unwrapPath(err)}
	}
	// The child has its ends now; ours would keep its pipes open.
	inR.Close()
	outW.Close()
	errW.Close()

	limit := s.StderrLimit
	if limit <= 0 {
		limit = DefaultStderrLimit
	}
	c := &StdioConn{
		cmdName:    s.Command,
		group:      g,
		tmpDir:     tmp,
		stop:       procgroup.StopOptions{CloseWait: s.CloseWait, TermWait: s.TermWait, Hurry: s.Hurry},
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		r:          newLimitedLineReader(outR, maxBytes(s.MaxMessageBytes)),
		max:        maxBytes(s.MaxMessageBytes),
		ring:       newRing(limit),
		stderrDone: make(chan struct{}),
		stdoutEnd:  make(chan struct{}),
	}
	c.quick.init(c)
	go c.readStderr(s.Stderr)
	return c, nil
}

// unwrapPath drops the *fs.PathError around a system error: the command
// or directory is named by the caller already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (c *StdioConn) readStderr(copyTo io.Writer) {
	defer close(c.stderrDone)
	defer func() {
		if f, ok := copyTo.(interface{ Flush() error }); ok {
			f.Flush()
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := c.stderr.Read(buf)
		if n > 0 {
			c.ring.Write(buf[:n])
			if copyTo != nil {
				if _, werr := copyTo.Write(buf[:n]); werr != nil {
					copyTo = nil // keep the ring going
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// Pid returns the process id of the server.
func (c *StdioConn) Pid() int { return c.group.Pid() }

// Exited returns a channel that is closed when the server process exited.
func (c *StdioConn) Exited() <-chan struct{} { return c.group.Done() }

// BadLines returns how many lines of the server's stdout were not
// JSON-RPC messages.
func (c *StdioConn) BadLines() int { return int(c.bad.Load()) }

// StderrTail returns the last bytes of the server's stderr (at most
// Stdio.StderrLimit), from the start of a line, made safe for a terminal
// (safe.SanitizeText).
func (c *StdioConn) StderrTail() string { return safe.SanitizeText(string(c.ring.Bytes())) }

// Read returns the next message from the server's stdout. A line that is
// not a JSON-RPC message gives a *jsonrpc.DecodeError, and the next Read
// goes on with the next line. When stdout ends, Read waits a moment for
// the process to exit and returns an *ExitError (which wraps io.EOF). A
// Read ended by ctx leaves the stream broken.
func (c *StdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if c.next < len(c.queue) {
			m := c.queue[c.next]
			c.queue[c.next] = nil
			c.next++
			return m, nil
		}
		if c.readErr == nil && c.closed.Load() {
			c.readErr = errClosed()
		}
		if c.readErr != nil {
			if c.readStop != nil {
				c.readStop() // nothing more to unblock
				c.readStop = nil
			}
			return nil, c.readErr
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, err := c.readLine(ctx)
		if err != nil {
			c.stdoutEndOnce.Do(func() { close(c.stdoutEnd) })
		}
		if len(line) > 0 {
			var derr error
			c.queue, derr = jsonrpc.AppendDecoded(c.queue[:0], line)
			c.next = 0
			if derr == nil && len(c.queue) > 0 {
				c.heard.Store(true)
			}
			if derr != nil {
				var de *jsonrpc.DecodeError
				if errors.As(derr, &de) {
					c.bad.Add(1)
					de.Reason += ": " + lineStart(line)
					c.tailMu.Lock()
					if len(c.badTail) == badTailLines {
						c.badTail = c.badTail[1:]
					}
					c.badTail = append(c.badTail, lineStart(line))
					c.tailMu.Unlock()
				}
				if err != nil {
					c.readErr = c.endErr(ctx, err)
				}
				return nil, derr
			}
		}
		if err != nil {
			c.readErr = c.endErr(ctx, err)
			if c.next < len(c.queue) {
				continue
			}
			return nil, c.readErr
		}
	}
}

func (c *StdioConn) readLine(ctx context.Context) ([]byte, error) {
	if ctx != c.readCtx {
		// A cancelled ctx ends a blocked read through a deadline in the
		// past. The registration is kept while the caller keeps its ctx
		// (jsonrpc.Conn reads with one ctx for its whole life); a new ctx
		// clears what the old one left.
		if c.readStop != nil {
			c.readStop()
			c.readStop = nil
		}
		c.readCtx = ctx
		if ctx.Done() != nil {
			c.readStop = deadlineOnDone(ctx, c.stdout.SetReadDeadline)
		}
	}
	return c.r.ReadLine() // up to c.max; about 2x a long line at peak
}

// endErr turns the error that ended stdout into what Read reports.
func (c *StdioConn) endErr(ctx context.Context, err error) error {
	if c.closed.Load() {
		return errClosed()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		return fmt.Errorf("reading from %q: %w (stream abandoned)", c.cmdName, ctx.Err())
	}
	if errors.As(err, new(*jsonscan.TooLongError)) {
		return fmt.Errorf("reading from %q: %w", c.cmdName, &TooLargeError{What: "a message (a line on stdout)", Limit: c.max})
	}
	if err != io.EOF {
		return fmt.Errorf("reading from %q: %v", c.cmdName, err)
	}
	// "The server MAY initiate shutdown by closing its output stream to
	// the client and exiting." Wait a moment for the exit.
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-c.group.Done():
	case <-t.C:
		return fmt.Errorf("reading from %q: server closed its stdout but is still running: %w", c.cmdName, io.EOF)
	}
	// The rest of stderr, relayed and kept before the end is reported,
	// unless a grandchild holds it open.
	st := time.NewTimer(stderrWait)
	defer st.Stop()
	select {
	case <-c.stderrDone:
	case <-st.C:
	}
	return c.exitError()
}

// exitError describes the server's end, once it exited.
func (c *StdioConn) exitError() *ExitError {
	c.tailMu.Lock()
	tail := strings.Join(c.badTail, "\n")
	c.tailMu.Unlock()
	e := &ExitError{Code: -1, StderrTail: c.StderrTail(), StdoutTail: tail}
	if st := c.group.ExitState(); st != nil {
		e.Status = st.String()
		e.Code = st.ExitCode()
	}
	return e
}

// goneWhileWriting is the *ExitError of a server whose stdin broke
// (EPIPE) because it exited: what it printed before it went (its stdout
// read to the end, the rest of its stderr), each wait bounded; nil when
// it is still running.
func (c *StdioConn) goneWhileWriting() *ExitError {
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-c.group.Done():
	case <-t.C:
		return nil
	}
	st := time.NewTimer(stderrWait)
	defer st.Stop()
	for _, ch := range []chan struct{}{c.stdoutEnd, c.stderrDone} {
		select {
		case <-ch:
		case <-st.C:
			return c.exitError() // a grandchild holds it open: what came so far
		}
	}
	return c.exitError()
}

func errClosed() error { return fmt.Errorf("transport: connection closed: %w", io.EOF) }

// badTailLines bounds ExitError.StdoutTail.
const badTailLines = 8

// lineStart gives the start of a bad line, for diagnostics.
func lineStart(line []byte) string {
	const n = 80
	if len(line) > n {
		cut := n
		for cut > 0 && line[cut]&0xC0 == 0x80 {
			cut--
		}
		return safe.Sanitize(string(line[:cut])) + "…"
	}
	return safe.Sanitize(string(line))
}

// Write sends msg to the server's stdin as one line. A Write ended by ctx
// or by an error in the middle of a line leaves the stream broken.
func (c *StdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		return errClosed()
	}
	if c.wbroke != nil {
		return c.wbroke
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var err error
	var body [][]byte
	c.wbuf, body, err = jsonrpc.SplitMessage(c.wbuf[:0], msg)
	if err != nil {
		return fmt.Errorf("writing to %q: %v", c.cmdName, err)
	}
	var n int
	switch {
	case body != nil:
		// A big request: its params are written as they stand, not
		// copied into the line.
		for _, b := range slices.Concat([][]byte{c.wbuf}, body, [][]byte{[]byte("}\n")}) {
			var m int
			m, err = c.writeBound(ctx, b)
			if n += m; err != nil {
				break
			}
		}
	case len(c.wbuf) < cap(c.wbuf) || len(c.wbuf) < 64<<10:
		c.wbuf = append(c.wbuf, '\n')
		// Most lines fit the pipe at once: then no deadline is needed.
		if n = c.quick.write(c.wbuf); n < len(c.wbuf) {
			var m int
			m, err = c.writeBound(ctx, c.wbuf[n:])
			n += m
		}
	default:
		// A big message that fills its buffer: write the line end apart
		// rather than copy the message into a bigger buffer.
		n, err = c.writeBound(ctx, c.wbuf)
		if err == nil {
			_, err = c.writeBound(ctx, []byte{'\n'})
			n++
		}
	}
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil // do not pin a huge buffer
	}
	if err != nil {
		switch {
		case c.closed.Load():
			return errClosed()
		case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil:
			err = ctx.Err()
		case errors.Is(err, syscall.EPIPE):
			if ee := c.goneWhileWriting(); ee != nil {
				c.wbroke = fmt.Errorf("writing to %q: %w", c.cmdName, ee)
				return c.wbroke
			}
		}
		err = fmt.Errorf("writing to %q: %w", c.cmdName, err)
		if n > 0 {
			c.wbroke = fmt.Errorf("writing to %q: stream broken by an earlier write", c.cmdName)
		}
		return err
	}
	return nil
}

// writeBound writes b to stdin, ended by the end of ctx.
func (c *StdioConn) writeBound(ctx context.Context, b []byte) (int, error) {
	if ctx.Done() != nil {
		defer deadlineOnDone(ctx, c.stdin.SetWriteDeadline)()
	}
	return c.stdin.Write(b)
}

// deadlineOnDone sets a deadline in the past through set when ctx ends,
// which ends a blocked read or write. The func it returns ends that: it
// returns once set can no longer be called, and clears the deadline if it
// was set, so that it cannot fail a later read or write (a ctx that ends
// just as its write finishes would otherwise poison every write after it).
func deadlineOnDone(ctx context.Context, set func(time.Time) error) (stop func() bool) {
	fired := make(chan struct{})
	after := context.AfterFunc(ctx, func() {
		set(time.Unix(1, 0))
		close(fired)
	})
	return func() bool {
		if after() {
			return true
		}
		<-fired
		set(time.Time{})
		return false
	}
}

// Close stops the server in steps (stdin closed, a wait, SIGTERM to its
// group, a wait, SIGKILL to the group), kills whatever is left of its
// group, and reaps it. It unblocks a pending Read and Write. Calling it
// again does nothing.
func (c *StdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		// Unblock a pending Read without closing stdout yet: a server still
		// writing should not die of SIGPIPE before it saw stdin close.
		c.stdout.SetReadDeadline(time.Unix(1, 0))
		stop := c.stop
		if !c.heard.Load() {
			// It never said a word (it hangs at start): nothing to save,
			// so no grace waits.
			hurried := make(chan struct{})
			close(hurried)
			stop.Hurry = hurried
		}
		c.closeErr = c.group.Stop(c.stdin, &stop)
		c.stdout.Close()
		// The group is gone, so stderr ends now; unless something escaped
		// the group and holds it, which must not hold us.
		t := time.NewTimer(stderrWait)
		select {
		case <-c.stderrDone:
		case <-t.C:
		}
		t.Stop()
		c.stderr.Close()
		<-c.stderrDone
		if c.tmpDir != "" {
			os.RemoveAll(c.tmpDir)
		}
		if c.closeErr != nil {
			c.closeErr = fmt.Errorf("closing %q: %v", c.cmdName, c.closeErr)
		}
	})
	return c.closeErr
}
