package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultReplyRate is how many replies to the peer's requests a Conn sends
// a second, at most, unless ConnOptions says otherwise.
const DefaultReplyRate = 32

// maxHandling bounds the peer's requests being handled at once; beyond it
// a request is answered at once with an error instead of being handled.
const maxHandling = 256

// ConnOptions configures a [Conn]. A nil *ConnOptions means the defaults.
type ConnOptions struct {
	// Handle answers a request from the peer. Each request runs in its own
	// goroutine; its ctx ends when the connection closes. A nil Handle
	// answers every request with CodeMethodNotFound.
	Handle func(ctx context.Context, req *Request) (result any, err error)
	// Notify receives the peer's notifications in order, on the reader
	// goroutine. It must not block.
	Notify func(req *Request)
	// OnCancel is called, on the caller's goroutine, when a call is given
	// up because its context ended before the answer came. An MCP session
	// uses it to send notifications/cancelled.
	OnCancel func(id ID, cause error)
	// OnBadMessage is told about input that is not a JSON-RPC message; the
	// connection goes on. It runs on the reader goroutine and must not block.
	OnBadMessage func(err error)
	// ReplyRate is the most replies a second sent to the peer's requests
	// (0 means DefaultReplyRate).
	ReplyRate int
	// NextID, when set, returns the ID for each outgoing call; by default
	// IDs are integers counting up from 1.
	NextID func() ID
}

// A Conn multiplexes calls over a [Stream]: one reader goroutine reads
// every message, answers are matched to calls by ID, and the peer's
// requests are handed to [ConnOptions.Handle].
//
// Call and Notify may be used from many goroutines at once.
type Conn struct {
	stream Stream
	opts   ConnOptions
	seq    atomic.Int64

	ctx    context.Context // ends on Close
	cancel context.CancelFunc

	mu      sync.Mutex
	pending map[ID]chan *Response
	err     error // why the connection ended; set once

	handling atomic.Int32
	handlers sync.WaitGroup
	limiter  *limiter

	done      chan struct{} // closed when the reader goroutine ends
	closeOnce sync.Once
}

// NewConn starts a connection over s. It owns s from now on.
func NewConn(s Stream, opts *ConnOptions) *Conn {
	c := &Conn{stream: s, pending: map[ID]chan *Response{}, done: make(chan struct{})}
	if opts != nil {
		c.opts = *opts
	}
	rate := c.opts.ReplyRate
	if rate <= 0 {
		rate = DefaultReplyRate
	}
	c.limiter = newLimiter(rate)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.read()
	return c
}

// Call sends a request and waits for its answer. A response error is
// returned as an *Error. When ctx ends first, the call is given up, OnCancel
// is told, and ctx's error is returned (a late answer is dropped).
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	resp, err := c.CallResponse(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// CallResponse is Call, returning the whole successful response: its
// Cursor takes a large result apart quicker than one over the bare result.
func (c *Conn) CallResponse(ctx context.Context, method string, params any) (*Response, error) {
	p, err := c.Start(ctx, method, params)
	if err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

// A Pending is a call sent and not yet waited for.
type Pending struct {
	c  *Conn
	id ID
	ch chan *Response
}

// Start sends a request and returns at once; Pending.Wait waits for the
// answer. ctx bounds the sending only.
func (c *Conn) Start(ctx context.Context, method string, params any) (*Pending, error) {
	raw, err := MarshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("marshaling %s params: %v", method, err)
	}
	var id ID
	if c.opts.NextID != nil {
		id = c.opts.NextID()
	} else {
		id = Int64ID(c.seq.Add(1))
	}
	ch := make(chan *Response, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.stream.Write(ctx, &Request{ID: id, Method: method, Params: raw}); err != nil {
		c.forget(id)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &Pending{c: c, id: id, ch: ch}, nil
}

// ID returns the call's request ID.
func (p *Pending) ID() ID { return p.id }

// Wait waits for the answer to the call and returns the successful
// response; a response error is returned as an *Error. When ctx ends
// first, the call is given up, OnCancel is told, and ctx's error is
// returned (a late answer is dropped). Wait is called once.
func (p *Pending) Wait(ctx context.Context) (*Response, error) {
	c := p.c
	var resp *Response
	select {
	case resp = <-p.ch: // an answer already here wins over ctx
	default:
		select {
		case resp = <-p.ch:
		case <-ctx.Done():
			c.forget(p.id)
			if c.opts.OnCancel != nil {
				c.opts.OnCancel(p.id, context.Cause(ctx))
			}
			return nil, ctx.Err()
		}
	}
	if resp == nil {
		return nil, c.Err()
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp, nil
}

func (c *Conn) forget(id ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if err := c.Err(); err != nil {
		return err
	}
	req, err := NewRequest(ID{}, method, params)
	if err != nil {
		return fmt.Errorf("marshaling %s params: %v", method, err)
	}
	return c.stream.Write(ctx, req)
}

// Done is closed when the connection has ended, by Close or because the
// stream failed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended: io.EOF when the peer closed its
// side, ErrClosed after Close, or the stream's error; nil while it runs.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the stream, fails the calls still waiting, and waits for
// the reader and every request handler to return.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.fail(ErrClosed)
		c.cancel()
		err = c.stream.Close()
		<-c.done
		c.handlers.Wait()
	})
	return err
}

// fail records why the connection ended (first reason wins) and wakes
// every waiting call.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	for id, ch := range c.pending {
		ch <- nil
		delete(c.pending, id)
	}
}

func (c *Conn) read() {
	defer close(c.done)
	for {
		msg, err := c.stream.Read(c.ctx)
		if err != nil {
			var de *DecodeError
			if errors.As(err, &de) {
				c.badMessage(de)
				continue
			}
			if c.ctx.Err() != nil {
				err = ErrClosed
			}
			c.fail(err)
			c.cancel()
			return
		}
		switch m := msg.(type) {
		case *Response:
			c.mu.Lock()
			ch, ok := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ok {
				ch <- m
			}
		case *Request:
			if m.IsNotification() {
				if c.opts.Notify != nil {
					c.opts.Notify(m)
				}
				continue
			}
			if c.handling.Add(1) > maxHandling {
				c.handling.Add(-1)
				c.reply(m.ID, nil, NewError(CodeInternalError, "too many requests in flight"))
				continue
			}
			c.handlers.Add(1)
			go c.handle(m)
		}
	}
}

func (c *Conn) badMessage(de *DecodeError) {
	if c.opts.OnBadMessage != nil {
		c.opts.OnBadMessage(de)
	}
	if de.ID.IsValid() {
		c.handlers.Add(1)
		go func() {
			defer c.handlers.Done()
			c.reply(de.ID, nil, &Error{Code: de.Code, Message: de.Reason})
		}()
	}
}

func (c *Conn) handle(req *Request) {
	defer c.handlers.Done()
	defer c.handling.Add(-1)
	var result any
	var err error
	if c.opts.Handle == nil {
		err = NewError(CodeMethodNotFound, "method not found: %s", req.Method)
	} else {
		result, err = c.opts.Handle(c.ctx, req)
	}
	c.reply(req.ID, result, err)
}

func (c *Conn) reply(id ID, result any, err error) {
	if c.limiter.wait(c.ctx) != nil {
		return
	}
	resp, merr := NewResponse(id, result, err)
	if merr != nil {
		resp, _ = NewResponse(id, nil, NewError(CodeInternalError, "marshaling result: %v", merr))
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	_ = c.stream.Write(ctx, resp)
}

// IsEOF reports whether err means the peer closed the stream.
func IsEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// A limiter is a token bucket: rate tokens a second, burst of rate.
type limiter struct {
	mu     sync.Mutex
	now    func() time.Time
	rate   float64
	tokens float64
	last   time.Time
}

func newLimiter(rate int) *limiter {
	return &limiter{now: time.Now, rate: float64(rate), tokens: float64(rate), last: time.Now()}
}

// wait takes a token, waiting for one if none is left.
func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := l.now()
	l.tokens += now.Sub(l.last).Seconds() * l.rate
	if l.tokens > l.rate {
		l.tokens = l.rate
	}
	l.last = now
	l.tokens--
	var delay time.Duration
	if l.tokens < 0 {
		delay = time.Duration(-l.tokens / l.rate * float64(time.Second))
	}
	l.mu.Unlock()
	if delay == 0 {
		return nil
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
