package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// hang bounds the waits of these tests, so that a bug fails instead of
// hanging; it is not a timing assertion.
const hang = 30 * time.Second

// deadlineStream is a line stream over a net.Conn whose writes end when
// their ctx ends, as the transports' do.
type deadlineStream struct {
	Stream
	conn    net.Conn
	writing chan struct{} // told of each write, when not nil
}

func (s *deadlineStream) Write(ctx context.Context, msg Message) error {
	if s.writing != nil {
		s.writing <- struct{}{}
	}
	stop := context.AfterFunc(ctx, func() { s.conn.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	return s.Stream.Write(ctx, msg)
}

// peerEnd is the far end of a Conn under test: it reads the lines the Conn
// writes.
type peerEnd struct {
	conn net.Conn
	r    *jsonscan.LineReader
}

func newPeerEnd(t *testing.T, opts *ConnOptions) (*Conn, *peerEnd) {
	return newPeerEndWriting(t, opts, nil)
}

func newPeerEndWriting(t *testing.T, opts *ConnOptions, writing chan struct{}) (*Conn, *peerEnd) {
	t.Helper()
	c1, c2 := net.Pipe()
	conn := NewConn(&deadlineStream{Stream: NewLineStream(c1, c1, c1), conn: c1, writing: writing}, opts)
	t.Cleanup(func() {
		c2.Close()
		conn.Close()
	})
	return conn, &peerEnd{conn: c2, r: jsonscan.NewLineReader(c2)}
}

// next reads the next message the Conn wrote.
func (p *peerEnd) next(t *testing.T) Message {
	t.Helper()
	type got struct {
		line []byte
		err  error
	}
	ch := make(chan got, 1)
	go func() {
		line, err := p.r.ReadLine()
		ch <- got{line, err}
	}()
	select {
	case g := <-ch:
		if g.err != nil {
			t.Fatalf("peer read: %v", g.err)
		}
		msgs, err := DecodeMessage(g.line)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("peer read %q: %v", g.line, err)
		}
		return msgs[0]
	case <-time.After(hang):
		t.Fatal("peer: nothing came")
		return nil
	}
}

func (p *peerEnd) send(t *testing.T, lines ...string) {
	t.Helper()
	go p.conn.Write([]byte(strings.Join(lines, "\n") + "\n"))
}

// TestCancelWhileWritingTellsOnCancel ends a call's ctx while its request is
// being written (the peer reads nothing yet): the call returns, and
// OnCancel is told, since the request may have reached the peer.
func TestCancelWhileWritingTellsOnCancel(t *testing.T) {
	cancelled := make(chan ID, 1)
	writing := make(chan struct{}, 1)
	conn, _ := newPeerEndWriting(t, &ConnOptions{OnCancel: func(id ID, _ error) { cancelled <- id }}, writing)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Call(ctx, "slow", nil)
		errc <- err
	}()
	<-writing
	cancel() // the net.Pipe write blocks until the peer reads: never
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Call: %v, want context.Canceled", err)
		}
	case <-time.After(hang):
		t.Fatal("Call not ended by its ctx while writing")
	}
	select {
	case id := <-cancelled:
		if id != Int64ID(1) {
			t.Fatalf("OnCancel told of %v, want 1", id)
		}
	case <-time.After(hang):
		t.Fatal("OnCancel not told of a call given up while writing")
	}
}

// TestOnCancelRunsInTheBackground: a slow OnCancel does not hold up the
// caller, and Close waits for it before closing the stream.
func TestOnCancelRunsInTheBackground(t *testing.T) {
	release := make(chan struct{})
	noticed := make(chan struct{})
	var conn *Conn
	conn, peer := newPeerEnd(t, &ConnOptions{OnCancel: func(id ID, _ error) {
		<-release
		conn.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id})
		close(noticed)
	}})
	ctx, cancel := context.WithCancel(context.Background())
	p, err := startAsync(conn, ctx, peer, t)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait: %v", err) // returned while OnCancel is blocked
	}
	closed := make(chan struct{})
	go func() {
		conn.Close()
		close(closed)
	}()
	close(release)
	if m, ok := peer.next(t).(*Request); !ok || m.Method != "notifications/cancelled" {
		t.Fatalf("the peer got %#v, want notifications/cancelled", m)
	}
	<-noticed
	select {
	case <-closed:
	case <-time.After(hang):
		t.Fatal("Close did not return")
	}
}

// startAsync starts a call while the peer reads its request.
func startAsync(conn *Conn, ctx context.Context, peer *peerEnd, t *testing.T) (*Pending, error) {
	t.Helper()
	type res struct {
		p   *Pending
		err error
	}
	ch := make(chan res, 1)
	go func() {
		p, err := conn.Start(ctx, "slow", nil)
		ch <- res{p, err}
	}()
	if m, ok := peer.next(t).(*Request); !ok || m.Method != "slow" {
		t.Fatalf("the peer got %#v", m)
	}
	r := <-ch
	return r.p, r.err
}

// TestCancelRequestAfterItsRequest sends a request and, in the same write,
// a notification that cancels it: the handler's ctx always ends, and no
// reply goes out for it (before, each got an error reply).
func TestCancelRequestAfterItsRequest(t *testing.T) {
	cause := errors.New("cancelled by the peer")
	ended := make(chan error, 1)
	var conn *Conn
	conn, peer := newPeerEnd(t, &ConnOptions{
		Handle: func(ctx context.Context, req *Request) (any, error) {
			if req.Method == "quick" {
				return "done", nil
			}
			select {
			case <-ctx.Done():
				ended <- context.Cause(ctx)
			case <-time.After(hang):
				ended <- errors.New("the handler's ctx never ended")
			}
			return nil, ctx.Err()
		},
		Notify: func(req *Request) {
			if req.Method == "cancel" {
				conn.CancelRequest(StringID(strings.Trim(string(req.Params), `[]"`)), cause)
			}
		},
		ReplyRate: 1 << 20,
	})
	for i := range 50 {
		id := fmt.Sprintf("r%d", i)
		peer.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ask"}`, id),
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"cancel","params":[%q]}`, id))
		if err := <-ended; err != cause {
			t.Fatalf("round %d: %v", i, err)
		}
	}
	// None of them was answered (the peer cancelled them): the next
	// message is the reply to a request that was not cancelled.
	peer.send(t, `{"jsonrpc":"2.0","id":"last","method":"quick"}`)
	if r, ok := peer.next(t).(*Response); !ok || r.ID != StringID("last") {
		t.Fatalf("the peer got %#v, want the reply to \"last\" alone", r)
	}
}

// TestUndecodableAnswerFailsItsCall answers calls with what cannot be
// decoded: each call fails at once with an *AnswerError, and the peer gets
// no reply to the answer.
func TestUndecodableAnswerFailsItsCall(t *testing.T) {
	deep := strings.Repeat("[", jsonscan.MaxDepth+1) + strings.Repeat("]", jsonscan.MaxDepth+1)
	tests := []struct {
		name, answer, reason string
	}{
		{"result and error", `{"jsonrpc":"2.0","id":%d,"result":{},"error":{"code":1,"message":"x"}}`, `exactly one of "result" and "error"`},
		{"nested too deeply", `{"jsonrpc":"2.0","id":%d,"result":` + deep + `}`, "nested more than 10000 deep"},
		{"deep error data", `{"jsonrpc":"2.0","error":{"code":1,"message":"x","data":` + deep + `},"id":%d}`, "nested more than 10000 deep"},
		{"bad error", `{"jsonrpc":"2.0","id":%d,"error":"nope"}`, `"error" must be an object`},
		{"wrong version", `{"jsonrpc":"1.0","id":%d,"result":{}}`, `"jsonrpc" must be "2.0"`},
		{"cut short", `{"jsonrpc":"2.0","id":%d,"result":{"content":[`, "not valid JSON"},
	}
	bad := make(chan error, 100)
	conn, peer := newPeerEnd(t, &ConnOptions{OnBadMessage: func(err error) { bad <- err }})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), hang)
			defer cancel()
			p, err := startAsync(conn, ctx, peer, t)
			if err != nil {
				t.Fatal(err)
			}
			peer.send(t, fmt.Sprintf(tt.answer, i+1))
			_, err = p.Wait(ctx)
			var ae *AnswerError
			if !errors.As(err, &ae) || ae.ID != Int64ID(int64(i+1)) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Wait: %v, want an *AnswerError for %d with %q", err, i+1, tt.reason)
			}
			<-bad
		})
	}
	// Nothing was replied to the answers: the next thing the peer reads is
	// the next call.
	ctx := context.Background()
	p, err := startAsync(conn, ctx, peer, t)
	if err != nil {
		t.Fatal(err)
	}
	peer.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"ok":true}}`, len(tests)+1))
	if resp, err := p.Wait(ctx); err != nil || string(resp.Result) != `{"ok":true}` {
		t.Fatalf("the call after: %v %v", resp, err)
	}
}

// TestFloodDoesNotBlockTheReader sends far more requests than are handled
// at once, with a handler that never returns, then answers a call of ours:
// the answer comes through though the excess requests wait for replies.
func TestFloodDoesNotBlockTheReader(t *testing.T) {
	release := make(chan struct{})
	conn, peer := newPeerEnd(t, &ConnOptions{Handle: func(ctx context.Context, req *Request) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return struct{}{}, nil
	}})
	defer close(release)
	ctx := context.Background()
	p, err := startAsync(conn, ctx, peer, t)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	// The peer reads what the Conn writes (error replies) while it sends.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := peer.r.ReadLine(); err != nil {
				return
			}
		}
	}()
	defer close(stop)
	peer.send(t, lines...)
	done := make(chan error, 1)
	go func() {
		_, err := p.Wait(ctx)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hang):
		t.Fatal("the answer to our call was held up behind the peer's requests")
	}
}

// TestCloseBoundsTheWaitForHandlers closes a connection whose handler
// never looks at its ctx: Close still returns.
func TestCloseBoundsTheWaitForHandlers(t *testing.T) {
	started := make(chan struct{})
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	conn, peer := newPeerEnd(t, &ConnOptions{Handle: func(context.Context, *Request) (any, error) {
		close(started)
		<-stuck // a prompt that reads a terminal, say
		return nil, nil
	}})
	peer.send(t, `{"jsonrpc":"2.0","id":"s1","method":"ask"}`)
	<-started
	closed := make(chan struct{})
	go func() {
		conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(hang):
		t.Fatal("Close waits for a handler that does not return")
	}
}
