// The modern era of the streamable HTTP transport (MCP 2026-07-28,
// basic/transports/streamable-http.mdx): see http.go for the legacy one.
//
// A modern request is written with WriteEnvelope: the protocol layer hands
// over what the request mirrors into headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-*); values that are not plain visible
// ASCII, have white space at an end, or look like the sentinel itself are
// sent as =?base64?…?= ("Value Encoding"). There are no sessions, no GET
// stream and no DELETE. A 4xx answer whose body is a JSON-RPC error is that
// request's answer (a modern server's UnsupportedProtocolVersionError,
// HeaderMismatch, method not found …); a 400, 404 or 405 without one is an
// *HTTPError whose NotModern says the server is of the legacy era. An SSE
// answer that ends before the response is not resumed (the revision has no
// Last-Event-ID): the request is sent again as a new request with a new id,
// at most maxReissues times, and the answer comes back under the original
// id. Closing a request's answer stream is its cancellation
// (CancelRequest); no notifications/cancelled is sent over HTTP.

package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// maxReissues bounds how often a modern request whose answer stream broke
// is sent again.
const maxReissues = 2

// maxErrorAnswer bounds the body of a 4xx answer read for a JSON-RPC error.
const maxErrorAnswer = 64 << 10

// A flight is a modern request whose answer has not come yet.
type flight struct {
	cancel    context.CancelFunc // ends the request's POST and answer stream, as now sent
	cancelled atomic.Bool        // CancelRequest was called
}

// flights are the modern requests in flight, by their original id.
type flights struct {
	mu sync.Mutex
	m  map[jsonrpc.ID]*flight
}

func (f *flights) add(id jsonrpc.ID) *flight {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[jsonrpc.ID]*flight{}
	}
	fl := &flight{}
	f.m[id] = fl
	return fl
}

func (f *flights) remove(id jsonrpc.ID, fl *flight) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[id] == fl {
		delete(f.m, id)
	}
}

// setCancel records how to end fl as now sent; it reports false (and ends
// it) when fl was cancelled already.
func (f *flights) setCancel(fl *flight, cancel context.CancelFunc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl.cancelled.Load() {
		cancel()
		return false
	}
	fl.cancel = cancel
	return true
}

// CancelRequest cancels the modern request id by closing its answer
// stream, which the revision makes the cancellation over HTTP. It reports
// whether the request was in flight.
func (c *HTTPConn) CancelRequest(id jsonrpc.ID) bool {
	c.flights.mu.Lock()
	fl := c.flights.m[id]
	if fl != nil {
		fl.cancelled.Store(true)
		if fl.cancel != nil {
			fl.cancel()
		}
		delete(c.flights.m, id)
	}
	c.flights.mu.Unlock()
	return fl != nil
}

// WriteEnvelope sends msg as a request of the modern era: one POST whose
// headers mirror env (raw values, encoded here). A nil env is Write.
func (c *HTTPConn) WriteEnvelope(ctx context.Context, msg jsonrpc.Message, env map[string]string) error {
	if env == nil {
		return c.Write(ctx, msg)
	}
	if c.ctx.Err() != nil {
		return fmt.Errorf("writing to %s: %w", c.shown, jsonrpc.ErrClosed)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		// The revision defines no client notification over HTTP
		// (cancellation is closing the answer stream).
		return nil
	}
	// A big request (a retry echoing a large requestState) is sent from
	// its parts, not copied into one body first.
	whole, body, err := encodeBody(msg)
	if err != nil {
		return fmt.Errorf("encoding message for %s: %v", c.shown, err)
	}
	if body == nil {
		body = [][]byte{whole}
	}
	fl := c.flights.add(req.ID)
	m := &modernRequest{c: c, env: env, id: req.ID, body: body, fl: fl, listen: req.Method == "subscriptions/listen"}
	done, err := m.post(ctx, body, req.Parts, jsonrpc.ID{})
	if done || err != nil {
		c.flights.remove(req.ID, fl)
	}
	return err
}

// A modernRequest is one modern request and what its re-issues need.
type modernRequest struct {
	c      *HTTPConn
	env    map[string]string
	id     jsonrpc.ID // the original id, the one the caller waits for
	body   [][]byte   // as first sent, in parts
	fl     *flight
	listen bool // subscriptions/listen: not re-issued (the protocol opens it again)
	tries  int
}

// post sends body (the request, under id as, or the original id when as
// is not valid) and takes its answer; done reports that the request needs
// nothing more (answered, or failed with err). A JSON answer clears body,
// m.body and parts (the request's Parts) before it is read.
func (m *modernRequest) post(ctx context.Context, body, parts [][]byte, as jsonrpc.ID) (done bool, err error) {
	c := m.c
	var whole []byte
	if len(body) == 1 {
		whole = body[0]
	}
	req, _, err := c.newRequest(http.MethodPost, c.url, whole, false)
	if err != nil {
		return true, err
	}
	if whole == nil {
		setBody(req, body)
	}
	req.Header.Del(sessionHeader)
	for k, v := range m.env {
		req.Header.Set(k, encodeHeaderValue(k, v))
	}
	resp, detach, cancel, err := c.roundTrip(ctx, req)
	if err != nil {
		return true, err
	}
	if !c.flights.setCancel(m.fl, cancel) {
		discard(resp)
		return true, fmt.Errorf("POST %s: %w", c.shown, context.Canceled)
	}
	want := m.id
	if as.IsValid() {
		want = as
	}
	code := resp.StatusCode
	if code < 200 || code > 299 {
		defer cancel()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorAnswer))
		discard(resp)
		if je := jsonrpcError(data, want); je != nil {
			c.deliver(ctx, &jsonrpc.Response{ID: m.id, Error: je}, nil)
			return true, nil
		}
		return true, httpErrorOf(c.url, resp, data)
	}
	switch mt := mediaType(resp); {
	case code == http.StatusAccepted:
		discard(resp)
		cancel()
		return true, nil
	case mt == "application/json":
		// Answered: the request is not sent again. Let a big one go
		// before the answer is read, so that the heap does not hold
		// the two (a requestState echoed for rounds: 3x, now 2x).
		clear(body)
		clear(m.body)
		clear(parts)
		data, err := c.readBody(resp)
		discard(resp)
		cancel()
		if err != nil {
			return true, fmt.Errorf("reading answer from %s: %w", c.shown, err)
		}
		answered, err := c.deliverBody(ctx, data, want, nil, m.id)
		if err != nil && !answered {
			return true, fmt.Errorf("reading answer from %s: %w", c.shown, err)
		}
		if err != nil {
			c.deliver(ctx, nil, err)
		}
		return true, nil
	case mt == "text/event-stream":
		if !detach() {
			discard(resp)
			cancel()
			return true, fmt.Errorf("POST %s: %w", c.shown, ctx.Err())
		}
		if !c.spawn(func() { m.follow(resp, cancel, want) }) {
			resp.Body.Close()
			cancel()
			return true, fmt.Errorf("writing to %s: %w", c.shown, jsonrpc.ErrClosed)
		}
		return false, nil
	default:
		discard(resp)
		cancel()
		return true, fmt.Errorf("POST %s: answer of type %q, not application/json or text/event-stream", c.shown, safe.Sanitize(mt))
	}
}

// follow reads the answer stream of the request (sent as want) until its
// response; a stream that ends first is re-issued as a new request.
func (m *modernRequest) follow(resp *http.Response, cancel context.CancelFunc, want jsonrpc.ID) {
	c := m.c
	handedOver := false
	defer func() {
		if !handedOver {
			c.flights.remove(m.id, m.fl)
		}
	}()
	var st streamState
	_, answered, _ := c.consume(c.ctx, resp, cancel, &st, want, nil, m.id)
	if !answered && c.ctx.Err() == nil && !m.fl.cancelled.Load() && !m.listen && m.tries < maxReissues {
		// The revision: a broken response stream loses the request; the
		// client sends it again as a new request with a new id.
		m.tries++
		as := jsonrpc.StringID(fmt.Sprintf("mcpwire-reissue-%s-%d", m.id.Raw(), m.tries))
		if body, err := reissued(bytes.Join(m.body, nil), as); err == nil {
			done, err := m.post(c.ctx, [][]byte{body}, nil, as)
			if err == nil {
				// Answered (or answered with an error) by post, or a new
				// stream whose own follow goes on.
				handedOver = !done
				return
			}
		}
	}
	if !answered && c.ctx.Err() == nil {
		msg := "transport: the server's answer stream ended before the response"
		switch {
		case m.fl.cancelled.Load():
			return // the caller gave the request up
		case m.tries > 0:
			msg = fmt.Sprintf("%s (sent %d times)", msg, m.tries+1)
		}
		c.deliver(c.ctx, &jsonrpc.Response{ID: m.id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}}, nil)
	}
}

// reissued returns the request body with its id replaced by id.
func reissued(body []byte, id jsonrpc.ID) ([]byte, error) {
	msgs, err := jsonrpc.DecodeMessage(body)
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("re-encoding the request: %v", err)
	}
	req, ok := msgs[0].(*jsonrpc.Request)
	if !ok {
		return nil, fmt.Errorf("re-encoding the request: not a request")
	}
	return jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id, Method: req.Method, Params: req.Params})
}

// jsonrpcError returns the JSON-RPC error a 4xx answer's body holds for
// the request want (or with no id, as a server that could not read one
// sends), else nil.
func jsonrpcError(data []byte, want jsonrpc.ID) *jsonrpc.Error {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      *jsonrpc.ID     `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
		Result  json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &m) != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Result != nil {
		return nil
	}
	if m.ID != nil && m.ID.IsValid() && *m.ID != want {
		return nil
	}
	return m.Error
}

// httpErrorOf is the *HTTPError of a failed POST whose body (its start)
// was read already.
func httpErrorOf(rawURL string, resp *http.Response, data []byte) *HTTPError {
	return &HTTPError{Method: http.MethodPost, StatusCode: resp.StatusCode, Header: resp.Header, URL: safe.RedactURL(rawURL), Body: TruncateBody(string(data))}
}

// modernCode reports whether code is one of the JSON-RPC error codes only
// a server of the modern era sends (-32020 header mismatch, -32021
// missing client capability, -32022 unsupported protocol version).
func modernCode(code int64) bool { return code >= -32022 && code <= -32020 }

// NotModern reports whether the error says that the server is not of the
// modern era: a POST answered 400, 404 or 405 without a JSON-RPC error in
// its body (2026-07-28 streamable HTTP, "Backward Compatibility").
func (e *HTTPError) NotModern() bool {
	post := e.Method == "" || e.Method == http.MethodPost
	return post && (e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusNotFound || e.StatusCode == http.StatusMethodNotAllowed)
}

// encodeHeaderValue encodes the value of a mirrored header as the
// revision's "Value Encoding" says: as is when it is visible ASCII and
// spaces with no white space at either end, else (and when it looks like
// the sentinel) base64 of its UTF-8 in =?base64?…?=. MCP-Protocol-Version
// and Mcp-Method are sent as they are.
func encodeHeaderValue(name, v string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Mcp-Protocol-Version", "Mcp-Method":
		return v
	}
	if headerSafe(v) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// headerSafe reports whether v may go in a header as it is.
func headerSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	if v != strings.TrimSpace(v) {
		return false
	}
	return !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
}

// setBody makes parts, in order, the body of req, without joining them
// (and again for a redirect or a retry of the HTTP client).
func setBody(req *http.Request, parts [][]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	req.ContentLength = int64(n)
	req.GetBody = func() (io.ReadCloser, error) {
		rs := make([]io.Reader, len(parts))
		for i, p := range parts {
			rs[i] = bytes.NewReader(p)
		}
		return io.NopCloser(io.MultiReader(rs...)), nil
	}
	req.Body, _ = req.GetBody()
}
