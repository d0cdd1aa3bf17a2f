package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A stdioStream reads newline-delimited messages from stdin and writes
// them to stdout. Writes stop for good once closed; a response can be
// dropped (a cancelled request) or followed by work (afterReply).
type stdioStream struct {
	in      jsonrpc.Stream
	garbage string

	mu       sync.Mutex
	out      io.Writer
	buf      []byte
	closed   bool
	suppress map[jsonrpc.ID]bool
	after    map[jsonrpc.ID]func()
}

func (s *stdioStream) Read(ctx context.Context) (jsonrpc.Message, error) { return s.in.Read(ctx) }

func (s *stdioStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return jsonrpc.ErrClosed
	}
	var then func()
	resp, isResp := msg.(*jsonrpc.Response)
	if isResp {
		then = s.after[resp.ID]
		delete(s.after, resp.ID)
		if s.suppress[resp.ID] {
			delete(s.suppress, resp.ID)
			s.mu.Unlock()
			return nil
		}
	}
	var err error
	if isResp && resp.Error == nil && len(resp.Result) > 64<<10 && s.garbage == "" &&
		bytes.IndexByte(resp.Result, '\n') < 0 && bytes.IndexByte(resp.Result, '\r') < 0 {
		// A big result: the envelope around it, and the result as it
		// stands, rather than all of it copied into one line first.
		s.buf, err = jsonrpc.AppendMessage(s.buf[:0], &jsonrpc.Response{ID: resp.ID, Result: json.RawMessage("0")})
		if err == nil {
			if _, err = s.out.Write(s.buf[:len(s.buf)-2]); err == nil { // up to "result":
				if _, err = s.out.Write(safe.EscapeJSON(resp.Result)); err == nil {
					_, err = s.out.Write([]byte("}\n"))
				}
			}
		}
		s.mu.Unlock()
		if then != nil && err == nil {
			then()
		}
		return err
	}
	s.buf, err = jsonrpc.AppendMessage(s.buf[:0], msg)
	if err != nil {
		s.mu.Unlock()
		return err
	}
	s.buf = append(s.buf, '\n')
	if isResp && s.garbage != "" {
		s.buf = append(s.buf, s.garbage...)
	}
	_, err = s.out.Write(safe.EscapeJSON(s.buf))
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
	s.mu.Unlock()
	if then != nil && err == nil {
		then()
	}
	return err
}

// Close stops writes and closes stdin (when it can be closed).
func (s *stdioStream) Close() error {
	s.stop()
	return s.in.Close()
}

// stop makes every later Write fail.
func (s *stdioStream) stop() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func (s *stdioStream) mark(id jsonrpc.ID, suppress bool, then func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if suppress {
		s.suppress[id] = true
	}
	if then != nil {
		s.after[id] = then
	}
}

// connPeer sends to the client over a jsonrpc.Conn, once it exists.
type connPeer struct {
	ready chan struct{}
	conn  *jsonrpc.Conn
}

func (p *connPeer) Notify(ctx context.Context, method string, params any) error {
	<-p.ready
	return p.conn.Notify(ctx, method, params)
}

func (p *connPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	<-p.ready
	return p.conn.Call(ctx, method, params)
}

// ServeStdio serves one session on stdin and stdout until ctx ends, stdin
// closes, or a Handler drops the connection (ErrDropped).
func (s *Server) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	closer, _ := stdin.(io.Closer)
	st := &stdioStream{
		in:       jsonrpc.NewLineStream(stdin, io.Discard, closer),
		garbage:  s.opts.Garbage,
		out:      stdout,
		suppress: map[jsonrpc.ID]bool{},
		after:    map[jsonrpc.ID]func(){},
	}
	sess := s.NewSession()
	crash := make(chan struct{})
	var crashOnce sync.Once
	p := &connPeer{ready: make(chan struct{})}
	var conn *jsonrpc.Conn
	conn = jsonrpc.NewConn(st, &jsonrpc.ConnOptions{
		Handle: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			res, err := sess.Handle(ctx, p, req)
			switch {
			case errors.Is(err, ErrDrop):
				s.Logf("crashing as asked")
				st.stop() // nothing more reaches stdout, this answer included
				crashOnce.Do(func() { close(crash) })
				<-ctx.Done()
				return nil, err
			case errors.Is(err, ErrCancelled):
				st.mark(req.ID, true, nil)
				return nil, err
			}
			if a, ok := res.(*AfterReply); ok {
				st.mark(req.ID, false, a.Then)
				res = a.Result
			}
			return res, err
		},
		Notify: sess.Notification,
		OnBadMessage: func(err error) {
			s.Logf("%v", err)
		},
		OnCancel: func(id jsonrpc.ID, cause error) {
			// A request of ours (roots/list, elicitation, sampling) was
			// given up: tell the client.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = conn.Notify(ctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": "the tool call was cancelled"})
		},
		ReplyRate:   1 << 24,
		FinishOnEOF: true,
	})
	p.conn = conn
	close(p.ready)

	var result error
	select {
	case <-conn.Done():
		if jsonrpc.IsEOF(conn.Err()) {
			sess.hub.endAll() // a listen stream is no answer owed
		}
		if n := drain(ctx, conn, crash); n > 0 {
			s.Logf("stdin closed; %d request(s) still unanswered after %v, given up", n, drainWait)
		}
	case <-ctx.Done():
	case <-crash:
		result = ErrDropped
	}
	st.stop()
	closed := make(chan struct{})
	go func() {
		conn.Close()
		close(closed)
	}()
	if _, isFile := stdin.(*os.File); isFile {
		// A read of a terminal or a blocking pipe cannot be interrupted;
		// the process ends anyway once the caller returns, and a drop
		// ends it at once.
		wait := 500 * time.Millisecond
		if result != nil {
			wait = 0
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-closed:
		case <-t.C:
		}
	} else {
		<-closed
	}
	sess.end()
	return result
}

// encodeInert encodes msg as JSON whose text drives no terminal: what
// JSON leaves raw and a terminal obeys (DEL, C1, bidi and zero-width
// characters, U+2028, U+2029) is written \uXXXX, as safe.EscapeJSON
// does; the values decoded are the same. A server's strings reach the
// host's terminal or log as they are in this stream.
func encodeInert(msg jsonrpc.Message) ([]byte, error) {
	b, err := jsonrpc.EncodeMessage(msg)
	return safe.EscapeJSON(b), err
}

// drainWait bounds the answers still owed once the client closed stdin:
// under the 2 s a client waits before SIGTERM (ours: procgroup's
// DefaultCloseWait), so that a server with a call still running exits by
// itself instead of making every stop wait for the signal.
const drainWait = time.Second

// drain lets the requests read before the client closed stdin be
// answered (a script that pipes requests and closes stdin expects them),
// for at most drainWait, or until ctx ends or a handler drops the
// connection. The client's stop sequence bounds it too: SIGTERM ends ctx.
// It returns how many were still unanswered when drainWait passed.
func drain(ctx context.Context, conn *jsonrpc.Conn, crash <-chan struct{}) int {
	if !jsonrpc.IsEOF(conn.Err()) {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, drainWait)
	defer cancel()
	go func() {
		select {
		case <-crash:
			cancel()
		case <-ctx.Done():
		}
	}()
	if conn.Drain(ctx) != nil && ctx.Err() == context.DeadlineExceeded {
		return conn.Handling()
	}
	return 0
}
