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
// ends when the session closes; in the modern era they answer the input
// requests of multi round-trip requests, on the caller's goroutine.
type Options struct {
	ClientName    string // clientInfo.name; default "mcpwire"
	ClientVersion string // clientInfo.version; default "dev"

	// ProtocolVersion pins the revision. "" (the default) speaks both
	// eras: the server's era is detected as the 2026-07-28 revision says
	// (server/discover first, initialize when the server is legacy), and
	// the newest revision both sides speak is used. A legacy revision
	// (2024-11-05 … 2025-11-25) is asked for in initialize and the answer
	// must name it; "2026-07-28" speaks the modern era only.
	ProtocolVersion string
	// Discovered, with a modern ProtocolVersion, is the server's answer
	// to server/discover known already (a session's daemon hands it over
	// with its answer): the session starts from it without asking, as it
	// would from the answer. One that does not name ProtocolVersion is
	// not used (server/discover is sent).
	Discovered json.RawMessage
	// Hint is what an earlier connection learned of this server (an era
	// cache): with EraLegacy the server/discover probe is skipped and
	// initialize asks for Hint.Version; with EraModern server/discover asks
	// for Hint.Version. When the hint proves wrong the era is detected
	// afresh; Session.Era and ProtocolVersion say what was found.
	Hint *EraHint
	// ProbeTimeout bounds the server/discover probe of era detection
	// over HTTP (default DefaultProbeTimeout, at most Timeout): a legacy
	// server may never answer it, and then the session falls back to
	// initialize.
	ProbeTimeout time.Duration
	// ProbeOverlap is how long the probe waits alone over stdio (default
	// DefaultProbeOverlap, at most ProbeTimeout when that is set): then
	// initialize is sent beside it and the first answer tells the era, so
	// that a legacy server that ignores server/discover costs little and
	// a server slow to start is still told right (see probe.go).
	ProbeOverlap time.Duration
	// Timeout bounds each request (default DefaultTimeout) unless the
	// caller's context ends sooner.
	Timeout time.Duration
	// StartTimeout bounds initialize (default Timeout): a caller whose
	// budget for the whole start is longer than one request's (a server
	// that downloads itself first) gives that budget here.
	StartTimeout time.Duration
	// MaxTimeout is the hard limit of a request whose timeout progress
	// notifications keep extending (default 10 × Timeout).
	MaxTimeout time.Duration
	// MaxInputRounds bounds the rounds of a multi round-trip request
	// (modern era): after that many input_required answers in a row the
	// request fails with an *InputRoundsError (default
	// DefaultMaxInputRounds).
	MaxInputRounds int
	// MaxInputRequests bounds the input requests of one input_required
	// answer, MaxInputTotal those of all the rounds of one request, and
	// MaxRequestState the bytes of a requestState (modern era; defaults
	// DefaultMaxInputRequests, DefaultMaxInputTotal,
	// DefaultMaxRequestState). Past a bound nothing of that round is
	// answered and the request fails with an *InputLimitError. Input
	// requests are answered at the rate of replies to server requests
	// (32 a second), which they share.
	MaxInputRequests int
	MaxInputTotal    int
	MaxRequestState  int

	// Roots answers roots/list; nil leaves the roots capability
	// undeclared (and roots/list gets -32601): no directory is offered
	// unless the caller chose it.
	Roots func(ctx context.Context) ([]Root, error)
	// Elicit answers elicitation/create; nil leaves the elicitation
	// capability undeclared (and such requests get -32601).
	Elicit func(ctx context.Context, p *ElicitParams) (*ElicitResult, error)
	// ElicitURL declares URL mode elicitation besides form mode (only with
	// Elicit set and a 2025-11-25 or later server).
	ElicitURL bool
	// Sample answers sampling/createMessage with a CreateMessageResult;
	// nil leaves the sampling capability undeclared. An *jsonrpc.Error it
	// returns is sent as is (code -1 for "the user rejected the request").
	Sample func(ctx context.Context, p json.RawMessage) (any, error)
	// Declare, when set, is the capabilities object of another client
	// (a proxy's host) declared in place of what Roots, Elicit, ElicitURL
	// and Sample imply: its roots, sampling and elicitation as it wrote
	// them (in the forms of the revision spoken), and its extensions
	// beside the session's own. The handlers still answer: a request
	// the other client did not declare is theirs to refuse.
	Declare json.RawMessage

	// Trace, when set, puts every request of the session in that trace
	// (traceparent, tracestate and baggage in _meta, both eras); a call's
	// CallOptions.Trace wins. Checked by Connect.
	Trace *TraceContext

	// OnNotification gets every server notification, raw, before the
	// callbacks below.
	OnNotification func(method string, params json.RawMessage)
	// OnServerRequest is told how each server request (legacy era) or
	// input request (modern era) was answered (it may be called from
	// several goroutines at once): "answered", "accepted", "declined",
	// "cancelled", "method not found", "error: …".
	OnServerRequest func(method string, outcome string)
	// OnRefused is told of server requests and input requests refused for
	// being too many (see [Refusal]): n of them with that method. It runs
	// on the connection's reader goroutine (server requests) or the
	// caller's (input requests), and must not block.
	OnRefused func(method string, why Refusal, n int)
	// OnIconDropped is told of each icon left out of what the session
	// returns (a listing's items, the server's identity) because its src
	// is neither an https: URL nor a data: URI, with what it belonged to.
	OnIconDropped func(what, src string)
	// OnToolRejected is told about each tool left out of a tools/list
	// answer because its x-mcp-header annotations are invalid (modern era
	// over streamable HTTP, as SEP-2243 says), with the reason.
	OnToolRejected func(tool, reason string)
	// KnownTools are the tools a previous listing of this server gave (a
	// cache): in the modern era over streamable HTTP, a call of one of
	// them mirrors its x-mcp-header parameters from the first call, with
	// no listing. Without them a tool not listed on the session is called
	// without Mcp-Param-* headers until the server asks for them (-32020).
	KnownTools []*Tool

	OnToolsChanged     func()               // notifications/tools/list_changed
	OnResourcesChanged func()               // notifications/resources/list_changed
	OnPromptsChanged   func()               // notifications/prompts/list_changed
	OnResourceUpdated  func(uri string)     // notifications/resources/updated
	OnProgress         func(ProgressParams) // every notifications/progress
	OnLog              func(LogParams)      // notifications/message
}

// An EraHint is what is known of a server's era before connecting.
type EraHint struct {
	Era     Era
	Version string // the revision spoken last time; "" for the newest of the era
}

// DefaultProbeTimeout bounds the server/discover probe unless
// [Options.ProbeTimeout] says otherwise.
const DefaultProbeTimeout = 5 * time.Second

// DefaultMaxInputRounds bounds the rounds of a multi round-trip request
// unless [Options.MaxInputRounds] says otherwise.
const DefaultMaxInputRounds = 8

// A Session is an MCP session with one server: an initialized legacy
// session, or a modern one whose every request carries the protocol
// version and client capabilities. Its methods may be called from many
// goroutines at once.
type Session struct {
	conn       *jsonrpc.Conn
	stream     jsonrpc.Stream // the stream as given to Connect
	opts       Options
	init       *InitializeResult
	ready      atomic.Bool // the era is settled: cancellation allowed
	tokenSeq   atomic.Int64
	timeout    time.Duration
	maxTimeout time.Duration

	era    Era
	modern atomic.Pointer[modernState] // nil in the legacy era
	// version is the revision spoken (asked for, while the era is being
	// settled): a server request may arrive before the answer, and
	// opts.ProtocolVersion stays the pin alone.
	version atomic.Pointer[string]
	headers bool // the stream mirrors request metadata into headers (HTTP)

	mu         sync.Mutex
	progress   map[string]*progressEntry // by progress token
	outSchemas map[string]json.RawMessage
	// taskSupport holds the execution.taskSupport of listed tools; nil
	// until a tools/list.
	taskSupport map[string]string
	hints       map[string]CacheHint // of the last complete listings, by method
	mod         modernFields

	life context.Context    // ends when the session closes
	stop context.CancelFunc // ends life
	bg   sync.WaitGroup     // the session's own goroutines (subscriptions/listen)
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
	// Meta, when set, is sent as the request's _meta (progressToken, and in
	// the modern era the protocol fields, are added to it).
	Meta map[string]any
	// Trace puts the request in a trace (traceparent, tracestate and
	// baggage in _meta); it wins over Options.Trace.
	Trace *TraceContext
}

// Connect starts an MCP session over s: in the legacy era the initialize
// handshake, in the modern era server/discover; with no pinned version the
// era is detected first (see [Options]). ctx, and Options.Timeout, bound
// the start only; initialize is never cancelled with a notification. On
// failure s is closed and the error names the phase ("initialize: …",
// "server/discover: …"), or is a *VersionError or *UnsupportedVersionError.
func Connect(ctx context.Context, s jsonrpc.Stream, opts *Options) (*Session, error) {
	if s == nil {
		return nil, errors.New("initialize: no stream")
	}
	sess := &Session{stream: s, progress: map[string]*progressEntry{}, outSchemas: map[string]json.RawMessage{}}
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
	if o.Trace != nil {
		if err := o.Trace.Check(); err != nil {
			s.Close()
			return nil, fmt.Errorf("initialize: %v", err)
		}
	}
	if o.ProtocolVersion != "" && !IsSupported(o.ProtocolVersion) {
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
	o.inputDefaults()
	stream := s
	if ew, ok := s.(envelopeWriter); ok {
		stream = &envelopeStream{Stream: s, ew: ew}
		sess.headers = true
	}
	sess.conn = jsonrpc.NewConn(stream, &jsonrpc.ConnOptions{
		Handle:     sess.handle,
		Notify:     sess.notify,
		OnCancel:   sess.onCancel,
		OnOverflow: sess.onOverflow,
	})
	sess.life, sess.stop = context.WithCancel(context.Background())
	if err := sess.start(ctx); err != nil {
		sess.stop()
		sess.conn.Close()
		return nil, err
	}
	if sess.init != nil {
		sess.keepIcons("server "+sess.init.ServerInfo.Name, &sess.init.ServerInfo.Icons)
	}
	sess.ready.Store(true)
	if sess.era == EraModern {
		sess.knowHeaders(o.KnownTools)
		sess.startListening(ctx)
	}
	return sess, nil
}

// initialize runs the legacy handshake asking for version. With strict,
// the answer must name version (a pinned revision); otherwise any legacy
// revision this package speaks is accepted.
func (sess *Session) initialize(ctx context.Context, version string, strict bool) error {
	// initialize is bounded by ctx and by the timeout, and is never
	// cancelled with a notification (onCancel knows it by ready).
	timeout := sess.startTimeout()
	ictx, cancel := context.WithTimeoutCause(ctx, timeout, &TimeoutError{Method: "initialize", Timeout: timeout})
	defer cancel()
	sess.speak(version)
	raw, err := sess.conn.Call(ictx, "initialize", sess.initParams(version))
	return sess.initialized(ctx, ictx, version, strict, raw, err)
}

// startTimeout bounds each request of the start (initialize, the
// discover of a pinned or overlapped detection): Options.StartTimeout,
// else the request timeout.
func (sess *Session) startTimeout() time.Duration {
	if sess.opts.StartTimeout > 0 {
		return sess.opts.StartTimeout
	}
	return sess.timeout
}

// initParams are the params of initialize asking for version.
func (sess *Session) initParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    sess.clientCapabilities(version),
		"clientInfo":      Implementation{Name: sess.opts.ClientName, Version: sess.opts.ClientVersion},
	}
}

// initialized ends the handshake with the answer (raw, err) to
// initialize asking for version, sent under ictx: the session becomes a
// legacy one and the server is told. A pinned (strict) revision accepts an
// older legacy answer, as a client of that revision would, never a newer
// one.
func (sess *Session) initialized(ctx, ictx context.Context, version string, strict bool, raw json.RawMessage, err error) error {
	if err != nil {
		var te *TimeoutError
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("initialize: no answer from server: %w", ctx.Err())
		case errors.As(context.Cause(ictx), &te):
			return te
		}
		return &MethodError{Method: "initialize", Err: err}
	}
	var res InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return &ResultError{Method: "initialize", Err: err}
	}
	if !isLegacySupported(res.ProtocolVersion) || strict && res.ProtocolVersion > version {
		return &VersionError{Asked: version, Answered: res.ProtocolVersion, Pinned: strict}
	}
	sess.init = &res
	sess.era = EraLegacy
	sess.speak(res.ProtocolVersion)
	if sv, ok := sess.stream.(interface{ SetProtocolVersion(string) }); ok {
		sv.SetProtocolVersion(res.ProtocolVersion)
	}
	if err := sess.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		return fmt.Errorf("initialized: %w", err)
	}
	return nil
}

// clientCapabilities declares only what the options supply. The modern
// era has no roots/list_changed notification: its roots capability is {}.
func (s *Session) clientCapabilities(version string) map[string]any {
	if s.opts.Declare != nil {
		return declaredCapabilities(version, s.opts.Declare)
	}
	caps := map[string]any{}
	if s.opts.Roots != nil {
		caps["roots"] = map[string]any{"listChanged": true}
		if EraOf(version) == EraModern {
			caps["roots"] = struct{}{}
		}
	}
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
	if EraOf(version) == EraModern {
		// Any tools/call may come back as a task: CallTool follows it
		// to its end, CallToolTask hands it over (tasks.go). Skills are
		// listed and loaded on demand (skills.go).
		caps["extensions"] = map[string]any{ExtTasks: struct{}{}, ExtSkills: struct{}{}}
	}
	return caps
}

// ClientCapabilities is what the session declared (or declares, in the
// modern era, on every request) for the revision it speaks.
func (s *Session) ClientCapabilities() map[string]any {
	return s.clientCapabilities(s.ProtocolVersion())
}

// Init returns the server's answer to initialize; in the modern era, the
// same fields from server/discover (ProtocolVersion is the revision the
// session speaks, ServerInfo the serverInfo of the discover answer's _meta).
func (s *Session) Init() *InitializeResult { return s.init }

// ProtocolVersion returns the revision the session speaks: the negotiated
// one (legacy), or the one every request carries (modern).
func (s *Session) ProtocolVersion() string {
	if m := s.modern.Load(); m != nil {
		return m.version
	}
	if v := s.version.Load(); v != nil {
		return *v
	}
	return ""
}

// speak records the revision the session speaks (or asks for, while its
// era is being settled).
func (s *Session) speak(version string) { s.version.Store(&version) }

// Era returns the era of the session.
func (s *Session) Era() Era { return s.era }

// Close ends the session and closes its stream.
func (s *Session) Close() error {
	s.stop()
	err := s.conn.Close()
	s.bg.Wait()
	return err
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.conn.Done() }

// Err says why the session ended (io.EOF, or an error wrapping it, when the
// server closed the connection); nil while it runs.
func (s *Session) Err() error { return s.conn.Err() }

// Ping sends ping and waits for the answer. The modern era has no ping:
// there it sends server/discover, which every modern server answers.
func (s *Session) Ping(ctx context.Context) error {
	if s.era == EraModern {
		_, err := s.call(ctx, "server/discover", nil, nil)
		return err
	}
	_, err := s.call(ctx, "ping", nil, nil)
	return err
}

// NotifyRootsChanged tells the server that the roots changed
// (notifications/roots/list_changed). The modern era has no such
// notification (the roots are asked for with each request that needs
// them): there it does nothing.
func (s *Session) NotifyRootsChanged(ctx context.Context) error {
	if s.era == EraModern {
		return nil
	}
	if err := s.conn.Notify(ctx, "notifications/roots/list_changed", nil); err != nil {
		return &MethodError{Method: "notifications/roots/list_changed", Err: err}
	}
	return nil
}

// onCancel tells the server that a call was given up; never for
// initialize or the era probe. Over streamable HTTP in the modern era,
// closing the request's response stream is the cancellation (the
// transport does it); elsewhere it sends notifications/cancelled.
func (s *Session) onCancel(id jsonrpc.ID, cause error) {
	if !s.ready.Load() {
		return
	}
	if s.era == EraModern && s.headers {
		if c, ok := s.stream.(interface{ CancelRequest(jsonrpc.ID) bool }); ok {
			c.CancelRequest(id)
		}
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
	resp, err := s.callResponse(ctx, &request{method: method, params: params, opts: opts})
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// callResponse is call, returning the response, whose Cursor takes a
// large result apart quicker.
func (s *Session) callResponse(ctx context.Context, rq *request) (*jsonrpc.Response, error) {
	sc, err := s.startCall(ctx, rq)
	if err != nil {
		return nil, err
	}
	return sc.wait()
}

// A request is what a call sends: the method and its params (without
// _meta, which the session adds), and what the HTTP binding mirrors into
// headers.
type request struct {
	method  string
	params  any             // marshaled when sent, unless raw is set
	raw     json.RawMessage // params already marshaled (nil: see params)
	more    []member        // members put in front of the params with _meta, in the one copy that adds it
	once    bool            // more was big and is let go once sent: not sent again in another revision
	opts    *CallOptions
	name    string            // Mcp-Name: params.name or params.uri, for the methods that have one
	extra   map[string]string // Mcp-Param-* headers of a tools/call (raw values)
	probe   bool              // the era probe: not retried on -32022 (the probe handles it)
	endless bool              // no timeout (subscriptions/listen)
}

// marshal returns the request's params as JSON (nil for none).
func (rq *request) marshal() (json.RawMessage, error) {
	if rq.raw != nil || rq.params == nil {
		return rq.raw, nil
	}
	raw, err := jsonrpc.MarshalParams(rq.params)
	if err != nil {
		return nil, fmt.Errorf("marshaling params: %v", err)
	}
	return raw, nil
}

// A sessionCall is a request sent under the session's timeout and not yet
// waited for. What a call needs is in this one struct (its timeout error,
// timer state and progress entry), so that a call costs few allocations.
type sessionCall struct {
	s       *Session
	rq      request         // a copy: the caller's may stay on its stack
	ctx     context.Context // the caller's
	cctx    context.Context // the caller's, ended by the timeout too
	cancel  context.CancelCauseFunc
	te      TimeoutError
	start   time.Time
	timeout time.Duration
	hard    time.Time // progress extends the timeout up to here
	timer   *time.Timer
	fired   atomic.Bool
	moved   atomic.Bool // progress pushed the timeout back
	pending *jsonrpc.Pending
	entry   *progressEntry // when progress was asked for
	token   string         // the progress token, when asked for
	retried bool           // re-sent once with another version (-32022)
	over    bool           // done ran
}

// startCall sends one request bounded by the session's timeout (extended
// by progress when opts asks for it); wait gives its answer.
func (s *Session) startCall(ctx context.Context, rq *request) (*sessionCall, error) {
	method, opts := rq.method, rq.opts
	timeout := s.timeout
	if opts != nil && opts.Timeout > 0 {
		timeout = opts.Timeout
	}
	if err := ctx.Err(); err != nil {
		return nil, &MethodError{Method: method, Err: err}
	}
	sc := &sessionCall{s: s, rq: *rq, ctx: ctx, te: TimeoutError{Method: method, Timeout: timeout}, timeout: timeout}
	rq.more = nil // handed to the call, which lets a big one go once sent
	sc.cctx, sc.cancel = context.WithCancelCause(ctx)
	sc.start = time.Now()
	if !rq.endless {
		sc.timer = time.AfterFunc(timeout, sc.expire)
	}
	if opts != nil && opts.Progress != nil {
		sc.token = fmt.Sprintf("mcpwire-%d", s.tokenSeq.Add(1))
		sc.hard = sc.start.Add(max(s.maxTimeout, timeout))
		sc.entry = &progressEntry{fn: opts.Progress, extend: sc.extend}
		s.mu.Lock()
		s.progress[sc.token] = sc.entry
		s.mu.Unlock()
	}
	if err := sc.send(); err != nil {
		defer sc.done()
		return nil, err
	}
	return sc, nil
}

// expire ends the call with its *TimeoutError, once.
func (sc *sessionCall) expire() {
	if sc.fired.Swap(true) {
		return
	}
	// The timeout as configured, so that the error reads the same on a
	// loaded machine; how long it waited when progress pushed it back.
	if sc.moved.Load() {
		sc.te.Timeout = time.Since(sc.start).Round(time.Millisecond)
	}
	sc.cancel(&sc.te)
}

// extend pushes the timeout back (a progress notification came), up to
// the hard limit.
func (sc *sessionCall) extend() {
	if left := time.Until(sc.hard); left > 0 && !sc.fired.Load() && sc.timer != nil {
		sc.moved.Store(true)
		sc.timer.Reset(min(sc.timeout, left))
	}
}

// send sends the call's request (again, for a retry: a new id).
func (sc *sessionCall) send() error {
	s, rq := sc.s, &sc.rq
	var meta map[string]any
	trace := s.opts.Trace
	if rq.opts != nil && rq.opts.Meta != nil {
		meta = rq.opts.Meta
	}
	if rq.opts != nil && rq.opts.Trace != nil {
		trace = rq.opts.Trace
	}
	meta = trace.meta(meta)
	if sc.token != "" {
		m := make(map[string]any, len(meta)+1)
		for k, v := range meta {
			m[k] = v
		}
		m["progressToken"] = sc.token
		meta = m
	}
	params, err := rq.marshal()
	if err != nil {
		return &MethodError{Method: rq.method, Err: err}
	}
	ctx := sc.cctx
	var parts [][]byte // the params in parts, for a retry whose members may be big
	if ms := s.modern.Load(); ms != nil {
		if d := declaredIn(ctx); d != nil {
			ms = ms.declaring(s, d)
		}
		if rq.more != nil {
			parts, err = ms.withMetaParts(params, meta, s.logLevel(), rq.more...)
		} else {
			params, err = ms.withMeta(params, meta, s.logLevel())
		}
		if err != nil {
			return &MethodError{Method: rq.method, Err: err}
		}
		if s.headers {
			ctx = withEnvelope(ctx, ms.envelope(rq))
		}
	} else if meta != nil || rq.more != nil {
		if params, err = withMeta(params, meta, rq.more...); err != nil {
			return &MethodError{Method: rq.method, Err: err}
		}
	}
	size := len(params)
	for _, b := range parts {
		size += len(b)
	}
	if rq.more != nil && size >= bigRetry {
		// A big retry (a requestState of megabytes) is not held while
		// its answer comes, for a -32022 that asks for it in another
		// revision: the heap holds the answer alone. Let go before it
		// is sent: over HTTP the answer is read while it is.
		rq.more, rq.once = nil, true
	}
	var p *jsonrpc.Pending
	if parts != nil {
		// A big requestState goes out from the answer it came in,
		// never copied.
		p, err = s.conn.StartParts(ctx, rq.method, parts)
	} else {
		p, err = s.conn.StartRaw(ctx, rq.method, params)
	}
	if err != nil {
		return sc.fail(err)
	}
	sc.pending = p
	return nil
}

// bigRetry is the size from which a call's params are let go once sent.
const bigRetry = 1 << 20

// wait waits for the answer and ends the call. In the modern era an
// UnsupportedProtocolVersionError (-32022) naming another modern revision
// both sides speak switches the session to it and sends the request again,
// once.
func (sc *sessionCall) wait() (*jsonrpc.Response, error) {
	defer sc.done()
	for {
		resp, err := sc.pending.Wait(sc.cctx)
		if err == nil {
			return resp, nil
		}
		if !sc.retried && !sc.rq.probe && !sc.rq.once && sc.s.switchVersion(err) {
			sc.retried = true
			if err := sc.send(); err != nil {
				return nil, err
			}
			continue
		}
		return nil, sc.fail(err)
	}
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
	if sc.ctx.Err() == nil && context.Cause(sc.cctx) == error(&sc.te) {
		return &sc.te
	}
	return &MethodError{Method: sc.rq.method, Err: err}
}

// done ends the call: its timer, its context, its progress token.
func (sc *sessionCall) done() {
	if sc.over {
		return
	}
	sc.over = true
	if sc.timer != nil {
		sc.timer.Stop()
	}
	sc.cancel(nil)
	if e := sc.entry; e != nil {
		s := sc.s
		s.mu.Lock()
		delete(s.progress, sc.token)
		s.mu.Unlock()
		e.mu.Lock()
		e.done = true
		e.mu.Unlock()
	}
}

// withMeta adds _meta (unless nil) and more to params (a JSON object, or
// nil).
func withMeta(params json.RawMessage, meta map[string]any, more ...member) (json.RawMessage, error) {
	if meta == nil {
		return addMembers(params, more...)
	}
	m, err := jsonrpc.MarshalParams(meta)
	if err != nil {
		return nil, fmt.Errorf("marshaling _meta: %v", err)
	}
	return addMembers(params, append([]member{{"_meta", m}}, more...)...)
}

// callInto calls method and decodes its result into out, after checking
// its resultType (a modern server's; input_required is an error here).
func (s *Session) callInto(ctx context.Context, method string, params any, opts *CallOptions, out any) error {
	raw, err := s.call(ctx, method, params, opts)
	if err != nil {
		return err
	}
	if err := s.checkComplete(method, raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &ResultError{Method: method, Err: err}
	}
	return nil
}
