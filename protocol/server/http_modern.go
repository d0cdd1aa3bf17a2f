package server

// The modern era over streamable HTTP (2026-07-28 streamable-http.mdx): a
// POST whose request carries the modern _meta is served without a
// session, after its headers were checked against its body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*: 400 and
// -32020 on a mismatch). The answer is JSON, or with --sse (and always for
// subscriptions/listen) an SSE stream that carries the request's progress
// and log messages before the response; there is no resumption. Errors of
// the request itself are 400 (-32602, -32021, -32022) or 404 (-32601).
// DropAfterPriming closes every other modern SSE answer after a priming
// event, so that a client must send the request again.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A chanPeer sends a modern request's messages to the goroutine that
// writes its answer.
type chanPeer struct {
	_ [0]func() // not comparable: no equality function in the binary

	ctx context.Context
	out chan<- []byte
}

func (p *chanPeer) Notify(ctx context.Context, method string, params any) error {
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

func (p *chanPeer) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("server: no server requests in the modern era")
}

// writeError answers a request with status and a JSON-RPC error.
func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, err error) {
	resp, _ := jsonrpc.NewResponse(id, nil, err)
	b, _ := encodeInert(resp)
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
	case jsonrpc.CodeInvalidParams, CodeHeaderMismatch, CodeMissingCapability, CodeUnsupportedVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// refuseLegacyHTTP answers a legacy message to a modern-only server.
func (h *HTTPHandler) refuseLegacyHTTP(w http.ResponseWriter, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		httpError(w, http.StatusBadRequest, "this server speaks "+ModernVersion+" only")
		return
	}
	writeError(w, http.StatusBadRequest, req.ID, h.modern.refuseLegacy(req))
}

// postModern serves a modern request.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	srv := h.modern
	mr, err := h.srv.parseModern(req.Params)
	var version string
	if mr != nil {
		version = mr.Version
	} else {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(req.Params, &p)
		_ = json.Unmarshal(p.Meta[MetaVersion], &version)
	}
	if err != nil && version == "" {
		// No protocol version in _meta: the request's own error (-32602)
		// comes before any header's.
		writeError(w, statusOf(err), req.ID, err)
		return
	}
	if herr := CheckHeaders(req, version, func(name string) (string, bool) { return headerValue(r, name) }, h.srv.opts.MirroredParams); herr != nil {
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
		cancelCause(ErrCancelled)
		<-done
	}
	p := &chanPeer{ctx: ctx, out: out}
	var final []byte // the response; with its HTTP status (JSON answers)
	var then func()  // an AfterReply's work, once the answer is written
	status := http.StatusOK
	crashed := false
	if !h.start(func() {
		defer close(done)
		res, err := srv.Handle(ctx, p, req)
		if errors.Is(err, ErrDrop) {
			h.srv.Logf("crashing as asked (dropping the connection)")
			crashed = true
			return
		}
		if a, ok := res.(*AfterReply); ok {
			res, then = a.Result, a.Then
		}
		if errors.Is(err, ErrCancelled) || ctx.Err() != nil {
			return
		}
		resp, merr := jsonrpc.NewResponse(req.ID, res, err)
		if merr != nil {
			resp, _ = jsonrpc.NewResponse(req.ID, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "marshaling result: %v", merr))
		}
		final, _ = encodeInert(resp)
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
	if !h.srv.opts.SSE && req.Method != "subscriptions/listen" {
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
		afterAnswer(cancel, then)
		return
	}
	rc := http.NewResponseController(w)
	if h.srv.opts.DropAfterPriming && req.Method != "subscriptions/listen" && h.drops.Add(1)%2 == 1 {
		sseHeaders(w)
		fmt.Fprintf(w, ": dropping this stream (DropAfterPriming)\n\n")
		rc.Flush()
		cancel()
		<-done
		return
	}
	// The stream starts with the request's first message: an error
	// answered before any is a JSON answer with its HTTP status (400,
	// 404), as the modern era asks.
	var first []byte
	select {
	case first = <-out:
	case <-done:
	case <-r.Context().Done():
		gone()
		return
	}
	if first == nil && !crashed && final != nil && status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(final)
		return
	}
	sseHeaders(w)
	rc.Flush()
	seq := 0
	write := func(b []byte) bool {
		seq++
		if writeEvent(w, "m", seq, b) != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if first != nil && !write(first) {
		gone()
		return
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
	if final != nil && write(final) {
		afterAnswer(cancel, then)
	}
}

// afterAnswer runs an AfterReply's work once a modern request's answer is
// written. The request's stream is over: cancel ends its peer first, so
// that what the work sends to it (progress, a log message: the request's
// own, which no other stream may carry) is dropped at once, while a
// Broadcast reaches the subscriptions/listen streams that asked for it
// (a change notification, which may come at any time).
func afterAnswer(cancel func(), then func()) {
	if then == nil {
		return
	}
	cancel()
	then()
}
