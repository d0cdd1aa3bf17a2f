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
// in any one-second window, at most, unless ConnOptions says otherwise.
const DefaultReplyRate = 32

// maxHandling bounds the peer's requests being handled at once (their
// replies, which wait for the reply rate, included); beyond it a request
// is not handled but answered with an error, through a queue of
// maxRejects error replies sent as fast as the peer takes them (they cost
// next to nothing, and tell a flooding peer to slow down). A request that
// finds that queue full too (a peer that sends and does not read) gets no
// answer: the reader never waits, so that answers to our own calls are
// never held up by the peer's requests.
const (
	maxHandling = 256
	maxRejects  = 256
)

// maxIdleHandlers bounds the handler goroutines kept waiting for the
// peer's next request. A goroutine started for each request grows its
// stack, and copies it, on every request (a tenth of the CPU of a call
// through mcpwire proxy); one kept from the last request has grown it
// already. They end with the connection.
const maxIdleHandlers = 4

// closeWait bounds each wait of Close: for the cancellation notices still
// going out, and for the handlers of the peer's requests to return once
// their ctx ended.
const closeWait = 2 * time.Second

// ConnOptions configures a [Conn]. A nil *ConnOptions means the defaults.
type ConnOptions struct {
	// Handle answers a request from the peer. Each request runs in its own
	// goroutine; its ctx ends when the connection closes, or with
	// Conn.CancelRequest. A nil Handle answers every request with
	// CodeMethodNotFound.
	Handle func(ctx context.Context, req *Request) (result any, err error)
	// Notify receives the peer's notifications in order, on the reader
	// goroutine. It must not block.
	Notify func(req *Request)
	// OnCancel is called when a call is given up because its context
	// ended before the answer came, once its request may have reached the
	// peer (its context ended while the request was written, or after).
	// It runs in a goroutine of its own, so that the caller returns at
	// once; Close waits for it (up to 2s) before closing the stream. An
	// MCP session uses it to send notifications/cancelled.
	OnCancel func(id ID, cause error)
	// OnBadMessage is told about input that is not a JSON-RPC message; the
	// connection goes on. An answer that cannot be decoded fails the call
	// it answers (an *AnswerError) besides. It runs on the reader
	// goroutine and must not block.
	OnBadMessage func(err error)
	// ReplyRate is the most replies sent to the peer's requests in any
	// one-second window (0 means DefaultReplyRate).
	ReplyRate int
	// OnOverflow is told of each request of the peer past the bound of
	// requests in flight: answered with an error (answered), or not at
	// all when the queue of such errors is full too. It runs on the reader
	// goroutine and must not block.
	OnOverflow func(req *Request, answered bool)
	// NextID, when set, returns the ID for each outgoing call; by default
	// IDs are integers counting up from 1.
	NextID func() ID
	// FinishOnEOF keeps the peer's requests already read running when the
	// peer closes its side (io.EOF): they are still answered, until Close.
	// Done is closed at the EOF all the same, the calls waiting fail, and
	// [Conn.Drain] waits for the requests. A server on stdio sets it: a
	// client that pipes its requests and closes stdin expects the answers.
	FinishOnEOF bool
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
	pending map[ID]*Pending
	serving map[ID]*serving // the peer's requests being handled
	err     error           // why the connection ended; set once
	closing bool            // Close has begun: no new cancellation notices

	notices  sync.WaitGroup // OnCancel calls running
	handling atomic.Int32   // the peer's requests being handled or replied to
	settled  chan struct{}  // has room for one: a request of the peer ended
	handlers sync.WaitGroup // their goroutines, and the reject queue's
	jobs     chan job       // requests handed to an idle handler goroutine
	idle     atomic.Int32   // handler goroutines waiting on jobs
	limiter  *limiter
	rejects  chan *Response // error replies the reader could not hand to a handler

	done      chan struct{} // closed when the reader goroutine ends
	closeOnce sync.Once
}

// NewConn starts a connection over s. It owns s from now on.
func NewConn(s Stream, opts *ConnOptions) *Conn {
	c := &Conn{stream: s, pending: map[ID]*Pending{}, serving: map[ID]*serving{},
		done: make(chan struct{}), rejects: make(chan *Response, maxRejects), jobs: make(chan job),
		settled: make(chan struct{}, 1)}
	if opts != nil {
		c.opts = *opts
	}
	rate := c.opts.ReplyRate
	if rate <= 0 {
		rate = DefaultReplyRate
	}
	c.limiter = newLimiter(rate)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.handlers.Add(1)
	go c.sendRejects()
	go c.read()
	return c
}

// An answer is what a pending call gets: the peer's response, or an error
// (nil for both: the connection ended).
type answer struct {
	_ [0]func() // not comparable: no equality function in the binary

	resp *Response
	err  error
}

// serving is one of the peer's requests being handled.
type serving struct {
	cancel    context.CancelCauseFunc
	cancelled atomic.Bool // by CancelRequest: no reply is sent
}

// An AnswerError says that the peer's answer to a call could not be
// decoded (it was nested too deeply, had both a result and an error, …):
// the call fails with it at once, and the peer gets no reply.
type AnswerError struct {
	ID     ID
	Reason string
}

func (e *AnswerError) Error() string {
	return "protocol error: the answer cannot be decoded: " + e.Reason
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
	c    *Conn
	req  Request       // as sent; req.ID is the call's
	done chan struct{} // closed once a is set
	a    answer
}

// Start sends a request and returns at once; Pending.Wait waits for the
// answer. ctx bounds the sending only: when it ends while the request is
// written, the call is given up and OnCancel is told, since the request
// may have reached the peer (over HTTP, writing is the whole POST until
// the answer's headers).
func (c *Conn) Start(ctx context.Context, method string, params any) (*Pending, error) {
	raw, err := MarshalParams(params)
	if err != nil {
		return nil, fmt.Errorf("marshaling %s params: %v", method, err)
	}
	return c.StartRaw(ctx, method, raw)
}

// StartRaw is Start with params already marshaled (nil: none). params
// must stay unchanged until the call is over.
func (c *Conn) StartRaw(ctx context.Context, method string, params json.RawMessage) (*Pending, error) {
	return c.start(ctx, Request{Method: method, Params: params})
}

// StartParts is StartRaw with the params in parts, sent joined: a big
// value among them goes out as it stands over a stream that writes parts
// (stdio), never copied into one slice with the rest.
func (c *Conn) StartParts(ctx context.Context, method string, parts [][]byte) (*Pending, error) {
	return c.start(ctx, Request{Method: method, Parts: parts})
}

// start sends req (its ID set here) and returns at once.
func (c *Conn) start(ctx context.Context, req Request) (*Pending, error) {
	var id ID
	if c.opts.NextID != nil {
		id = c.opts.NextID()
	} else {
		id = Int64ID(c.seq.Add(1))
	}
	if err := ctx.Err(); err != nil {
		return nil, err // nothing was sent
	}
	req.ID = id
	p := &Pending{c: c, req: req, done: make(chan struct{})}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	if _, dup := c.pending[id]; dup {
		c.mu.Unlock()
		return nil, &DuplicateIDError{ID: id, Method: req.Method}
	}
	c.pending[id] = p
	c.mu.Unlock()

	if err := c.stream.Write(ctx, &p.req); err != nil {
		if !c.forget(id, p) {
			// Answered while it was written (over HTTP the answer comes
			// with the write): the answer stands, and nothing is
			// cancelled.
			return p, nil
		}
		if ctx.Err() != nil {
			c.gaveUp(id, context.Cause(ctx))
			return nil, ctx.Err()
		}
		return nil, err
	}
	p.req.Params, p.req.Parts = nil, nil // sent: a big request is not held while its answer comes
	return p, nil
}

// A DuplicateIDError says that a call was not sent because a call of the
// same ID (from ConnOptions.NextID) is still waiting for its answer: the
// answer could not be told apart.
type DuplicateIDError struct {
	ID     ID
	Method string
}

func (e *DuplicateIDError) Error() string {
	return fmt.Sprintf("%s not sent: a call of id %s is still waiting for its answer", e.Method, e.ID)
}

// settle gives the call its answer; the caller has taken it out of
// c.pending (so it is settled once).
func (p *Pending) settle(a answer) {
	p.a = a
	close(p.done)
}

// ID returns the call's request ID.
func (p *Pending) ID() ID { return p.req.ID }

// Wait waits for the answer to the call and returns the successful
// response; a response error is returned as an *Error, an answer that
// cannot be decoded as an *AnswerError. When ctx ends first, the call is
// given up, OnCancel is told, and ctx's error is returned (a late answer
// is dropped). Wait is called once.
func (p *Pending) Wait(ctx context.Context) (*Response, error) {
	c := p.c
	select {
	case <-p.done: // an answer already here wins over ctx
	default:
		select {
		case <-p.done:
		case <-ctx.Done():
			if c.forget(p.req.ID, p) {
				c.gaveUp(p.req.ID, context.Cause(ctx))
				return nil, ctx.Err()
			}
			<-p.done // answered meanwhile: settled at once
		}
	}
	a := p.a
	switch {
	case a.err != nil:
		return nil, a.err
	case a.resp == nil:
		return nil, c.Err()
	case a.resp.Error != nil:
		return nil, a.resp.Error
	}
	return a.resp, nil
}

// gaveUp tells OnCancel, in the background, that the call id was given up.
func (c *Conn) gaveUp(id ID, cause error) {
	if c.opts.OnCancel == nil {
		return
	}
	c.mu.Lock()
	if c.closing || c.err != nil {
		c.mu.Unlock()
		return
	}
	c.notices.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.notices.Done()
		c.opts.OnCancel(id, cause)
	}()
}

// CancelRequest ends the ctx of the peer's request id with cause, if it
// is being handled, and reports whether it was; the request then gets no
// reply (the peer cancelled it, and may reuse its ID). A request is registered on
// the reader goroutine before its handler starts, so a cancellation read
// after it (by Notify, say) always finds it.
func (c *Conn) CancelRequest(id ID, cause error) bool {
	c.mu.Lock()
	s := c.serving[id]
	c.mu.Unlock()
	if s == nil {
		return false
	}
	s.cancelled.Store(true)
	s.cancel(cause)
	return true
}

// forget takes the call id out of c.pending, when it is there and is p
// (any call of that id when p is nil), and reports whether it was.
func (c *Conn) forget(id ID, p *Pending) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, ok := c.pending[id]
	if !ok || p != nil && q != p {
		return false
	}
	delete(c.pending, id)
	return true
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

// Close lets the cancellation notices still going out finish (up to 2s),
// closes the stream, fails the calls still waiting, ends the ctx of every
// request handler, and waits for the reader, and for the handlers up to
// 2s: a handler that does not watch its ctx is left to return by itself
// (its reply goes nowhere).
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		waitGroup(&c.notices, closeWait)
		c.fail(ErrClosed)
		c.cancel()
		err = c.stream.Close()
		<-c.done
		waitGroup(&c.handlers, closeWait)
	})
	return err
}

// waitGroup waits for wg, up to d, and says whether it is done.
func waitGroup(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
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
	for id, p := range c.pending {
		delete(c.pending, id)
		p.settle(answer{})
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
			if !c.opts.FinishOnEOF || !errors.Is(err, io.EOF) {
				c.cancel()
			}
			return
		}
		switch m := msg.(type) {
		case *Response:
			c.answer(m.ID, answer{resp: m})
		case *Request:
			if m.IsNotification() {
				if c.opts.Notify != nil {
					c.opts.Notify(m)
				}
				continue
			}
			if c.handling.Add(1) > maxHandling {
				c.handling.Add(-1)
				answered := c.reject(&Response{ID: m.ID, Error: NewError(CodeInternalError, "too many requests in flight")})
				if c.opts.OnOverflow != nil {
					c.opts.OnOverflow(m, answered)
				}
				continue
			}
			// Registered here, before the handler runs, so that a
			// cancellation that follows the request finds it.
			ctx, cancel := context.WithCancelCause(c.ctx)
			s := &serving{cancel: cancel}
			c.mu.Lock()
			c.serving[m.ID] = s
			c.mu.Unlock()
			c.dispatch(job{ctx: ctx, req: m, s: s})
		}
	}
}

// A job is one of the peer's requests for a handler goroutine.
type job struct {
	_ [0]func() // not comparable: no equality function in the binary

	ctx context.Context
	req *Request
	s   *serving
}

// dispatch hands j to an idle handler goroutine, or starts one.
func (c *Conn) dispatch(j job) {
	select {
	case c.jobs <- j:
		return
	default:
	}
	c.handlers.Add(1)
	go c.work(j)
}

// work handles j, then the jobs it is handed while it waits idle (when
// fewer than maxIdleHandlers wait), until the connection ends.
func (c *Conn) work(j job) {
	defer c.handlers.Done()
	for {
		c.handle(j.ctx, j.req, j.s)
		if c.idle.Add(1) > maxIdleHandlers {
			c.idle.Add(-1)
			return
		}
		select {
		case j = <-c.jobs:
			c.idle.Add(-1)
		case <-c.ctx.Done():
			c.idle.Add(-1)
			return
		}
	}
}

// answer hands a to the call id, if it is still waiting.
func (c *Conn) answer(id ID, a answer) {
	c.mu.Lock()
	p, ok := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ok {
		p.settle(a)
	}
}

// reject queues an error reply without waiting, and reports whether it
// did; when the queue is full, the request goes unanswered (the peer is
// flooding us).
func (c *Conn) reject(resp *Response) bool {
	select {
	case c.rejects <- resp:
		return true
	default:
		return false
	}
}

// sendRejects sends the queued error replies until the connection
// closes.
func (c *Conn) sendRejects() {
	defer c.handlers.Done()
	for {
		select {
		case resp := <-c.rejects:
			c.write(resp)
		case <-c.ctx.Done():
			return
		}
	}
}

// badMessage handles input that is not a JSON-RPC message: an answer
// fails the call it answers, and is never replied to; a request with a
// usable id gets an error reply.
func (c *Conn) badMessage(de *DecodeError) {
	if c.opts.OnBadMessage != nil {
		c.opts.OnBadMessage(de)
	}
	switch {
	case de.Response:
		c.answer(de.ID, answer{err: &AnswerError{ID: de.ID, Reason: de.Reason}})
	case de.ID.IsValid():
		c.reject(&Response{ID: de.ID, Error: &Error{Code: de.Code, Message: de.Reason}})
	}
}

func (c *Conn) handle(ctx context.Context, req *Request, s *serving) {
	defer c.ended()
	var result any
	var err error
	if c.opts.Handle == nil {
		err = NewError(CodeMethodNotFound, "method not found: %s", req.Method)
	} else {
		result, err = c.opts.Handle(ctx, req)
	}
	// Still registered while the reply waits for its turn, so that a
	// cancellation meanwhile keeps it from going out.
	c.reply(req.ID, result, err, s)
	c.mu.Lock()
	if c.serving[req.ID] == s {
		delete(c.serving, req.ID)
	}
	c.mu.Unlock()
	s.cancel(nil)
}

// Handling is how many of the peer's requests are being handled or
// answered now.
func (c *Conn) Handling() int { return int(c.handling.Load()) }

// ended counts one of the peer's requests as answered, for Drain.
func (c *Conn) ended() {
	c.handling.Add(-1)
	select {
	case c.settled <- struct{}{}:
	default:
	}
}

// Drain waits until none of the peer's requests is being handled or
// answered, or ctx ends. With FinishOnEOF, a server calls it once Done is
// closed by the peer's EOF, before it closes the connection.
func (c *Conn) Drain(ctx context.Context) error {
	for c.handling.Load() > 0 {
		select {
		case <-c.settled:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Pace waits for a turn of the reply rate and takes it, as a reply to one
// of the peer's requests does: work the peer asks for by other means (the
// input requests of an MCP answer) shares the rate with its requests.
// It returns early, with an error, when ctx ends or the connection closes.
func (c *Conn) Pace(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.ctx, cancel)()
	if err := c.limiter.wait(ctx); err != nil {
		if c.ctx.Err() != nil {
			return ErrClosed
		}
		return err
	}
	return nil
}

// reply sends the answer to one of the peer's requests, at the reply
// rate, unless the peer cancelled the request.
func (c *Conn) reply(id ID, result any, err error, s *serving) {
	if s.cancelled.Load() || c.limiter.wait(c.ctx) != nil || s.cancelled.Load() {
		return
	}
	resp, merr := NewResponse(id, result, err)
	if merr != nil {
		resp, _ = NewResponse(id, nil, NewError(CodeInternalError, "marshaling result: %v", merr))
	}
	c.write(resp)
}

func (c *Conn) write(resp *Response) {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	_ = c.stream.Write(ctx, resp)
}

// IsEOF reports whether err means the peer closed the stream.
func IsEOF(err error) bool { return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) }

// A limiter lets at most rate events happen in any window of one second
// (a token bucket would let a burst and its refill through in the first
// second: twice the rate). It keeps the times of the events of the last
// second, those still to come included, at most rate of them: the next
// may happen one second after the oldest when there are rate. What it
// holds grows with the events, not with the rate (a rate of millions, to
// mean no limit, costs nothing).
type limiter struct {
	mu   sync.Mutex
	now  func() time.Time
	rate int
	base time.Time       // the clock at the first event; times are offsets from it
	at   []time.Duration // ascending; at[head:] are the events kept
	head int
}

func newLimiter(rate int) *limiter {
	return &limiter{now: time.Now, rate: rate}
}

// wait waits for the event's turn, and takes it. A wait that ctx ends
// keeps its turn taken (the limit is never exceeded, at worst a later
// event waits a little more).
func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	t := l.now()
	if l.base.IsZero() {
		l.base = t
	}
	now := t.Sub(l.base)
	for l.head < len(l.at) && l.at[l.head] <= now-time.Second {
		l.head++ // a second old: it bounds no event from now on
	}
	at := now
	if kept := l.at[l.head:]; len(kept) >= l.rate {
		at = max(now, kept[len(kept)-l.rate]+time.Second)
	}
	if l.head > 0 && l.head >= len(l.at)/2 {
		l.at = append(l.at[:0], l.at[l.head:]...)
		l.head = 0
	}
	l.at = append(l.at, at)
	if len(l.at)-l.head > l.rate {
		l.head++
	}
	l.mu.Unlock()
	delay := at - now
	if delay <= 0 {
		return nil
	}
	tm := time.NewTimer(delay)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
