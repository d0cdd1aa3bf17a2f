// Event streams of the streamable HTTP transport (see http.go): an SSE
// answer to a POST, its resumption by GET, and the standalone GET stream.

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A streamState is what survives a reconnection of an event stream.
type streamState struct {
	lastID   string
	retry    time.Duration
	retrySet bool
}

// consume reads an event stream, queueing its messages, until it ends or
// the response to want arrives (swallowed into swallow when not nil;
// queued under the id as when as is valid). It closes the body and calls
// cancel. progress says whether a message or a new event id came.
func (c *HTTPConn) consume(ctx context.Context, resp *http.Response, cancel context.CancelFunc, st *streamState, want jsonrpc.ID, swallow *jsonrpc.Response, as jsonrpc.ID) (progress, answered bool, err error) {
	defer cancel()
	defer resp.Body.Close()
	s := c.scanners.get(resp.Body)
	s.max = c.max
	s.resume(st.lastID, st.retry, st.retrySet)
	defer func() {
		if s.lastID != st.lastID {
			progress = true
		}
		st.lastID = s.lastID
		st.retry, st.retrySet = s.Retry()
		c.scanners.put(s)
	}()
	for {
		ev, err := s.next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			if errors.As(err, new(*TooLargeError)) {
				// What follows cannot be read: the connection fails.
				c.fail(fmt.Errorf("reading from %s: %w", c.shown, err))
			}
			return progress, false, err
		}
		if len(ev.data) == 0 || (ev.typ != "" && ev.typ != "message") {
			continue // priming, or not ours
		}
		progress = true
		answered, derr := c.deliverBody(ctx, ev.data, want, swallow, as)
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
	progress, answered, _ := c.consume(c.ctx, resp, cancel, &st, callID, nil, jsonrpc.ID{})
	fails := 0
	var resumeErr error // why the last resumption failed
	for !answered && c.ctx.Err() == nil && !c.failed() && st.lastID != "" && c.resumes > 0 {
		if progress {
			fails = 0
		} else if fails++; fails > c.resumes {
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
			resumeErr = fmt.Errorf("resuming it with a GET (%s: %s) failed: %w", lastIDHeader, safe.Sanitize(st.lastID), err)
			if permanent(err) {
				break // the server cannot resume this stream
			}
			progress = false
			continue
		}
		resumeErr = nil
		progress, answered, _ = c.consume(c.ctx, resp, cancel, &st, callID, nil, jsonrpc.ID{})
	}
	if !answered && c.ctx.Err() == nil && !c.failed() {
		msg := "transport: the server's event stream ended before the response"
		switch {
		case resumeErr != nil:
			msg += "; " + resumeErr.Error()
		case st.lastID == "":
			msg += " (it sent no event id to resume it by)"
		case c.resumes == 0:
			msg += " (not resumed: maxRetries is 0)"
		default:
			msg += fmt.Sprintf("; resuming it (%s: %s) made no progress %d times", lastIDHeader, safe.Sanitize(st.lastID), c.resumes)
		}
		c.deliver(c.ctx, &jsonrpc.Response{ID: callID, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: msg,
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
	for c.ctx.Err() == nil && !c.failed() {
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
			progress, _, _ = c.consume(c.ctx, resp, cancel, &st, jsonrpc.ID{}, nil, jsonrpc.ID{})
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
