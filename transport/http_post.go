// The POST side of the streamable HTTP transport (see http.go): building
// and sending a request, and taking its answer apart.

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

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// newRequest builds a request with the caller's headers, then ours. The
// values of the headers every request carries are shared between
// requests, in slices of full capacity (an Add copies them): they are made
// once, not per request.
func (c *HTTPConn) newRequest(method, target string, body []byte, isInit bool) (*http.Request, string, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, target, rd)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: %v", method, safe.RedactURL(target), errors.Unwrap(err))
	}
	h := req.Header
	for k, vs := range c.header { // canonical keys (Connect)
		h[k] = vs[:len(vs):len(vs)]
	}
	c.mu.Lock()
	sess := c.session
	if sess != "" && !isInit {
		h[sessionHeader] = shared(&c.vals.session, sess)
	} else {
		sess = ""
	}
	if c.version != "" && !isInit {
		h[versionHeader] = shared(&c.vals.version, c.version)
	}
	c.mu.Unlock()
	switch method {
	case http.MethodPost:
		h["Content-Type"] = c.vals.json[:1:1]
		h["Accept"] = c.vals.acceptBoth[:1:1]
	case http.MethodGet:
		h["Accept"] = c.vals.acceptSSE[:1:1]
	}
	return req, sess, nil
}

// headerValues are the header values a connection's requests share: the
// constant ones made by Connect, the others when they change (under
// HTTPConn.mu).
type headerValues struct {
	session, version, json, acceptBoth, acceptSSE []string
}

// shared returns []string{v} of full capacity, made anew only when *cache
// does not hold v (under c.mu).
func shared(cache *[]string, v string) []string {
	if len(*cache) != 1 || (*cache)[0] != v {
		*cache = []string{v}
	}
	return (*cache)[:1:1]
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
		return nil, nil, nil, fmt.Errorf("%s %s: %w", req.Method, safe.RedactURL(req.URL.String()), err)
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

// readBody reads a whole JSON body, up to the connection's limit.
func (c *HTTPConn) readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > c.max {
		return nil, &TooLargeError{What: "a message (an HTTP body)", Limit: c.max}
	} else if n > 0 {
		buf := make([]byte, n)
		_, err := io.ReadFull(resp.Body, buf)
		return buf, err
	}
	return readLimited(resp.Body, c.max, "a message (an HTTP body)")
}

// encodeBody encodes msg for a POST: in parts when it is a request whose
// params are big (see jsonrpc.SplitMessage), so that they go out as they
// are, not copied into one body; else whole, in body.
func encodeBody(msg jsonrpc.Message) (body []byte, parts [][]byte, err error) {
	if r, ok := msg.(*jsonrpc.Request); ok {
		n := len(r.Params)
		for _, p := range r.Parts {
			n += len(p)
		}
		if n >= 64<<10 {
			head, ps, err := jsonrpc.SplitMessage(nil, msg)
			if err != nil || ps == nil {
				return head, nil, err
			}
			return nil, append(append([][]byte{head}, ps...), []byte("}")), nil
		}
	}
	body, err = jsonrpc.EncodeMessage(msg)
	return body, nil, err
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
	body, parts, err := encodeBody(msg)
	if err != nil {
		return fmt.Errorf("encoding message for %s: %v", c.shown, err)
	}
	whole := func() []byte { // for the HTTP+SSE transport
		if parts != nil {
			return bytes.Join(parts, nil)
		}
		return body
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
		return old.write(ctx, whole())
	}

	retried := false
	for {
		req, sess, err := c.newRequest(http.MethodPost, c.url, body, isInit)
		if err != nil {
			return err
		}
		if parts != nil {
			setBody(req, parts)
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
			data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorAnswer))
			discard(resp)
			cancel()
			if je := jsonrpcError(data, callID); je != nil && modernCode(je.Code) {
				// A server of the modern era refusing initialize: that is
				// its answer (the protocol layer detects the era from it),
				// not a sign of the old HTTP+SSE transport.
				c.deliver(ctx, &jsonrpc.Response{ID: callID, Error: je}, nil)
				return nil
			}
			herr := httpErrorOf(c.url, resp, data)
			old, err := c.startLegacy(ctx)
			if err != nil {
				return fmt.Errorf("%v; trying the HTTP+SSE transport: %w", herr, err)
			}
			return old.write(ctx, whole())
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
		data, err := c.readBody(resp)
		discard(resp)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return fmt.Errorf("reading answer from %s: %w", c.shown, err)
		}
		answered, err := c.deliverBody(ctx, data, callID, nil, jsonrpc.ID{})
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
		return fmt.Errorf("POST %s: answer of type %q, not application/json or text/event-stream", c.shown, safe.Sanitize(mt))
	}
}

func (c *HTTPConn) markInited() {
	c.mu.Lock()
	c.inited = true
	c.mu.Unlock()
}
