/*
The streamable HTTP transport (MCP 2025-11-25, basic/transports.mdx).

POST: every message the client sends is one POST to the server's URL, with
Content-Type: application/json and Accept: application/json,
text/event-stream. A notification or a response is answered 202 Accepted
(any other success is drained and ignored). A request is answered either
with application/json (one message or a batch, queued for Read) or with
text/event-stream: a goroutine then reads the stream's events, skips those
with empty data (priming events), queues the messages (the server may send
its own requests and notifications before the response), and remembers the
last event id and the retry value. When the stream ends before the
response, it is resumed by a GET with Last-Event-ID after the retry delay
(1s when the server named none), for as long as that makes progress; a
dropped stream is not a cancellation. When it cannot be resumed, a
JSON-RPC error response for the request is queued, so the call fails at
once instead of waiting for its timeout.

GET: once notifications/initialized was accepted, a standalone GET
(Accept: text/event-stream) is opened, detached from the Connect context,
for what the server sends outside any call (list_changed, roots/list,
log messages). 405 or 404 means the server offers none; a stream that
drops is reopened with Last-Event-ID, with a bounded backoff.

DELETE: Close cancels every request and stream, then sends DELETE with the
session id (when there is one; 405 is a fine answer), bounded by 2s.

Sessions: the Mcp-Session-Id of the initialize answer goes on every later
request, and MCP-Protocol-Version once SetProtocolVersion was called. The
initialize request is remembered: a 404 on a request that carried a
session id starts a new session (initialize again with the same params,
whose answer the caller never sees, then notifications/initialized) and
sends the request again, at most once per request. When that fails the
error wraps ErrSessionExpired. A POST of initialize answered 400, 404 or
405 falls back to the 2024-11-05 HTTP+SSE transport (legacy.go).

Errors: an answer with another status is an *HTTPError (the body read at
most 4 KiB, control characters stripped; Header kept for 401's
WWW-Authenticate). Redirects are never followed: a *RedirectError names
where it pointed. URLs are shown only through RedactURL, header values
never.
*/

package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// HTTP describes a server reached over the streamable HTTP transport (or
// the legacy HTTP+SSE transport).
type HTTP struct {
	// URL is the server's MCP endpoint: https, or http to loopback only.
	URL string
	// Client sends the requests; nil means a client of its own. It is
	// never modified: a copy of it refuses redirects.
	Client *http.Client
	// Header holds extra headers for every request. Its values are never
	// printed.
	Header http.Header
	// Legacy selects the 2024-11-05 HTTP+SSE transport from the start
	// ("type": "sse").
	Legacy bool
}

const (
	sessionHeader = "Mcp-Session-Id"
	versionHeader = "MCP-Protocol-Version"
	lastIDHeader  = "Last-Event-ID"

	defaultRetry     = time.Second      // reconnection delay when the server named none
	maxResumeTries   = 5                // resumptions in a row without progress
	maxListenFails   = 8                // standalone GET failures in a row
	listenReadyWait  = 2 * time.Second  // how long the next request waits for the GET stream to be answered
	maxListenBackoff = 30 * time.Second // longest wait between GET attempts
	minListenWait    = 100 * time.Millisecond
	deleteTimeout    = 2 * time.Second
	maxDrain         = 64 << 10 // bytes of an unwanted body read to reuse the connection
	queueSize        = 64
)

// An HTTPConn is a connection to a server over streamable HTTP. It
// implements jsonrpc.Stream: Write POSTs one message, and what the server
// sends (answers, its requests and notifications) comes out of Read.
type HTTPConn struct {
	url    string
	shown  string // url, redacted
	client *http.Client
	own    bool // the client was made here
	header http.Header
	legacy bool // HTTP.Legacy

	ctx    context.Context // detached from Connect's; ends on Close
	cancel context.CancelFunc
	base   context.Context // Connect's context without its cancellation

	queue    chan item
	dead     chan struct{} // closed when the connection failed for good (legacy stream ended)
	deadOnce sync.Once
	deadErr  error

	reinitMu sync.Mutex // one re-initialization at a time

	mu         sync.Mutex
	closed     bool
	wg         sync.WaitGroup // every goroutine started
	session    string
	version    string
	initParams []byte // the initialize request's params, for a new session
	inited     bool   // initialize was answered with success over streamable HTTP
	listening  bool   // the standalone GET loop runs
	reinits    int
	old        *legacyConn

	closeOnce sync.Once
}

// An item is what Read returns next.
type item struct {
	msg jsonrpc.Message
	err error
}

var _ jsonrpc.Stream = (*HTTPConn)(nil)

// Connect checks the URL and prepares a connection; no request is sent
// until the first Write. ctx's values are kept for every request, but its
// end does not end the connection (Close does).
func (h *HTTP) Connect(ctx context.Context) (*HTTPConn, error) {
	if err := CheckURL(h.URL); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", RedactURL(h.URL), err)
	}
	c := &HTTPConn{
		url:    h.URL,
		shown:  RedactURL(h.URL),
		header: h.Header.Clone(),
		legacy: h.Legacy,
		queue:  make(chan item, queueSize),
		dead:   make(chan struct{}),
	}
	refuse := func(req *http.Request, via []*http.Request) error {
		e := &RedirectError{Location: RedactURL(req.URL.String())}
		if req.Response != nil {
			e.StatusCode = req.Response.StatusCode
		}
		return e
	}
	if h.Client != nil {
		cc := *h.Client
		cc.CheckRedirect = refuse
		c.client = &cc
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 64
		c.client = &http.Client{Transport: t, CheckRedirect: refuse}
		c.own = true
	}
	c.base = context.WithoutCancel(ctx)
	c.ctx, c.cancel = context.WithCancel(c.base)
	return c, nil
}

// SetProtocolVersion sets the MCP-Protocol-Version header sent on every
// later request. The protocol layer calls it after initialize.
func (c *HTTPConn) SetProtocolVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// SessionID returns the server's session id, "" when it gave none.
func (c *HTTPConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// Read returns the next message from the server. After Close it returns
// io.EOF.
func (c *HTTPConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.ctx.Err() != nil {
		return nil, io.EOF
	}
	select {
	case it := <-c.queue:
		return it.msg, it.err
	case <-c.dead:
		select {
		case it := <-c.queue:
			return it.msg, it.err
		default:
		}
		return nil, c.deadErr
	case <-c.ctx.Done():
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// fail ends the connection for Read with err (the first one wins).
func (c *HTTPConn) fail(err error) {
	c.deadOnce.Do(func() {
		c.deadErr = err
		close(c.dead)
	})
}

// deliver queues a message (or a decoding error) for Read.
func (c *HTTPConn) deliver(ctx context.Context, msg jsonrpc.Message, err error) bool {
	select {
	case c.queue <- item{msg, err}:
		return true
	case <-ctx.Done():
		return false
	case <-c.ctx.Done():
		return false
	}
}

// deliverBody queues the messages of one JSON body or event, and returns
// the decoding error, if any, without queueing it.
func (c *HTTPConn) deliverBody(ctx context.Context, data []byte, want jsonrpc.ID, swallow *jsonrpc.Response) (answered bool, err error) {
	msgs, err := jsonrpc.DecodeMessage(data)
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Response); ok && want.IsValid() && r.ID == want {
			answered = true
			if swallow != nil {
				*swallow = *r
				continue
			}
		}
		if !c.deliver(ctx, m, nil) {
			return answered, nil
		}
	}
	return answered, err
}

// spawn runs f in a goroutine that Close waits for; it reports false (and
// runs nothing) once Close has begun.
func (c *HTTPConn) spawn(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
	return true
}

// newRequest builds a request with the caller's headers, then ours.
func (c *HTTPConn) newRequest(method, target string, body []byte, isInit bool) (*http.Request, string, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, target, rd)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %v", method, RedactURL(target), errors.Unwrap(err))
	}
	for k, vs := range c.header {
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	c.mu.Lock()
	sess, version := c.session, c.version
	c.mu.Unlock()
	if sess != "" && !isInit {
		req.Header.Set(sessionHeader, sess)
	} else {
		sess = ""
	}
	if version != "" && !isInit {
		req.Header.Set(versionHeader, version)
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	return req, sess, nil
}

// roundTrip sends req bound to ctx. The answer's body stays bound to ctx
// until detach is called (which reports false when ctx already ended);
// cancel ends the request for good and must always be called.
func (c *HTTPConn) roundTrip(ctx context.Context, req *http.Request) (resp *http.Response, detach func() bool, cancel context.CancelFunc, err error) {
	rctx, cancel := context.WithCancel(c.ctx)
	stop := context.AfterFunc(ctx, cancel)
	resp, err = c.client.Do(req.WithContext(rctx))
	if err != nil {
		stop()
		cancel()
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case c.ctx.Err() != nil:
			err = jsonrpc.ErrClosed
		default:
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
		}
		return nil, nil, nil, fmt.Errorf("%s %s: %w", req.Method, RedactURL(req.URL.String()), err)
	}
	return resp, stop, cancel, nil
}

// discard drains a little of an unwanted body and closes it.
func discard(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, maxDrain)
	resp.Body.Close()
}

// httpError reads the start of a failed answer's body and closes it.
func httpError(method, target string, resp *http.Response) *HTTPError {
	e := NewHTTPError(method, target, resp)
	discard(resp)
	return e
}

func mediaType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// readBody reads a whole JSON body.
func readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n < 1<<30 {
		buf := make([]byte, n)
		_, err := io.ReadFull(resp.Body, buf)
		return buf, err
	}
	return io.ReadAll(resp.Body)
}

// validSessionID reports whether id has only visible ASCII, as the
// specification requires.
func validSessionID(id string) bool {
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

// Write sends one message in a POST. A request's answer comes out of Read.
func (c *HTTPConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if c.ctx.Err() != nil {
		return fmt.Errorf("writing to %s: %w", c.shown, jsonrpc.ErrClosed)
	}
	body, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message for %s: %v", c.shown, err)
	}
	var callID jsonrpc.ID
	var method string
	if req, ok := msg.(*jsonrpc.Request); ok {
		callID, method = req.ID, req.Method
		if method == "initialize" && callID.IsValid() {
			c.mu.Lock()
			c.initParams = append([]byte(nil), req.Params...)
			c.mu.Unlock()
		}
	}
	isInit := method == "initialize" && callID.IsValid()

	c.mu.Lock()
	old, inited := c.old, c.inited
	c.mu.Unlock()
	if old == nil && c.legacy && isInit {
		if old, err = c.startLegacy(ctx); err != nil {
			return err
		}
	}
	if old != nil {
		return old.write(ctx, body)
	}

	retried := false
	for {
		req, sess, err := c.newRequest(http.MethodPost, c.url, body, isInit)
		if err != nil {
			return err
		}
		resp, detach, cancel, err := c.roundTrip(ctx, req)
		if err != nil {
			return err
		}
		code := resp.StatusCode
		if code == http.StatusNotFound && sess != "" && !retried {
			discard(resp)
			cancel()
			if err := c.renewSession(ctx, sess); err != nil {
				return err
			}
			if method == "notifications/initialized" {
				return nil // renewSession sent it for the new session
			}
			retried = true
			continue
		}
		if isInit && !inited && (code == http.StatusBadRequest || code == http.StatusNotFound || code == http.StatusMethodNotAllowed) {
			herr := httpError(http.MethodPost, c.url, resp)
			cancel()
			old, err := c.startLegacy(ctx)
			if err != nil {
				return fmt.Errorf("%v; trying the HTTP+SSE transport: %w", herr, err)
			}
			return old.write(ctx, body)
		}
		if code < 200 || code > 299 {
			herr := httpError(http.MethodPost, c.url, resp)
			cancel()
			if code == http.StatusNotFound && sess != "" {
				return fmt.Errorf("%w: %w", ErrSessionExpired, herr)
			}
			return herr
		}
		if isInit {
			if id := resp.Header.Get(sessionHeader); id != "" {
				if !validSessionID(id) {
					discard(resp)
					cancel()
					return fmt.Errorf("POST %s: the initialize answer's %s has characters other than visible ASCII", c.shown, sessionHeader)
				}
				c.mu.Lock()
				c.session = id
				c.mu.Unlock()
			}
		}
		return c.answer(ctx, resp, detach, cancel, callID, method)
	}
}

// answer handles a successful answer to a POST.
func (c *HTTPConn) answer(ctx context.Context, resp *http.Response, detach func() bool, cancel context.CancelFunc, callID jsonrpc.ID, method string) error {
	if !callID.IsValid() || resp.StatusCode == http.StatusAccepted {
		discard(resp)
		cancel()
		if method == "notifications/initialized" {
			c.listen()
		}
		return nil
	}
	switch mt := mediaType(resp); mt {
	case "text/event-stream":
		if !detach() {
			discard(resp)
			cancel()
			return fmt.Errorf("POST %s: %w", c.shown, ctx.Err())
		}
		if method == "initialize" {
			c.markInited()
		}
		if !c.spawn(func() { c.follow(resp, cancel, callID) }) {
			resp.Body.Close()
			cancel()
			return fmt.Errorf("writing to %s: %w", c.shown, jsonrpc.ErrClosed)
		}
		return nil
	case "application/json":
		data, err := readBody(resp)
		discard(resp)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return fmt.Errorf("reading answer from %s: %w", c.shown, err)
		}
		answered, err := c.deliverBody(ctx, data, callID, nil)
		if err != nil {
			if !answered {
				// Nothing will answer the call: say so now rather than
				// letting it wait for its timeout.
				return fmt.Errorf("reading answer from %s: %w", c.shown, err)
			}
			c.deliver(ctx, nil, err)
		}
		if method == "initialize" {
			c.markInited()
		}
		return nil
	default:
		discard(resp)
		cancel()
		return fmt.Errorf("POST %s: answer of type %q, not application/json or text/event-stream", c.shown, StripControl(mt))
	}
}

func (c *HTTPConn) markInited() {
	c.mu.Lock()
	c.inited = true
	c.mu.Unlock()
}

// A streamState is what survives a reconnection of an event stream.
type streamState struct {
	lastID   string
	retry    time.Duration
	retrySet bool
}

// consume reads an event stream, queueing its messages, until it ends or
// the response to want arrives (swallowed into swallow when not nil). It
// closes the body and calls cancel. progress says whether a message or a
// new event id came.
func (c *HTTPConn) consume(ctx context.Context, resp *http.Response, cancel context.CancelFunc, st *streamState, want jsonrpc.ID, swallow *jsonrpc.Response) (progress, answered bool, err error) {
	defer cancel()
	defer resp.Body.Close()
	s := newEventScanner(resp.Body)
	s.lastID, s.retry, s.retrySet = st.lastID, st.retry, st.retrySet
	defer func() {
		if s.lastID != st.lastID {
			progress = true
		}
		st.lastID = s.lastID
		st.retry, st.retrySet = s.Retry()
	}()
	for {
		ev, err := s.next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return progress, false, err
		}
		if len(ev.data) == 0 || (ev.typ != "" && ev.typ != "message") {
			continue // priming, or not ours
		}
		progress = true
		answered, derr := c.deliverBody(ctx, ev.data, want, swallow)
		if derr != nil {
			c.deliver(ctx, nil, derr)
		}
		if answered {
			return true, true, nil
		}
	}
}

// sleep waits d, or until Close; it reports whether d passed.
func (c *HTTPConn) sleep(d time.Duration) bool {
	if d <= 0 {
		return c.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// get opens an event stream by GET, resuming after lastID when set. An
// answer that is not an event stream is an *HTTPError.
func (c *HTTPConn) get(lastID string) (*http.Response, context.CancelFunc, error) {
	req, _, err := c.newRequest(http.MethodGet, c.url, nil, false)
	if err != nil {
		return nil, nil, err
	}
	if lastID != "" {
		req.Header.Set(lastIDHeader, lastID)
	}
	resp, _, cancel, err := c.roundTrip(c.ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream" {
		herr := httpError(http.MethodGet, c.url, resp)
		cancel()
		return nil, nil, herr
	}
	return resp, cancel, nil
}

// follow reads the event stream that answers the request callID, resuming
// it by GET with Last-Event-ID when it drops before the response.
func (c *HTTPConn) follow(resp *http.Response, cancel context.CancelFunc, callID jsonrpc.ID) {
	var st streamState
	progress, answered, _ := c.consume(c.ctx, resp, cancel, &st, callID, nil)
	fails := 0
	for !answered && c.ctx.Err() == nil && st.lastID != "" {
		if progress {
			fails = 0
		} else if fails++; fails > maxResumeTries {
			break
		}
		wait := defaultRetry
		if st.retrySet {
			wait = st.retry
		}
		if !c.sleep(wait) {
			return
		}
		resp, cancel, err := c.get(st.lastID)
		if err != nil {
			if permanent(err) {
				break // the server cannot resume this stream
			}
			progress = false
			continue
		}
		progress, answered, _ = c.consume(c.ctx, resp, cancel, &st, callID, nil)
	}
	if !answered && c.ctx.Err() == nil {
		c.deliver(c.ctx, &jsonrpc.Response{ID: callID, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: "transport: the server's event stream ended before the response",
		}}, nil)
	}
}

// permanent reports whether a GET failed in a way that trying again
// will not mend: a 4xx answer or a redirect.
func permanent(err error) bool {
	var herr *HTTPError
	var rerr *RedirectError
	return errors.As(err, &rerr) || errors.As(err, &herr) && herr.StatusCode >= 400 && herr.StatusCode < 500
}

// listen starts the standalone GET stream, unless it runs already.
func (c *HTTPConn) listen() {
	c.mu.Lock()
	if c.listening || c.closed {
		c.mu.Unlock()
		return
	}
	c.listening = true
	c.mu.Unlock()
	// The GET goes out before the caller's next request: a server that
	// sees the GET after a POST whose stream it just dropped would take it
	// for that stream's resumption.
	ready := make(chan struct{})
	ok := c.spawn(func() {
		defer func() {
			c.mu.Lock()
			c.listening = false
			c.mu.Unlock()
		}()
		c.listenLoop(ready)
	})
	if !ok {
		c.mu.Lock()
		c.listening = false
		c.mu.Unlock()
		return
	}
	t := time.NewTimer(listenReadyWait)
	defer t.Stop()
	select {
	case <-ready:
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// listenLoop keeps the GET stream open; ready is closed once the first
// GET was answered (or failed).
func (c *HTTPConn) listenLoop(ready chan struct{}) {
	var st streamState
	fails := 0
	first := true
	for c.ctx.Err() == nil {
		resp, cancel, err := c.get(st.lastID)
		if first {
			close(ready)
			first = false
		}
		progress := false
		if err != nil {
			if permanent(err) {
				return
			}
		} else {
			progress, _, _ = c.consume(c.ctx, resp, cancel, &st, jsonrpc.ID{}, nil)
		}
		if progress {
			fails = 0
		} else if fails++; fails >= maxListenFails {
			return
		}
		var wait time.Duration
		switch {
		case fails > 0:
			wait = min(defaultRetry<<min(fails-1, 5), maxListenBackoff)
		case st.retrySet:
			wait = max(st.retry, minListenWait)
		default:
			wait = defaultRetry
		}
		if !c.sleep(wait) {
			return
		}
	}
}

// renewSession starts a new session after the server forgot old: it sends
// the remembered initialize again (its answer is kept from Read), takes the
// new session id, and sends notifications/initialized.
func (c *HTTPConn) renewSession(ctx context.Context, old string) error {
	c.reinitMu.Lock()
	defer c.reinitMu.Unlock()
	c.mu.Lock()
	cur, params := c.session, c.initParams
	c.mu.Unlock()
	if cur != old {
		return nil // renewed already, by another request
	}
	if params == nil {
		return fmt.Errorf("POST %s: %w (no initialize to repeat)", c.shown, ErrSessionExpired)
	}
	c.mu.Lock()
	c.session = ""
	c.reinits++
	id := jsonrpc.StringID(fmt.Sprintf("mcpwire-reinit-%d", c.reinits))
	c.mu.Unlock()
	expired := func(err error) error {
		return fmt.Errorf("%w: starting a new session: %w", ErrSessionExpired, err)
	}

	body, err := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: "initialize", Params: params})
	if err != nil {
		return expired(err)
	}
	req, _, err := c.newRequest(http.MethodPost, c.url, body, true)
	if err != nil {
		return expired(err)
	}
	resp, _, cancel, err := c.roundTrip(ctx, req)
	if err != nil {
		return expired(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		herr := httpError(http.MethodPost, c.url, resp)
		cancel()
		return expired(herr)
	}
	sess := resp.Header.Get(sessionHeader)
	if !validSessionID(sess) {
		discard(resp)
		cancel()
		return expired(fmt.Errorf("the initialize answer's %s has characters other than visible ASCII", sessionHeader))
	}
	var answer jsonrpc.Response
	answered := false
	switch mediaType(resp) {
	case "text/event-stream":
		var st streamState
		_, answered, err = c.consume(ctx, resp, cancel, &st, id, &answer)
	case "application/json":
		var data []byte
		data, err = readBody(resp)
		discard(resp)
		cancel()
		if err == nil {
			answered, err = c.deliverBody(ctx, data, id, &answer)
		}
	default:
		discard(resp)
		cancel()
	}
	if err != nil {
		return expired(fmt.Errorf("reading the initialize answer: %w", err))
	}
	if !answered {
		return expired(errors.New("no answer to initialize"))
	}
	if answer.Error != nil {
		return expired(answer.Error)
	}
	c.mu.Lock()
	c.session = sess
	c.mu.Unlock()

	note, _ := jsonrpc.EncodeMessage(&jsonrpc.Request{Method: "notifications/initialized"})
	req, _, err = c.newRequest(http.MethodPost, c.url, note, false)
	if err != nil {
		return expired(err)
	}
	resp, _, cancel, err = c.roundTrip(ctx, req)
	if err != nil {
		return expired(err)
	}
	defer cancel()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return expired(httpError(http.MethodPost, c.url, resp))
	}
	discard(resp)
	c.listen()
	return nil
}

// Close ends every request and stream, sends DELETE for the session (when
// there is one), and waits for every goroutine of the connection.
func (c *HTTPConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		sess, old := c.session, c.old
		c.mu.Unlock()
		c.cancel()
		if sess != "" && old == nil {
			c.deleteSession()
		}
		c.wg.Wait()
		c.fail(io.EOF)
		if c.own {
			c.client.CloseIdleConnections()
		}
	})
	return nil
}

// deleteSession tells the server the session is over; any answer will do.
func (c *HTTPConn) deleteSession() {
	ctx, cancel := context.WithTimeout(c.base, deleteTimeout)
	defer cancel()
	req, _, err := c.newRequest(http.MethodDelete, c.url, nil, false)
	if err != nil {
		return
	}
	resp, err := c.client.Do(req.WithContext(ctx))
	if err != nil {
		return
	}
	discard(resp)
}
