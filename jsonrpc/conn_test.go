package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// pipePair returns two Conns joined by a net.Pipe, closed at the end.
func pipePair(t *testing.T, a, b *ConnOptions) (*Conn, *Conn) {
	t.Helper()
	c1, c2 := net.Pipe()
	ca := NewConn(NewLineStream(c1, c1, c1), a)
	cb := NewConn(NewLineStream(c2, c2, c2), b)
	t.Cleanup(func() {
		ca.Close()
		cb.Close()
	})
	return ca, cb
}

func echoHandler(ctx context.Context, req *Request) (any, error) {
	return blockingEcho(nil)(ctx, req)
}

// blockingEcho answers echo, fail and block; block tells started (if not
// nil) and waits for the connection to end.
func blockingEcho(started chan<- struct{}) func(context.Context, *Request) (any, error) {
	return func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "echo":
			return req.Params, nil
		case "block":
			if started != nil {
				started <- struct{}{}
			}
			<-ctx.Done()
			return nil, ctx.Err()
		case "fail":
			return nil, NewError(-32000, "it failed")
		}
		return nil, NewError(CodeMethodNotFound, "no %s", req.Method)
	}
}

func TestCallAndErrors(t *testing.T) {
	client, _ := pipePair(t, nil, &ConnOptions{Handle: echoHandler})
	ctx := context.Background()
	got, err := client.Call(ctx, "echo", map[string]string{"x": "<y>"})
	if err != nil || string(got) != `{"x":"<y>"}` {
		t.Fatalf("echo: %s %v", got, err)
	}
	_, err = client.Call(ctx, "fail", nil)
	var je *Error
	if !errors.As(err, &je) || je.Code != -32000 || je.Message != "it failed" {
		t.Fatalf("fail: %v", err)
	}
	if !errors.Is(err, &Error{Code: -32000}) {
		t.Fatal("errors.Is by code")
	}
	_, err = client.Call(ctx, "nope", nil)
	if !errors.Is(err, &Error{Code: CodeMethodNotFound}) {
		t.Fatalf("nope: %v", err)
	}
}

func TestNoHandlerIsMethodNotFound(t *testing.T) {
	client, _ := pipePair(t, nil, nil)
	_, err := client.Call(context.Background(), "anything", nil)
	if !errors.Is(err, &Error{Code: CodeMethodNotFound}) {
		t.Fatalf("got %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	// The replying side is a server here: it lifts the reply limit that
	// protects a client from a chatty server.
	client, _ := pipePair(t, nil, &ConnOptions{Handle: echoHandler, ReplyRate: 1 << 20})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			got, err := client.Call(context.Background(), "echo", []int{i})
			if err != nil {
				errs <- err
				return
			}
			if want := fmt.Sprintf("[%d]", i); string(got) != want {
				errs <- fmt.Errorf("call %d got %s", i, got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCancelTellsOnCancelAndKeepsConn(t *testing.T) {
	cancelled := make(chan ID, 1)
	started := make(chan struct{}, 1)
	client, _ := pipePair(t, &ConnOptions{OnCancel: func(id ID, _ error) { cancelled <- id }}, &ConnOptions{Handle: blockingEcho(started)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := client.Call(ctx, "block", nil)
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	select {
	case id := <-cancelled:
		if id != Int64ID(1) {
			t.Fatalf("cancelled id %v", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnCancel not called")
	}
	if _, err := client.Call(context.Background(), "echo", []int{1}); err != nil {
		t.Fatalf("next call: %v", err)
	}
}

func TestNotificationsInOrder(t *testing.T) {
	got := make(chan string, 100)
	client, server := pipePair(t, nil, &ConnOptions{Notify: func(r *Request) { got <- string(r.Params) }})
	_ = server
	for i := range 50 {
		if err := client.Notify(context.Background(), "n", []int{i}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		select {
		case p := <-got:
			if want := fmt.Sprintf("[%d]", i); p != want {
				t.Fatalf("notification %d: %s", i, p)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("notification missing")
		}
	}
}

func TestCloseFailsPending(t *testing.T) {
	started := make(chan struct{}, 1)
	client, server := pipePair(t, nil, &ConnOptions{Handle: blockingEcho(started)})
	done := make(chan error)
	go func() {
		_, err := client.Call(context.Background(), "block", nil)
		done <- err
	}()
	<-started
	server.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("call succeeded after the peer closed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call not failed")
	}
	<-client.Done()
	if _, err := client.Call(context.Background(), "echo", nil); err == nil {
		t.Fatal("call on a dead conn succeeded")
	}
}

func TestBadInputAnsweredAndSkipped(t *testing.T) {
	c1, c2 := net.Pipe()
	bad := make(chan error, 4)
	conn := NewConn(NewLineStream(c1, c1, c1), &ConnOptions{OnBadMessage: func(err error) { bad <- err }})
	defer conn.Close()
	defer c2.Close()
	go func() {
		c2.Write([]byte("hello banner\n" + `{"jsonrpc":"2.0","id":4,"method":"x","params":"no"}` + "\n"))
	}()
	buf := make([]byte, 4096)
	n, err := c2.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"\"params\" must be an object or an array: {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"x\",\"params\":\"no\"}"}}` + "\n"
	if string(buf[:n]) != want {
		t.Fatalf("got  %s\nwant %s", buf[:n], want)
	}
	if len(bad) != 2 {
		t.Fatalf("OnBadMessage called %d times", len(bad))
	}
}

// TestReplyRateLimited: at most 32 replies in any one-second window (a
// token bucket let 32 go at once and 31 more within the same second).
func TestReplyRateLimited(t *testing.T) {
	l := newLimiter(32)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return clock }
	done, cancel := context.WithCancel(context.Background())
	cancel() // a wait that would have to wait fails at once
	for i := range 32 {
		if err := l.wait(done); err != nil {
			t.Fatalf("reply %d of the first 32 had to wait", i)
		}
	}
	if err := l.wait(done); err == nil {
		t.Fatal("the 33rd reply in the same instant did not wait")
	}
	clock = clock.Add(999 * time.Millisecond)
	if err := l.wait(done); err == nil {
		t.Fatal("a reply within the first second went out after 32")
	}

	// Replies spread over time: count those let through in each window.
	l = newLimiter(32)
	l.now = func() time.Time { return clock }
	var sent []time.Time
	for step := range 4000 {
		clock = clock.Add(time.Duration(step%7) * time.Millisecond) // uneven
		if l.wait(done) == nil {
			sent = append(sent, clock)
		}
	}
	for i := range sent {
		n := 0
		for j := i; j < len(sent) && sent[j].Sub(sent[i]) < time.Second; j++ {
			n++
		}
		if n > 32 {
			t.Fatalf("%d replies in the second from %v", n, sent[i])
		}
	}
	if len(sent) < 32 {
		t.Fatalf("only %d replies let through", len(sent))
	}
}

func TestNewResponseWrapsPlainErrors(t *testing.T) {
	r, _ := NewResponse(Int64ID(1), nil, errors.New("boom"))
	if r.Error.Code != CodeInternalError {
		t.Fatal(r.Error)
	}
	r, _ = NewResponse(Int64ID(1), nil, nil)
	if string(r.Result) != "{}" {
		t.Fatal(string(r.Result))
	}
	r, _ = NewResponse(Int64ID(1), json.RawMessage(`[1]`), nil)
	if string(r.Result) != "[1]" {
		t.Fatal(string(r.Result))
	}
}

// TestWaitTakesAnAnswerAlreadyIn gives Wait an ended ctx when the answer is
// already in: the answer wins, and the peer is not told of a cancellation.
func TestWaitTakesAnAnswerAlreadyIn(t *testing.T) {
	c1, c2 := net.Pipe()
	noted := make(chan string, 1)
	cancelled := make(chan ID, 1)
	client := NewConn(NewLineStream(c1, c1, c1), &ConnOptions{
		Notify:   func(r *Request) { noted <- r.Method },
		OnCancel: func(id ID, _ error) { cancelled <- id },
	})
	defer client.Close()
	peer := jsonscan.NewLineReader(c2)
	defer c2.Close()

	p, errc := (*Pending)(nil), make(chan error, 1)
	go func() {
		var err error
		p, err = client.Start(context.Background(), "echo", map[string]int{"n": 1})
		errc <- err
	}()
	line, err := peer.ReadLine()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	msgs, err := DecodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	req := msgs[0].(*Request)
	// The answer, then a notification: once the notification is seen, the
	// answer is waiting for Wait.
	answer, _ := EncodeMessage(&Response{ID: req.ID, Result: req.Params})
	note, _ := EncodeMessage(&Request{Method: "after"})
	go c2.Write(append(append(append(answer, '\n'), note...), '\n'))
	select {
	case <-noted:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp, err := p.Wait(ctx)
	if err != nil || string(resp.Result) != `{"n":1}` {
		t.Fatalf("Wait = %v, %v; want the answer", resp, err)
	}
	select {
	case id := <-cancelled:
		t.Fatalf("OnCancel told of %v, which was answered", id)
	default:
	}
}
