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
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
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
	// MaxMessageBytes is the largest message read from the server, a JSON
	// body or an event of a stream (0 = DefaultMaxMessageBytes): a larger
	// one is a *TooLargeError, and is never held whole.
	MaxMessageBytes int64
	// ShutdownTimeout bounds the DELETE that ends the session on Close
	// (0 = 2s).
	ShutdownTimeout time.Duration
	// MaxResumes bounds the resumptions in a row, without progress, of an
	// answer's event stream that broke (0 = 5; less than 0: none).
	MaxResumes int
	// AllowHTTP allows plain http to a host that is not loopback (the
	// definition's "allowHttp", --allow-http): the caller warns.
	AllowHTTP bool
}

const (
	sessionHeader = "Mcp-Session-Id"
	versionHeader = "Mcp-Protocol-Version" // MCP-Protocol-Version, as Go writes header names
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
	url     string
	shown   string // url, redacted
	client  *http.Client
	own     bool // the client was made here
	header  http.Header
	legacy  bool          // HTTP.Legacy
	max     int64         // HTTP.MaxMessageBytes, or its default
	delete  time.Duration // HTTP.ShutdownTimeout, or deleteTimeout
	resumes int           // HTTP.MaxResumes, or maxResumeTries

	ctx    context.Context // detached from Connect's; ends on Close
	cancel context.CancelFunc
	base   context.Context // Connect's context without its cancellation

	queue    chan item
	dead     chan struct{} // closed when the connection failed for good (legacy stream ended)
	deadOnce sync.Once
	deadErr  error

	vals     headerValues // shared by the requests (newRequest), guarded by mu
	reinitMu sync.Mutex   // one re-initialization at a time
	flights  flights      // modern requests in flight (http_modern.go)
	scanners scannerPool  // of answer streams done with

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
	_ [0]func() // not comparable: no equality function in the binary

	msg jsonrpc.Message
	err error
}

var _ jsonrpc.Stream = (*HTTPConn)(nil)

// Connect checks the URL and prepares a connection; no request is sent
// until the first Write. ctx's values are kept for every request, but its
// end does not end the connection (Close does).
func (h *HTTP) Connect(ctx context.Context) (*HTTPConn, error) {
	if err := safe.CheckServerURL(h.URL, h.AllowHTTP); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", safe.RedactURL(h.URL), err)
	}
	c := &HTTPConn{
		url:    h.URL,
		shown:  safe.RedactURL(h.URL),
		header: canonicalHeader(h.Header),
		vals: headerValues{json: []string{"application/json"}, acceptBoth: []string{"application/json, text/event-stream"},
			acceptSSE: []string{"text/event-stream"}},
		legacy:  h.Legacy,
		max:     maxBytes(h.MaxMessageBytes),
		delete:  cmp.Or(h.ShutdownTimeout, deleteTimeout),
		resumes: max(cmp.Or(h.MaxResumes, maxResumeTries), 0),
		queue:   make(chan item, queueSize),
		dead:    make(chan struct{}),
	}
	refuse := func(req *http.Request, via []*http.Request) error {
		e := &RedirectError{Location: safe.RedactURL(req.URL.String())}
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

// canonicalHeader is a copy of h with its names in canonical form.
func canonicalHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		k = http.CanonicalHeaderKey(k)
		out[k] = append(out[k], vs...)
	}
	return out
}

// SetProtocolVersion sets the MCP-Protocol-Version header sent on every
// later request. The protocol layer calls it after initialize.
func (c *HTTPConn) SetProtocolVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// Legacy reports whether the connection speaks the 2024-11-05 HTTP+SSE
// transport: asked for (HTTP.Legacy), or fallen back to when the server
// refused a POST of initialize.
func (c *HTTPConn) Legacy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.old != nil || c.legacy
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

// failed reports whether the connection failed for good (fail).
func (c *HTTPConn) failed() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
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
	case c.queue <- item{msg: msg, err: err}:
		return true
	case <-ctx.Done():
		return false
	case <-c.ctx.Done():
		return false
	}
}

// deliverBody queues the messages of one JSON body or event, and returns
// the decoding error, if any, without queueing it. The response to want is
// swallowed into swallow when it is not nil, and queued under the id as
// when as is valid (a re-issued request's answer).
func (c *HTTPConn) deliverBody(ctx context.Context, data []byte, want jsonrpc.ID, swallow *jsonrpc.Response, as jsonrpc.ID) (answered bool, err error) {
	msgs, err := jsonrpc.DecodeMessage(data)
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Response); ok && want.IsValid() && r.ID == want {
			answered = true
			if swallow != nil {
				*swallow = *r
				continue
			}
			if as.IsValid() {
				r.ID = as
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
