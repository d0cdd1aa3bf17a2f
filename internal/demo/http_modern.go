package demo

// The modern era over streamable HTTP (2026-07-28 streamable-http.mdx): a
// POST whose request carries the modern _meta is served without a
// session, after its headers were checked against its body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*: 400 and
// -32020 on a mismatch). The answer is JSON, or with --sse (and always for
// subscriptions/listen) an SSE stream that carries the request's progress
// and log messages before the response; there is no resumption. Errors of
// the request itself are 400 (-32602, -32021, -32022) or 404 (-32601).
// --drop-after-priming closes every other modern SSE answer after a
// priming event, so that a client must send the request again.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A chanPeer sends a modern request's messages to the goroutine that
// writes its answer.
type chanPeer struct {
	ctx context.Context
	out chan<- []byte
}

func (p *chanPeer) notify(ctx context.Context, method string, params any) error {
	b, err := encodeNotification(method, params)
	if err != nil {
		return err
	}
	select {
	case p.out <- b:
		return nil
	case <-p.ctx.Done():
		return p.ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *chanPeer) call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("demo: no server requests in the modern era")
}

// headerValue reads a mirrored header, decoding =?base64?…?=.
func headerValue(r *http.Request, name string) (string, bool) {
	vs := r.Header.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	v := vs[0]
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok && strings.HasSuffix(enc, "?=") {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
		if err != nil {
			return "\x00invalid base64", true
		}
		return string(b), true
	}
	return v, true
}

// writeError answers a request with status and a JSON-RPC error.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, err error) {
	resp, _ := jsonrpc.NewResponse(id, nil, err)
	b, _ := jsonrpc.EncodeMessage(resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// statusOf is the HTTP status of a modern request's error answer.
func statusOf(err error) int {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return http.StatusOK
	}
	switch je.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeInvalidParams, codeHeaderMismatch, -32021, codeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// refuseLegacyHTTP answers a legacy message to a modern-only demo.
func (h *HTTPHandler) refuseLegacyHTTP(w http.ResponseWriter, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		httpError(w, http.StatusBadRequest, "this server speaks "+modernVersion+" only")
		return
	}
	writeError(w, http.StatusBadRequest, req.ID, h.modern.refuseLegacy(req))
}

// postModern serves a modern request.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	srv := h.modern
	mr, err := srv.parseModern(req.Params)
	var version string
	if mr != nil {
		version = mr.version
	} else {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(req.Params, &p)
		_ = json.Unmarshal(p.Meta[metaVersion], &version)
	}
	if herr := checkHeaders(req, version, func(name string) (string, bool) { return headerValue(r, name) }); herr != nil {
		writeError(w, http.StatusBadRequest, req.ID, herr)
		return
	}
	if err != nil {
		writeError(w, statusOf(err), req.ID, err)
		return
	}
	out := make(chan []byte, 64)
	done := make(chan struct{})
	// Closing the answer stream is the client's cancellation (the modern
	// era has no notifications/cancelled over HTTP).
	ctx, cancelCause := context.WithCancelCause(context.WithoutCancel(r.Context()))
	cancel := func() { cancelCause(nil) }
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel)
	defer stop()
	// gone ends the request the client gave up, and waits for its work.
	gone := func() {
		if req.Method != "subscriptions/listen" {
			srv.recordCancel(req.ID)
		}
		cancelCause(errCancelled)
		<-done
	}
	p := &chanPeer{ctx: ctx, out: out}
	var final []byte // the response; with its HTTP status (JSON answers)
	status := http.StatusOK
	crashed := false
	if !h.start(func() {
		defer close(done)
		res, err := srv.handle(ctx, p, req)
		if errors.Is(err, errCrash) {
			srv.logf("demo: crashing as asked (dropping the connection)")
			crashed = true
			return
		}
		if a, ok := res.(*afterReply); ok {
			res = a.result // the modern era has no work after the answer
		}
		if errors.Is(err, errCancelled) || ctx.Err() != nil {
			return
		}
		resp, merr := jsonrpc.NewResponse(req.ID, res, err)
		if merr != nil {
			resp, _ = jsonrpc.NewResponse(req.ID, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "marshaling result: %v", merr))
		}
		final, _ = jsonrpc.EncodeMessage(resp)
		if err != nil {
			status = statusOf(err)
		}
	}) {
		httpError(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	// relay hands the request's messages to emit until its answer is
	// ready; false when the client went away first or emit failed.
	relay := func(emit func([]byte) bool) bool {
		for {
			select {
			case b := <-out:
				if !emit(b) {
					return false
				}
			case <-done:
				return true
			case <-r.Context().Done():
				return false
			}
		}
	}
	if !h.opts.SSE && req.Method != "subscriptions/listen" {
		// JSON: the request's notifications have no path; the answer is
		// the response alone.
		if !relay(func([]byte) bool { return true }) {
			gone()
			return
		}
		switch {
		case crashed:
			panic(http.ErrAbortHandler)
		case final == nil:
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(final)))
		w.WriteHeader(status)
		w.Write(final)
		return
	}
	sseHeaders(w)
	rc := http.NewResponseController(w)
	if h.opts.DropAfterPriming && req.Method != "subscriptions/listen" && h.drops.Add(1)%2 == 1 {
		fmt.Fprintf(w, ": dropping this stream (--drop-after-priming)\n\n")
		rc.Flush()
		cancel()
		<-done
		return
	}
	rc.Flush()
	seq := 0
	write := func(b []byte) bool {
		seq++
		if writeEvent(w, "m", seq, b) != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !relay(write) {
		gone()
		return
	}
	for {
		select {
		case b := <-out:
			if !write(b) {
				return
			}
			continue
		default:
		}
		break
	}
	if crashed {
		panic(http.ErrAbortHandler)
	}
	if final != nil {
		write(final)
	}
}
