package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/mcpwire/mcpwire/internal/hostile"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// latestVersion is answered when the client asks for a version the demo
// does not know.
const latestVersion = "2025-11-25"

// supportedVersions are the protocol versions the demo answers, newest first.
func supportedVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// logLevels are the syslog levels of MCP logging, least severe first.
func logLevels() []string {
	return []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
}

// codeResourceNotFound is MCP's error code for an unknown resource.
const codeResourceNotFound = -32002

var (
	// errCrash asks the transport to die mid-call.
	errCrash = errors.New("demo: crashing as asked")
	// errCancelled is the cause given to a request the client cancelled.
	errCancelled = errors.New("demo: request cancelled by the client")
)

// A peer sends messages to the client, on whatever path the transport
// has for them.
type peer interface {
	notify(ctx context.Context, method string, params any) error
	call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// afterReply wraps a result with work to do once the reply has been sent.
type afterReply struct {
	result any
	then   func()
}

// A server is the state of one MCP session on the demo server.
type server struct {
	opts *Options
	logw io.Writer

	mu          sync.Mutex
	initialized bool
	version     string
	caps        clientCaps
	level       int // index into logLevels
	subs        map[string]bool
	inflight    map[jsonrpc.ID]context.CancelCauseFunc
	cancelled   []string
	calls       int
	lenient     bool                 // requests before initialize are served (stateless HTTP)
	tasks       map[string]*demoTask // --tasks, by id

	hub hub // the modern era's subscriptions/listen streams
}

type clientCaps struct {
	Roots       *json.RawMessage           `json:"roots,omitempty"`
	Sampling    *json.RawMessage           `json:"sampling,omitempty"`
	Elicitation *json.RawMessage           `json:"elicitation,omitempty"`
	Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
}

func newServer(opts *Options) *server {
	w := opts.Stderr
	if w == nil {
		w = io.Discard
	}
	return &server{opts: opts, logw: w, subs: map[string]bool{}, inflight: map[jsonrpc.ID]context.CancelCauseFunc{}}
}

func (s *server) logf(format string, args ...any) {
	fmt.Fprintf(s.logw, format+"\n", args...)
}

func invalidParams(format string, args ...any) error {
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, format, args...)
}

// decode unmarshals params into v; absent params leave v as it is.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// handle answers one request from the client: a modern one (with the
// protocol version in _meta) statelessly, a legacy one within the session
// that initialize opened.
func (s *server) handle(ctx context.Context, p peer, req *jsonrpc.Request) (any, error) {
	if s.opts.Era != EraLegacy && req.Method != "initialize" && hasModernMeta(req.Params) {
		return s.handleModern(ctx, p, req)
	}
	switch req.Method {
	case "initialize", "ping":
		if s.opts.Verbose {
			s.logf("demo: <- %s", req.Method)
		}
	}
	if s.opts.Era == EraModern {
		return nil, s.refuseLegacy(req)
	}
	switch req.Method {
	case "initialize":
		return s.initialize(ctx, req)
	case "ping":
		return struct{}{}, nil
	}
	s.mu.Lock()
	ready := s.initialized || s.lenient
	s.mu.Unlock()
	if !ready {
		if s.opts.Verbose {
			s.logf("demo: <- %s before initialize (--early %s)", req.Method, s.opts.Early)
		}
		switch s.opts.Early {
		case "ignore":
			<-ctx.Done()
			return nil, errCancelled
		case "exit":
			return nil, errCrash
		case "initialize-first":
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "initialize first")
		case "unsupported":
			// A code of its own that happens to be -32022: no data.
			return nil, jsonrpc.NewError(-32022, "not ready")
		case "unsupported-legacy":
			e := jsonrpc.NewError(-32022, "Unsupported protocol version")
			e.Data = json.RawMessage(`{"supported":["2025-06-18"],"requested":"2026-07-28"}`)
			return nil, e
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%s before initialize", req.Method)
	}
	ctx, untrack := s.track(ctx, req)
	defer untrack()
	if req.Method == "resources/subscribe" {
		return s.subscribe(ctx, p, req.Params)
	}
	return s.dispatch(ctx, p, req)
}

// track registers req as in flight, so that notifications/cancelled can
// end it; untrack forgets it.
func (s *server) track(ctx context.Context, req *jsonrpc.Request) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	s.inflight[req.ID] = cancel
	s.mu.Unlock()
	if s.opts.Verbose {
		// Logged once the request can be cancelled, so that a test may
		// wait for this line before cancelling.
		s.logf("demo: <- %s", req.Method)
	}
	return ctx, func() {
		s.mu.Lock()
		delete(s.inflight, req.ID)
		s.mu.Unlock()
		cancel(nil)
	}
}

// dispatch answers the requests both eras share.
func (s *server) dispatch(ctx context.Context, p peer, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case "tools/list":
		return s.listTools(req.Params)
	case "tools/call":
		return s.callTool(ctx, p, req)
	case "resources/list":
		return s.listResources(req.Params)
	case "resources/templates/list":
		return s.listTemplates(req.Params)
	case "resources/read":
		return s.readResource(req.Params)
	case "resources/unsubscribe":
		var in struct {
			URI string `json:"uri"`
		}
		if err := decode(req.Params, &in); err != nil {
			return nil, err
		}
		s.mu.Lock()
		delete(s.subs, in.URI)
		s.mu.Unlock()
		return struct{}{}, nil
	case "prompts/list":
		return s.listPrompts(req.Params)
	case "prompts/get":
		return s.getPrompt(req.Params)
	case "completion/complete":
		return s.complete(req.Params)
	case "tasks/get", "tasks/update", "tasks/cancel":
		return s.taskMethod(ctx, req)
	case "skills/list", "skills/get", "resources/directory/read":
		return s.skillMethod(req)
	case "logging/setLevel":
		return s.setLevel(ctx, p, req.Params)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// notification takes a notification from the client. It does not block.
func (s *server) notification(req *jsonrpc.Request) {
	if s.opts.Verbose {
		s.logf("demo: <- %s", req.Method)
	}
	switch req.Method {
	case "notifications/initialized":
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
	case "notifications/cancelled":
		var in struct {
			RequestID jsonrpc.ID `json:"requestId"`
			Reason    string     `json:"reason"`
		}
		if err := decode(req.Params, &in); err != nil || !in.RequestID.IsValid() {
			s.logf("demo: bad notifications/cancelled")
			return
		}
		s.mu.Lock()
		cancel := s.inflight[in.RequestID]
		s.mu.Unlock()
		if cancel != nil {
			// Recorded here, when it arrives, so that demo://status read
			// after it shows it, whenever the request notices (a
			// subscription ended is no cancelled work).
			if !s.listening(in.RequestID) {
				s.recordCancel(in.RequestID)
			}
			cancel(errCancelled)
		}
	}
}

// recordCancel notes that the request id was cancelled by the client.
func (s *server) recordCancel(id jsonrpc.ID) {
	s.mu.Lock()
	s.cancelled = append(s.cancelled, id.String())
	s.mu.Unlock()
	s.logf("cancelled %s", id)
}

type initializeParams struct {
	ProtocolVersion string     `json:"protocolVersion"`
	Capabilities    clientCaps `json:"capabilities"`
	ClientInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

func (s *server) initialize(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if s.opts.HangInitialize {
		s.logf("demo: not answering initialize (--hang-initialize)")
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var in initializeParams
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	version := in.ProtocolVersion
	if !slices.Contains(supportedVersions(), version) {
		version = latestVersion
	}
	if s.opts.VersionAnswer != "" {
		version = s.opts.VersionAnswer
	}
	s.mu.Lock()
	s.version = version
	s.caps = in.Capabilities
	s.initialized = true // lenient: the initialized notification is not awaited
	s.mu.Unlock()
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    s.withExtensions(capabilities()),
		"serverInfo":      s.serverInfo(),
		"instructions":    s.instructions(),
	}, nil
}

// instructions are the demo's instructions to a model.
const instructions = "This is mcpwire's built-in demo server. Try the echo tool " +
	"(mcpwire call --demo echo text=hello) or add (a=2 b=3); read demo://readme."

// capabilities are the demo's server capabilities, in both eras.
func capabilities() map[string]any {
	return map[string]any{
		"tools":       map[string]any{"listChanged": true},
		"resources":   map[string]any{"subscribe": true, "listChanged": true},
		"prompts":     map[string]any{"listChanged": true},
		"completions": struct{}{},
		"logging":     struct{}{},
	}
}

// withExtensions adds the extensions the options serve to caps: Tasks
// (modern era only), Skills.
func (s *server) withExtensions(caps map[string]any) map[string]any {
	ext := map[string]any{}
	if s.opts.Tasks {
		ext[extTasks] = struct{}{}
	}
	if s.opts.Skills != "" {
		ext[extSkills] = skillsCapability()
	}
	if len(ext) > 0 {
		caps["extensions"] = ext
	}
	return caps
}

// serverInfo is the demo's identity.
func (s *server) serverInfo() map[string]any {
	if s.opts.Hostile {
		return map[string]any{"name": "mcpwire-demo " + hostile.Strings[0].S, "title": "mcpwire demo server " + hostile.All(),
			"version": s.serverVersion() + " " + hostile.Strings[2].S}
	}
	return map[string]any{
		"name":    "mcpwire-demo",
		"title":   "mcpwire demo server",
		"version": s.serverVersion(),
	}
}

func (s *server) setLevel(ctx context.Context, p peer, params json.RawMessage) (any, error) {
	var in struct {
		Level string `json:"level"`
	}
	if err := decode(params, &in); err != nil {
		return nil, err
	}
	i := slices.Index(logLevels(), in.Level)
	if i < 0 {
		return nil, invalidParams("unknown log level %q", in.Level)
	}
	s.mu.Lock()
	s.level = i
	s.mu.Unlock()
	return &afterReply{result: struct{}{}, then: func() {
		s.sendLog(context.WithoutCancel(ctx), p, in.Level, "log level set to "+in.Level)
	}}, nil
}

// sendLog sends notifications/message when level is at or above the
// level the client asked for: with logging/setLevel (legacy), or in the
// request's _meta (modern; none when the request asked for none).
func (s *server) sendLog(ctx context.Context, p peer, level string, data any) {
	s.mu.Lock()
	min := s.level
	s.mu.Unlock()
	if mr := modernOf(ctx); mr != nil {
		min = mr.level
	}
	if min < 0 || slices.Index(logLevels(), level) < min {
		return
	}
	_ = p.notify(ctx, "notifications/message", map[string]any{"level": level, "logger": "demo", "data": data})
}

// status is the session's state, for demo://status.
func (s *server) status() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	subs := []string{}
	for u := range s.subs {
		subs = append(subs, u)
	}
	slices.Sort(subs)
	cancelled := append([]string{}, s.cancelled...)
	return map[string]any{
		"protocolVersion": s.version,
		"logLevel":        logLevels()[s.level],
		"subscriptions":   subs,
		"cancelled":       cancelled,
		"toolCalls":       s.calls,
		"listening":       s.subscriptions(),
	}
}
