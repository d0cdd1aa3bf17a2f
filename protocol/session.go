package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// DefaultTimeout bounds each request unless [Options.Timeout] says
// otherwise.
const DefaultTimeout = 30 * time.Second

// cancelNoticeTimeout bounds the write of notifications/cancelled.
const cancelNoticeTimeout = 2 * time.Second

// Options configures a [Session]. A nil *Options means the defaults.
//
// The notification callbacks run on the connection's reader goroutine, in
// the order the server sent the notifications; they must return quickly
// and must not call the session. The request callbacks (Roots, Elicit,
// Sample) run in a goroutine of their own per request, with a context that
// ends when the session closes.
type Options struct {
	ClientName    string // clientInfo.name; default "mcpwire"
	ClientVersion string // clientInfo.version; default "dev"

	// ProtocolVersion is the version asked for in initialize; default
	// LatestVersion.
	ProtocolVersion string
	// Timeout bounds each request (default DefaultTimeout) unless the
	// caller's context ends sooner.
	Timeout time.Duration
	// MaxTimeout is the hard limit of a request whose timeout progress
	// notifications keep extending (default 10 × Timeout).
	MaxTimeout time.Duration

	// Roots answers roots/list; nil offers the working directory.
	Roots func(ctx context.Context) ([]Root, error)
	// Elicit answers elicitation/create; nil leaves the elicitation
	// capability undeclared (and such requests get -32601).
	Elicit func(ctx context.Context, p *ElicitParams) (*ElicitResult, error)
	// ElicitURL declares URL mode elicitation besides form mode (only with
	// Elicit set and a 2025-11-25 server).
	ElicitURL bool
	// Sample answers sampling/createMessage with a CreateMessageResult;
	// nil leaves the sampling capability undeclared. An *jsonrpc.Error it
	// returns is sent as is (code -1 for "the user rejected the request").
	Sample func(ctx context.Context, p json.RawMessage) (any, error)

	// OnNotification gets every server notification, raw, before the
	// callbacks below.
	OnNotification func(method string, params json.RawMessage)
	// OnServerRequest is told how each server request was answered (it may
	// be called from several goroutines at once):
	// "answered", "accepted", "declined", "cancelled", "method not found",
	// "error: …".
	OnServerRequest func(method string, outcome string)

	OnToolsChanged     func()               // notifications/tools/list_changed
	OnResourcesChanged func()               // notifications/resources/list_changed
	OnPromptsChanged   func()               // notifications/prompts/list_changed
	OnResourceUpdated  func(uri string)     // notifications/resources/updated
	OnProgress         func(ProgressParams) // every notifications/progress
	OnLog              func(LogParams)      // notifications/message
}

// A Session is an initialized MCP session with one server. Its methods may
// be called from many goroutines at once.
type Session struct {
	conn       *jsonrpc.Conn
	opts       Options
	init       *InitializeResult
	ready      atomic.Bool // initialize answered: cancellation allowed
	tokenSeq   atomic.Int64
	timeout    time.Duration
	maxTimeout time.Duration

	mu         sync.Mutex
	progress   map[string]*progressEntry // by progress token
	outSchemas map[string]json.RawMessage
	serving    map[jsonrpc.ID]context.CancelCauseFunc // server requests being answered
}

// A progressEntry routes progress notifications of one call. Once the
// call returned, done is set and fn is never called again.
type progressEntry struct {
	mu     sync.Mutex
	done   bool
	fn     func(ProgressParams)
	extend func() // pushes the call's timeout back
}

// deliver hands p to the call, unless it has returned.
func (e *progressEntry) deliver(p ProgressParams) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		e.extend()
		e.fn(p)
	}
}

// CallOptions are the options of one call. A nil *CallOptions means none.
type CallOptions struct {
	// Progress, when set, asks for progress notifications (a unique
	// _meta.progressToken) and receives them. Each one also extends the
	// call's timeout, up to Options.MaxTimeout. It runs on the reader
	// goroutine and must return quickly; it is never called after the
	// call returned.
	Progress func(ProgressParams)
	// Timeout overrides Options.Timeout for this call.
	Timeout time.Duration
	// Meta, when set, is sent as the request's _meta (progressToken is
	// added to it).
	Meta map[string]any
}

// Connect runs the initialize handshake over s and returns the session.
// ctx, and Options.Timeout, bound the handshake only; initialize is never
// cancelled with a notification. On failure s is closed and the error names the phase
// ("initialize: …", "initialized: …"), or is a *VersionError.
func Connect(ctx context.Context, s jsonrpc.Stream, opts *Options) (*Session, error) {
	if s == nil {
		return nil, errors.New("initialize: no stream")
	}
	sess := &Session{progress: map[string]*progressEntry{}, outSchemas: map[string]json.RawMessage{},
		serving: map[jsonrpc.ID]context.CancelCauseFunc{}}
	if opts != nil {
		sess.opts = *opts
	}
	o := &sess.opts
	if o.ClientName == "" {
		o.ClientName = "mcpwire"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = LatestVersion
	}
	if !IsSupported(o.ProtocolVersion) {
		s.Close()
		return nil, fmt.Errorf("initialize: cannot ask for protocol version %q: mcpwire speaks %s",
			o.ProtocolVersion, strings.Join(supportedVersions[:], ", "))
	}
	sess.timeout = o.Timeout
	if sess.timeout <= 0 {
		sess.timeout = DefaultTimeout
	}
	sess.maxTimeout = o.MaxTimeout
	if sess.maxTimeout <= 0 {
		sess.maxTimeout = 10 * sess.timeout
	}
	if sess.maxTimeout < sess.timeout {
		sess.maxTimeout = sess.timeout
	}
	sess.conn = jsonrpc.NewConn(s, &jsonrpc.ConnOptions{
		Handle:   sess.handle,
		Notify:   sess.notify,
		OnCancel: sess.onCancel,
	})

	params := map[string]any{
		"protocolVersion": o.ProtocolVersion,
		"capabilities":    sess.clientCapabilities(o.ProtocolVersion),
		"clientInfo":      Implementation{Name: o.ClientName, Version: o.ClientVersion},
	}
	// initialize is bounded by ctx and by the timeout, and is never
	// cancelled with a notification (onCancel knows it by ready).
	ictx, cancel := context.WithTimeoutCause(ctx, sess.timeout, &TimeoutError{Method: "initialize", Timeout: sess.timeout})
	raw, err := sess.conn.Call(ictx, "initialize", params)
	cancel()
	if err != nil {
		sess.conn.Close()
		var te *TimeoutError
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("initialize: no answer from server: %w", ctx.Err())
		case errors.As(context.Cause(ictx), &te):
			return nil, te
		}
		return nil, &MethodError{Method: "initialize", Err: err}
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		sess.conn.Close()
		return nil, &ResultError{Method: "initialize", Err: err}
	}
	if !IsSupported(res.ProtocolVersion) {
		sess.conn.Close()
		return nil, &VersionError{Asked: o.ProtocolVersion, Answered: res.ProtocolVersion}
	}
	sess.init = &res
	sess.ready.Store(true)
	if sv, ok := s.(interface{ SetProtocolVersion(string) }); ok {
		sv.SetProtocolVersion(res.ProtocolVersion)
	}
	if err := sess.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		sess.conn.Close()
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return sess, nil
}

// clientCapabilities declares only what the options supply.
func (s *Session) clientCapabilities(version string) map[string]any {
	caps := map[string]any{"roots": map[string]any{"listChanged": true}}
	if s.opts.Elicit != nil {
		if hasElicitationModes(version) {
			el := map[string]any{"form": struct{}{}}
			if s.opts.ElicitURL {
				el["url"] = struct{}{}
			}
			caps["elicitation"] = el
		} else {
			caps["elicitation"] = struct{}{}
		}
	}
	if s.opts.Sample != nil {
		caps["sampling"] = struct{}{}
	}
	return caps
}

// Init returns the server's answer to initialize.
func (s *Session) Init() *InitializeResult { return s.init }

// ProtocolVersion returns the negotiated protocol version.
func (s *Session) ProtocolVersion() string { return s.init.ProtocolVersion }

// Close ends the session and closes its stream.
func (s *Session) Close() error { return s.conn.Close() }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.conn.Done() }

// Err says why the session ended (io.EOF, or an error wrapping it, when the
// server closed the connection); nil while it runs.
func (s *Session) Err() error { return s.conn.Err() }

// Ping sends ping and waits for the answer.
func (s *Session) Ping(ctx context.Context) error {
	_, err := s.call(ctx, "ping", nil, nil)
	return err
}

// NotifyRootsChanged tells the server that the roots changed
// (notifications/roots/list_changed).
func (s *Session) NotifyRootsChanged(ctx context.Context) error {
	if err := s.conn.Notify(ctx, "notifications/roots/list_changed", nil); err != nil {
		return &MethodError{Method: "notifications/roots/list_changed", Err: err}
	}
	return nil
}

// onCancel sends notifications/cancelled for a call given up; never for
// initialize.
func (s *Session) onCancel(id jsonrpc.ID, cause error) {
	if !s.ready.Load() {
		return
	}
	reason := "cancelled by the client"
	var te *TimeoutError
	if errors.As(cause, &te) {
		reason = fmt.Sprintf("timed out after %s", te.Timeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelNoticeTimeout)
	defer cancel()
	_ = s.conn.Notify(ctx, "notifications/cancelled", struct {
		RequestID jsonrpc.ID `json:"requestId"`
		Reason    string     `json:"reason,omitempty"`
	}{id, reason})
}

// call sends one request bounded by the session's timeout (extended by
// progress when opts asks for it) and returns its raw result. Errors are
// *MethodError or *TimeoutError.
func (s *Session) call(ctx context.Context, method string, params any, opts *CallOptions) (json.RawMessage, error) {
	resp, err := s.callResponse(ctx, method, params, opts)
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// callResponse is call, returning the response, whose Cursor takes a
// large result apart quicker.
func (s *Session) callResponse(ctx context.Context, method string, params any, opts *CallOptions) (*jsonrpc.Response, error) {
	sc, err := s.startCall(ctx, method, params, opts)
	if err != nil {
		return nil, err
	}
	return sc.wait()
}

// A sessionCall is a request sent under the session's timeout and not yet
// waited for.
type sessionCall struct {
	ctx     context.Context // the caller's
	cctx    context.Context // the caller's, ended by the timeout too
	method  string
	te      *TimeoutError
	pending *jsonrpc.Pending
	cleanup []func() // run once the call is over
}

// startCall sends one request bounded by the session's timeout (extended
// by progress when opts asks for it); wait gives its answer.
func (s *Session) startCall(ctx context.Context, method string, params any, opts *CallOptions) (*sessionCall, error) {
	timeout := s.timeout
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	maxTimeout := max(s.maxTimeout, timeout)
	if err := ctx.Err(); err != nil {
		return nil, &MethodError{Method: method, Err: err}
	}
	sc := &sessionCall{ctx: ctx, method: method, te: &TimeoutError{Method: method, Timeout: timeout}}
	cctx, cancel := context.WithCancelCause(ctx)
	sc.cctx = cctx
	start := time.Now()
	var fired atomic.Bool
	timer := time.AfterFunc(timeout, func() {
		if fired.Swap(true) {
			return
		}
		sc.te.Timeout = time.Since(start).Round(time.Millisecond)
		cancel(sc.te)
	})
	sc.cleanup = append(sc.cleanup, func() { timer.Stop(); cancel(nil) })

	if opts != nil && opts.Progress != nil {
		token := fmt.Sprintf("mcpwire-%d", s.tokenSeq.Add(1))
		meta := map[string]any{}
		for k, v := range opts.Meta {
			meta[k] = v
		}
		meta["progressToken"] = token
		var err error
		params, err = withMeta(params, meta)
		if err != nil {
			sc.done()
			return nil, &MethodError{Method: method, Err: err}
		}
		hard := start.Add(maxTimeout)
		entry := &progressEntry{fn: opts.Progress, extend: func() {
			if left := time.Until(hard); left > 0 && !fired.Load() {
				timer.Reset(min(timeout, left))
			}
		}}
		s.mu.Lock()
		s.progress[token] = entry
		s.mu.Unlock()
		sc.cleanup = append(sc.cleanup, func() {
			s.mu.Lock()
			delete(s.progress, token)
			s.mu.Unlock()
			entry.mu.Lock()
			entry.done = true
			entry.mu.Unlock()
		})
	} else if opts != nil && opts.Meta != nil {
		var err error
		if params, err = withMeta(params, opts.Meta); err != nil {
			sc.done()
			return nil, &MethodError{Method: method, Err: err}
		}
	}

	p, err := s.conn.Start(cctx, method, params)
	if err != nil {
		defer sc.done()
		return nil, sc.fail(err)
	}
	sc.pending = p
	return sc, nil
}

// wait waits for the answer and ends the call.
func (sc *sessionCall) wait() (*jsonrpc.Response, error) {
	defer sc.done()
	resp, err := sc.pending.Wait(sc.cctx)
	if err != nil {
		return nil, sc.fail(err)
	}
	return resp, nil
}

// abandon gives the call up (the server is told) and ends it.
func (sc *sessionCall) abandon() {
	defer sc.done()
	ctx, cancel := context.WithCancel(sc.cctx)
	cancel()
	sc.pending.Wait(ctx)
}

// fail turns the error of the call into a *TimeoutError or *MethodError.
func (sc *sessionCall) fail(err error) error {
	if sc.ctx.Err() == nil && errors.Is(context.Cause(sc.cctx), sc.te) {
		return sc.te
	}
	return &MethodError{Method: sc.method, Err: err}
}

// done ends the call: its timer, its context, its progress token.
func (sc *sessionCall) done() {
	for _, f := range sc.cleanup {
		f()
	}
	sc.cleanup = nil
}

// withMeta adds _meta to params (a struct or map marshaling to an object,
// or nil).
func withMeta(params any, meta map[string]any) (any, error) {
	obj := map[string]json.RawMessage{}
	if params != nil {
		raw, err := jsonrpc.MarshalParams(params)
		if err != nil {
			return nil, fmt.Errorf("marshaling params: %v", err)
		}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("params are not an object: %v", err)
		}
	}
	m, err := jsonrpc.MarshalParams(meta)
	if err != nil {
		return nil, fmt.Errorf("marshaling _meta: %v", err)
	}
	obj["_meta"] = m
	return obj, nil
}

// callInto calls method and decodes its result into out.
func (s *Session) callInto(ctx context.Context, method string, params any, opts *CallOptions, out any) error {
	raw, err := s.call(ctx, method, params, opts)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &ResultError{Method: method, Err: err}
	}
	return nil
}
