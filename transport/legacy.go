package transport

// The HTTP+SSE transport of MCP 2024-11-05 (basic/transports.mdx, "HTTP
// with SSE"): a GET of the server's URL opens an event stream whose first
// event, "endpoint", names the URL to POST messages to; the server's
// messages come as "message" events on that stream. There is no session
// header, no resumption and no DELETE: the connection lives as long as the
// stream.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A legacyConn is the POST side of an HTTP+SSE connection.
type legacyConn struct {
	_ [0]func() // not comparable: no equality function in the binary

	c        *HTTPConn
	endpoint string // absolute, same origin as c.url
}

// startLegacy opens the event stream and waits, bounded by ctx, for the
// endpoint event. Later calls return the same connection.
func (c *HTTPConn) startLegacy(ctx context.Context) (*legacyConn, error) {
	c.reinitMu.Lock()
	defer c.reinitMu.Unlock()
	c.mu.Lock()
	old := c.old
	c.mu.Unlock()
	if old != nil {
		return old, nil
	}
	req, _, err := c.newRequest(http.MethodGet, c.url, nil, true)
	if err != nil {
		return nil, err
	}
	resp, detach, cancel, err := c.roundTrip(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		herr := httpError(http.MethodGet, c.url, resp)
		cancel()
		return nil, herr
	}
	if mt := mediaType(resp); mt != "text/event-stream" {
		discard(resp)
		cancel()
		return nil, fmt.Errorf("GET %s: answer of type %q, not text/event-stream", c.shown, safe.Sanitize(mt))
	}
	type found struct {
		endpoint string
		err      error
	}
	got := make(chan found, 1)
	started := c.spawn(func() {
		defer cancel()
		defer resp.Body.Close()
		s := newEventScanner(resp.Body)
		s.max = c.max
		var endpoint string
		for {
			ev, err := s.next()
			if err != nil {
				if endpoint == "" {
					if err == io.EOF {
						err = errors.New("the stream ended before the endpoint event")
					}
					got <- found{err: fmt.Errorf("GET %s: %w", c.shown, err)}
					return
				}
				if c.ctx.Err() == nil {
					c.fail(fmt.Errorf("transport: the event stream of %s ended: %w", c.shown, err))
				}
				return
			}
			if endpoint == "" {
				if ev.typ != "endpoint" {
					continue // nothing is meant to come before it
				}
				endpoint, err = c.resolveEndpoint(string(ev.data))
				if err != nil {
					got <- found{err: err}
					return
				}
				got <- found{endpoint: endpoint}
				continue
			}
			if len(ev.data) == 0 || (ev.typ != "" && ev.typ != "message") {
				continue
			}
			if _, err := c.deliverBody(c.ctx, ev.data, jsonrpc.ID{}, nil, jsonrpc.ID{}); err != nil {
				c.deliver(c.ctx, nil, err)
			}
		}
	})
	if !started {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("connecting to %s: %w", c.shown, jsonrpc.ErrClosed)
	}
	var f found
	select {
	case f = <-got:
	case <-ctx.Done():
		cancel()
		return nil, fmt.Errorf("GET %s: waiting for the endpoint event: %w", c.shown, ctx.Err())
	}
	if f.err != nil {
		cancel()
		return nil, f.err
	}
	if !detach() {
		cancel()
		return nil, fmt.Errorf("GET %s: %w", c.shown, ctx.Err())
	}
	l := &legacyConn{c: c, endpoint: f.endpoint}
	c.mu.Lock()
	c.old = l
	c.mu.Unlock()
	return l, nil
}

// resolveEndpoint resolves the endpoint event's URL against the server's
// and requires the same origin.
func (c *HTTPConn) resolveEndpoint(data string) (string, error) {
	base, err := url.Parse(c.url)
	if err != nil {
		return "", fmt.Errorf("GET %s: %v", c.shown, err)
	}
	ref, err := url.Parse(strings.TrimSpace(data))
	if err != nil {
		return "", fmt.Errorf("GET %s: the endpoint event is not a URL", c.shown)
	}
	u := base.ResolveReference(ref)
	if !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host) || u.User != nil {
		return "", fmt.Errorf("GET %s: the endpoint event points to another origin (%s)", c.shown, safe.RedactURL(u.String()))
	}
	return u.String(), nil
}

// write POSTs one message to the endpoint; any success will do.
func (l *legacyConn) write(ctx context.Context, body []byte) error {
	c := l.c
	req, _, err := c.newRequest(http.MethodPost, l.endpoint, body, true)
	if err != nil {
		return err
	}
	resp, _, cancel, err := c.roundTrip(ctx, req)
	if err != nil {
		return err
	}
	defer cancel()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpError(http.MethodPost, l.endpoint, resp)
	}
	discard(resp)
	return nil
}
