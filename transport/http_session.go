// Sessions of the streamable HTTP transport (see http.go): a new session
// after a 404, and Close with its DELETE.

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

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
		_, answered, err = c.consume(ctx, resp, cancel, &st, id, &answer, jsonrpc.ID{})
	case "application/json":
		var data []byte
		data, err = c.readBody(resp)
		discard(resp)
		cancel()
		if err == nil {
			answered, err = c.deliverBody(ctx, data, id, &answer, jsonrpc.ID{})
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
	ctx, cancel := context.WithTimeout(c.base, c.delete)
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
