package jsonrpc

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// TestDuplicateIDRefused gives two calls the same ID (ConnOptions.NextID):
// the second is refused with a *DuplicateIDError instead of taking the
// first one's place (before, the first waited for good and the answer
// went to the second).
func TestDuplicateIDRefused(t *testing.T) {
	conn, peer := newPeerEnd(t, &ConnOptions{NextID: func() ID { return StringID("same") }})
	ctx := context.Background()
	p, err := startAsync(conn, ctx, peer, t)
	if err != nil {
		t.Fatal(err)
	}
	var de *DuplicateIDError
	sctx, cancel := context.WithTimeout(ctx, hang) // before, it was written, and nobody reads
	defer cancel()
	if _, err := conn.Start(sctx, "again", nil); !errors.As(err, &de) || de.ID != StringID("same") {
		t.Fatalf("a second call of the same id: %v, want a *DuplicateIDError", err)
	}
	peer.send(t, `{"jsonrpc":"2.0","id":"same","result":"first"}`)
	resp, err := p.Wait(ctx)
	if err != nil || string(resp.Result) != `"first"` {
		t.Fatalf("the first call got %v, %v", resp, err)
	}
}

// readTold is a line stream that tells each Read and whose Write blocks
// after writing until its ctx ends (a POST whose answer came while the
// request was still being written, as over HTTP).
type readTold struct {
	Stream
	reads chan struct{}
}

func (s *readTold) Read(ctx context.Context) (Message, error) {
	select {
	case s.reads <- struct{}{}:
	case <-ctx.Done():
	}
	return s.Stream.Read(ctx)
}

func (s *readTold) Write(ctx context.Context, msg Message) error {
	if err := s.Stream.Write(ctx, msg); err != nil {
		return err
	}
	if _, ok := msg.(*Request); !ok {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestNoCancelForAnAnsweredCall answers a call while its request is still
// being written, then ends the call's ctx: the answer stands, and no
// cancellation goes out for a call already answered (before, OnCancel was
// told, and the answer dropped).
func TestNoCancelForAnAnsweredCall(t *testing.T) {
	c1, c2 := net.Pipe()
	reads := make(chan struct{})
	cancelled := make(chan ID, 1)
	conn := NewConn(&readTold{Stream: NewLineStream(c1, c1, c1), reads: reads},
		&ConnOptions{OnCancel: func(id ID, _ error) { cancelled <- id }})
	defer c2.Close()
	defer conn.Close()
	<-reads // the reader waits for the first message
	peer := &peerEnd{conn: c2, r: jsonscan.NewLineReader(c2)}
	ctx, cancel := context.WithCancel(context.Background())
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
	peer.send(t, `{"jsonrpc":"2.0","id":1,"result":"quick"}`)
	select {
	case <-reads: // the answer was taken in: the reader reads on
	case <-time.After(hang):
		t.Fatal("the answer was not read")
	}
	cancel()
	r := <-ch
	if r.err != nil {
		t.Fatalf("Start: %v, want the call with its answer", r.err)
	}
	resp, err := r.p.Wait(ctx)
	if err != nil || string(resp.Result) != `"quick"` {
		t.Fatalf("Wait: %v, %v", resp, err)
	}
	conn.Close() // waits for the cancellation notices going out
	select {
	case id := <-cancelled:
		t.Fatalf("OnCancel told of %v, a call already answered", id)
	default:
	}
}
