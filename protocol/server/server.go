// Package server is the server side of MCP, in both eras and over both
// transports: what the demo server, a proxy, the manager served as one
// server, and a replayer all need, with the answers left to a Handler.
//
// A Server answers what the protocol itself asks of a server: initialize
// and version negotiation, ping, logging/setLevel, notifications/initialized
// and notifications/cancelled in the legacy era (2024-11-05 … 2025-11-25);
// server/discover, per-request _meta, multi round-trip requests (a call to
// the client becomes an InputRequiredResult) and subscriptions/listen in the
// modern one (2026-07-28); the results' resultType, serverInfo and caching
// hints; cancellation (ctx ends with ErrCancelled as its cause); log
// messages at or above the client's level. Everything else goes to the
// Handler that NewSession gives for each session (a legacy session, or the
// one modern server), with a Peer to send the client notifications and
// requests on whatever path the transport has for them.
//
// Transports: ServeStdio (newline-delimited JSON-RPC) and HTTPHandler
// (streamable HTTP: legacy sessions with Mcp-Session-Id, the GET stream and
// resumption with Last-Event-ID; modern stateless POSTs with their headers
// checked against the body; Origin checked against DNS rebinding; an
// optional bearer token).
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The eras a server speaks (Options.Era).
const (
	EraDual   = ""       // both (the default)
	EraModern = "modern" // 2026-07-28 only
	EraLegacy = "legacy" // 2024-11-05 … 2025-11-25 only
)

// ModernVersion is the modern revision spoken.
const ModernVersion = "2026-07-28"

// LatestLegacy is the newest legacy revision: answered to an initialize
// that asks for a revision the server does not know.
const LatestLegacy = "2025-11-25"

// LegacyVersions are the legacy revisions spoken by default, newest first.
func LegacyVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// LogLevels are the syslog levels of MCP logging, least severe first.
func LogLevels() []string {
	return []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
}

// Error codes of MCP.
const (
	CodeResourceNotFound   = -32002
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

var (
	// ErrDrop, returned by a Handler, drops the connection without an
	// answer: stdio stops writing and ServeStdio returns ErrDropped; HTTP
	// aborts the response.
	ErrDrop = errors.New("server: dropping the connection as asked")
	// ErrDropped is what ServeStdio returns after a Handler's ErrDrop.
	ErrDropped = errors.New("server: the connection was dropped")
	// ErrCancelled is the cause of a request's context when the client
	// cancelled it; a Handler returns it (or an error wrapping it) to
	// send no answer, as the spec asks.
	ErrCancelled = errors.New("server: request cancelled by the client")
)

// A Peer sends messages to the client, on whatever path the transport has
// for them. In the modern era Call returns an *InputRequired error the
// Handler passes back, unless the client's retry carries the answer.
type Peer interface {
	Notify(ctx context.Context, method string, params any) error
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// A Handler answers the requests a Server does not answer itself.
type Handler interface {
	Serve(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error)
}

// A HandlerFunc is a Handler.
type HandlerFunc func(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error)

// Serve calls f.
func (f HandlerFunc) Serve(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	return f(ctx, p, req)
}

// A Mux is a Handler with one HandlerFunc per method; other methods
// answer -32601.
type Mux map[string]HandlerFunc

// Serve calls the method's handler.
func (m Mux) Serve(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	if f := m[req.Method]; f != nil {
		return f(ctx, p, req)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// A Canceller is a Handler told of the requests the client cancelled
// (subscriptions ended are not counted).
type Canceller interface {
	Cancelled(id jsonrpc.ID)
}

// A RootsWatcher is a Handler told that its client's roots changed
// (notifications/roots/list_changed, legacy era). It runs on the
// session's reader and must not block.
type RootsWatcher interface {
	RootsChanged()
}

// An Ender is a Handler told, once, that its session ended: stdio's end
// of input, a legacy HTTP session's DELETE, expiry or eviction, or the
// HTTPHandler's Close (the modern era's session and the sessions left).
// It gets no more requests; it stops what it started on its own (timers,
// goroutines) before Ended returns.
type Ender interface {
	Ended()
}

// AfterReply wraps a result with work to do once the reply has been sent.
// In the modern era over streamable HTTP the request's stream is over by
// then: what the work sends to the request's peer is dropped, and only a
// Broadcast (to the subscriptions/listen streams) reaches the client.
type AfterReply struct {
	Result any
	Then   func()
}

// CloseStream ends the HTTP response that carries the request's SSE
// stream now (SEP-1699 polling): what follows waits for the client's GET
// with Last-Event-ID. It reports false where there is no such stream
// (stdio, JSON answers, the modern era).
func CloseStream(p Peer) bool {
	c, ok := p.(interface{ closeStream() bool })
	return ok && c.closeStream()
}

// Options configures a Server. NewSession is required.
type Options struct {
	Era           string   // EraDual (""), EraModern or EraLegacy
	Versions      []string // legacy revisions, newest first; nil: LegacyVersions()
	VersionAnswer string   // forces the protocolVersion answered to initialize

	// NewSession gives the Handler of a session: each legacy session's,
	// and the one that serves modern requests.
	NewSession func(*Session) Handler
	// ServerInfo, Capabilities and Instructions describe the server in
	// initialize and server/discover (and ServerInfo in modern results).
	ServerInfo   func() any
	Capabilities func() map[string]any
	Instructions func() string

	// Early answers a legacy request that comes before initialize; nil
	// answers -32600.
	Early func(ctx context.Context, req *jsonrpc.Request) error
	// Hello is told what a client declared before its initialize or
	// server/discover is answered (and before Hold): a bridge connects
	// its server declaring it. An error is the answer.
	Hello func(ctx context.Context, caps ClientCaps) error
	// Hold is called before answering initialize or server/discover; an
	// error is the answer (a test's server that hangs waits on ctx).
	Hold func(ctx context.Context) error
	// CacheHint gives the ttlMs and cacheScope of a modern result of a
	// list or a read; nil (or !ok) uses 30 s public for lists, 60 s for
	// reads; ok with an empty scope gives none (neither ttlMs nor
	// cacheScope: a server that omits them, for tests).
	CacheHint func(req *jsonrpc.Request) (ttlMs int, scope string, ok bool)
	// MirroredParams names, for a tool, the arguments mirrored into
	// headers (header name → argument), checked in the modern era.
	MirroredParams func(tool string) map[string]string
	// KnownResource reports whether a subscription may name uri.
	KnownResource func(uri string) bool
	// Listened, when set, is told of the resources a modern
	// subscriptions/listen subscribes to (those KnownResource allows)
	// as it opens; the function it returns, if any, is called once the
	// stream ended. A bridge subscribes to them on its servers.
	Listened func(uris []string) (ended func())
	// SessionEnded, when set, is told that a legacy HTTP session ended
	// (DELETE, expired, or the least recently used at MaxSessions): its
	// Handler gets no more requests.
	SessionEnded func(*Session)

	// Log receives diagnostics, each line starting with LogPrefix + ": ";
	// Verbose adds one per message received.
	Log       io.Writer
	LogPrefix string
	Verbose   bool
	// QuietLevel: logging/setLevel is answered without the session's own
	// "log level set to …" log message (a replay, whose recorded server
	// said what it said).
	QuietLevel bool

	// Stdio only: a line written after each answer (a test's garbage).
	Garbage string

	// HTTP only.
	SSE              bool   // answer requests with text/event-stream
	Stateless        bool   // no sessions; GET and DELETE answer 405
	ExpireAfter      int    // forget a session after this many requests (0 = never)
	MaxSessions      int    // legacy sessions kept at most (0: DefaultMaxSessions); the least recently used ends first
	DropAfterPriming bool   // close each SSE answer after its priming event
	RetryMillis      int    // the retry of SSE priming events (0: none)
	BearerToken      string // the bearer token every request must carry, if set
	ResourceName     string // resource_name of the protected resource metadata
	// AllowOrigin decides a request's Origin header (when present); nil
	// allows loopback origins only, as the spec asks against DNS
	// rebinding.
	AllowOrigin func(origin string) bool
	// AllowHost decides a request's Host header; nil allows any. A server
	// on a loopback address sets LoopbackHost: a page that rebinds its own
	// name to 127.0.0.1 (DNS rebinding) sends that name, even where a
	// browser sends no Origin (a same-origin GET).
	AllowHost func(host string) bool
}

// A Server serves MCP with a Handler per session.
type Server struct {
	opts  Options
	logw  io.Writer
	state *stateKey
}

// New returns a Server with opts.
func New(opts Options) *Server {
	if opts.Versions == nil {
		opts.Versions = LegacyVersions()
	}
	if opts.LogPrefix == "" {
		opts.LogPrefix = "server"
	}
	if opts.ServerInfo == nil {
		opts.ServerInfo = func() any { return map[string]any{"name": "mcpwire", "version": "0"} }
	}
	if opts.Capabilities == nil {
		opts.Capabilities = func() map[string]any { return map[string]any{} }
	}
	if opts.Instructions == nil {
		opts.Instructions = func() string { return "" }
	}
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	return &Server{opts: opts, logw: w, state: newStateKey()}
}

// ended tells SessionEnded that sess ended.
func (s *Server) ended(sess *Session) {
	if f := s.opts.SessionEnded; f != nil {
		f(sess)
	}
	sess.end()
}

// Logf writes a diagnostic line with the server's prefix.
func (s *Server) Logf(format string, args ...any) {
	fmt.Fprintf(s.logw, s.opts.LogPrefix+": "+format+"\n", args...)
}

// logRaw writes a line as it is.
func (s *Server) logRaw(format string, args ...any) {
	fmt.Fprintf(s.logw, format+"\n", args...)
}

// ClientCaps are the client capabilities a server looks at.
type ClientCaps struct {
	Roots       *json.RawMessage           `json:"roots,omitempty"`
	Sampling    *json.RawMessage           `json:"sampling,omitempty"`
	Elicitation *json.RawMessage           `json:"elicitation,omitempty"`
	Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
}

// A Session is the state of one MCP session: a legacy session, or the
// one that serves modern requests (each of which brings its own client
// state in _meta, see Modern).
type Session struct {
	srv *Server
	h   Handler

	mu          sync.Mutex
	initialized bool
	lenient     bool // requests before initialize are served (stateless HTTP)
	version     string
	caps        ClientCaps
	level       int // index into LogLevels
	inflight    map[jsonrpc.ID]context.CancelCauseFunc

	hub hub // the modern era's subscriptions/listen streams

	endOnce sync.Once
}

// end tells the session's Handler, once, that the session ended.
func (s *Session) end() {
	s.endOnce.Do(func() {
		if e, ok := s.h.(Ender); ok {
			e.Ended()
		}
	})
}

// NewSession returns a fresh session of s with its Handler.
func (s *Server) NewSession() *Session {
	sess := &Session{srv: s, inflight: map[jsonrpc.ID]context.CancelCauseFunc{}}
	sess.h = s.opts.NewSession(sess)
	return sess
}

// Server returns the session's server.
func (s *Session) Server() *Server { return s.srv }

// SetLenient serves requests before initialize (a stateless server).
func (s *Session) SetLenient() {
	s.mu.Lock()
	s.lenient = true
	s.mu.Unlock()
}

// SetInitialized marks the session initialized (a test's shortcut).
func (s *Session) SetInitialized() {
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
}

// Lenient reports whether requests before initialize are served.
func (s *Session) Lenient() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lenient
}

// Version is the legacy revision initialize agreed on ("" before).
func (s *Session) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Capabilities is what the legacy session's client declared at
// initialize (none before).
func (s *Session) Capabilities() ClientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// LogLevel is the legacy session's log level.
func (s *Session) LogLevel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return LogLevels()[s.level]
}

// Declared reports whether the client declared a capability: in the
// request's _meta (modern), or in initialize (legacy; a lenient session
// assumes it did).
func (s *Session) Declared(ctx context.Context, has func(ClientCaps) bool) bool {
	if mr := Modern(ctx); mr != nil {
		return has(mr.Caps)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lenient || has(s.caps)
}

// Log sends notifications/message when level is at or above the level the
// client asked for: with logging/setLevel (legacy), or in the request's
// _meta (modern; none when the request asked for none).
func (s *Session) Log(ctx context.Context, p Peer, logger, level string, data any) {
	s.mu.Lock()
	min := s.level
	s.mu.Unlock()
	if mr := Modern(ctx); mr != nil {
		min = mr.level
	}
	if min < 0 || indexOf(LogLevels(), level) < min {
		return
	}
	_ = p.Notify(ctx, "notifications/message", map[string]any{"level": level, "logger": logger, "data": data})
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// InvalidParams is a -32602 error.
func InvalidParams(format string, args ...any) error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, format, args...)
}

// Decode unmarshals params into v; absent params leave v as it is; bad
// ones are -32602.
func Decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return InvalidParams("invalid params: %v", err)
	}
	return nil
}

// MustJSON marshals v (nil on failure).
func MustJSON(v any) json.RawMessage {
	b, _ := jsonrpc.MarshalParams(v)
	return b
}

// A Request is a JSON-RPC request as a Handler gets it.
type Request = jsonrpc.Request

// An Error is a JSON-RPC error, for a handler's answer that carries data.
type Error = jsonrpc.Error

// Errorf is a JSON-RPC error with code, for a handler's answer.
func Errorf(code int64, format string, args ...any) error {
	return jsonrpc.NewError(code, format, args...)
}

// The JSON-RPC error codes a handler answers with most.
const (
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
	CodeInternalError  = jsonrpc.CodeInternalError
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
)
