package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/hostile"
	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// latestVersion is answered when the client asks for a version the demo
// does not know.
const latestVersion = mcpserver.LatestLegacy

// logLevels are the syslog levels of MCP logging, least severe first.
func logLevels() []string { return mcpserver.LogLevels() }

// codeResourceNotFound is MCP's error code for an unknown resource.
const codeResourceNotFound = mcpserver.CodeResourceNotFound

var (
	// errCrash asks the transport to die mid-call.
	errCrash = mcpserver.ErrDrop
	// errCancelled is the cause given to a request the client cancelled.
	errCancelled = mcpserver.ErrCancelled
)

// A peer sends messages to the client, on whatever path the transport
// has for them (the server package's Peer, as the demo's tools call it).
type peer interface {
	notify(ctx context.Context, method string, params any) error
	call(ctx context.Context, method string, params any) (json.RawMessage, error)
	raw() mcpserver.Peer
}

// peerOf is a peer on p.
type peerOf struct{ p mcpserver.Peer }

func (w peerOf) notify(ctx context.Context, method string, params any) error {
	return w.p.Notify(ctx, method, params)
}

func (w peerOf) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return w.p.Call(ctx, method, params)
}

func (w peerOf) raw() mcpserver.Peer { return w.p }

// clientCaps are the client capabilities the demo looks at.
type clientCaps = mcpserver.ClientCaps

// inputRequired is a tool's need for the client's input (modern era).
type inputRequired = mcpserver.InputRequired

// A modernReq is what one modern request says of its client.
type modernReq struct{ caps clientCaps }

// modernOf returns the modern request ctx serves, or nil (legacy).
func modernOf(ctx context.Context) *modernReq {
	if mr := mcpserver.Modern(ctx); mr != nil {
		return &modernReq{caps: mr.Caps}
	}
	return nil
}

// A server is the demo's state in one MCP session (the server package
// keeps the protocol's): it answers the requests of the demo's tools,
// resources and prompts.
type server struct {
	opts *Options
	logw io.Writer
	sess *mcpserver.Session

	mu        sync.Mutex
	subs      map[string]bool
	cancelled []string
	calls     int
	tasks     map[string]*demoTask // --tasks, by id
	ended     bool                 // the session ended: no task timer is armed
	stepping  sync.WaitGroup       // the task timers' callbacks running
}

// newMCPServer is the server package's Server for the demo with opts.
func newMCPServer(opts *Options) *mcpserver.Server {
	w := opts.Stderr
	if w == nil {
		w = io.Discard
	}
	d := &server{opts: opts, logw: w} // for what does not depend on a session
	o := mcpserver.Options{
		Era: opts.Era, VersionAnswer: opts.VersionAnswer,
		NewSession: func(sess *mcpserver.Session) mcpserver.Handler {
			h := &server{opts: opts, logw: w, sess: sess, subs: map[string]bool{}}
			if opts.onSession != nil {
				opts.onSession(h)
			}
			return h
		},
		ServerInfo:     func() any { return d.serverInfo() },
		Capabilities:   func() map[string]any { return d.withExtensions(capabilities()) },
		Instructions:   d.instructions,
		Early:          d.early,
		CacheHint:      cacheHintOf(opts.ListCache),
		MirroredParams: func(tool string) map[string]string { return headerParams[tool] },
		KnownResource:  knownResource,
		Log:            w, LogPrefix: "demo", Verbose: opts.Verbose,
		SSE: opts.SSE, Stateless: opts.Stateless, ExpireAfter: opts.ExpireAfter,
		DropAfterPriming: opts.DropAfterPriming, BearerToken: opts.RequireAuth,
		ResourceName: "mcpwire demo server",
	}
	if opts.Garbage {
		o.Garbage = garbageLine
	}
	if opts.Conformance {
		conformanceOptions(&o)
	}
	if opts.HangInitialize {
		o.Hold = func(ctx context.Context) error {
			d.logf("demo: not answering initialize (--hang-initialize)")
			<-ctx.Done()
			return ctx.Err()
		}
	}
	return mcpserver.New(o)
}

const garbageLine = "demo: this line is not JSON-RPC (--garbage)\n"

func (s *server) logf(format string, args ...any) {
	fmt.Fprintf(s.logw, format+"\n", args...)
}

func invalidParams(format string, args ...any) error {
	return mcpserver.InvalidParams(format, args...)
}

// decode unmarshals params into v; absent params leave v as it is.
func decode(params json.RawMessage, v any) error { return mcpserver.Decode(params, v) }

func mustJSON(v any) json.RawMessage { return mcpserver.MustJSON(v) }

// page picks the page of a list of total items that params' cursor asks for.
func page(params json.RawMessage, total, size int) (start, end int, next string, err error) {
	return mcpserver.Page(params, total, size)
}

// listResult is a page of a list under key.
func listResult(key string, items any, next string) map[string]any {
	return mcpserver.ListResult(key, items, next)
}

func encodeCursor(offset int) string { return mcpserver.EncodeCursor(offset) }

// early answers a legacy request before initialize as --early says.
func (s *server) early(ctx context.Context, req *jsonrpc.Request) error {
	if s.opts.Verbose {
		s.logf("demo: <- %s before initialize (--early %s)", req.Method, s.opts.Early)
	}
	switch s.opts.Early {
	case "ignore":
		if s.opts.stdio {
			// Dropped, not held: a real server that ignores an unknown
			// method keeps nothing pending, so stdin's end finds no
			// request to drain and the process exits at once.
			return errCancelled
		}
		<-ctx.Done() // over HTTP, an answer never sent: the request hangs
		return errCancelled
	case "exit":
		return errCrash
	case "initialize-first":
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "initialize first")
	case "unsupported":
		// A code of its own that happens to be -32022: no data.
		return jsonrpc.NewError(-32022, "not ready")
	case "unsupported-legacy":
		e := jsonrpc.NewError(-32022, "Unsupported protocol version")
		e.Data = json.RawMessage(`{"supported":["2025-06-18"],"requested":"2026-07-28"}`)
		return e
	}
	return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%s before initialize", req.Method)
}

// Serve answers the demo's requests, in both eras.
func (s *server) Serve(ctx context.Context, p mcpserver.Peer, req *jsonrpc.Request) (any, error) {
	if req.Method == "resources/subscribe" {
		return s.subscribe(ctx, peerOf{p}, req.Params)
	}
	return s.dispatch(ctx, peerOf{p}, req)
}

// Cancelled records a request the client cancelled (demo://status).
func (s *server) Cancelled(id jsonrpc.ID) {
	s.mu.Lock()
	s.cancelled = append(s.cancelled, id.String())
	s.mu.Unlock()
}

// sendLog sends notifications/message at level, if the client asked for it.
func (s *server) sendLog(ctx context.Context, p peer, level string, data any) {
	s.sess.Log(ctx, p.raw(), "demo", level, data)
}

// dispatch answers the requests both eras share.
func (s *server) dispatch(ctx context.Context, p peer, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case "tools/list":
		if err := s.slowList(ctx, p); err != nil {
			return nil, err
		}
		res, err := s.listTools(req.Params)
		if err != nil || s.opts.ListChanged == 0 {
			return res, err
		}
		return &mcpserver.AfterReply{Result: res, Then: func() { s.listChanged(context.WithoutCancel(ctx), p) }}, nil
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
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
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

// status is the session's state, for demo://status.
func (s *server) status() map[string]any {
	version, level, listening := s.sess.Version(), s.sess.LogLevel(), s.sess.Listening()
	s.mu.Lock()
	defer s.mu.Unlock()
	subs := []string{}
	for u := range s.subs {
		subs = append(subs, u)
	}
	slices.Sort(subs)
	cancelled := append([]string{}, s.cancelled...)
	return map[string]any{
		"protocolVersion": version,
		"logLevel":        level,
		"subscriptions":   subs,
		"cancelled":       cancelled,
		"toolCalls":       s.calls,
		"listening":       listening,
	}
}

// slowList is what --list-changed and --list-delay make of a tools/list:
// list_changed notifications first (and again after the answer), then a
// wait (ended by a cancel).
func (s *server) slowList(ctx context.Context, p peer) error {
	s.listChanged(ctx, p)
	if s.opts.ListDelay <= 0 {
		return nil
	}
	t := time.NewTimer(s.opts.ListDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errCancelled
	}
}

// listChanged sends --list-changed tools/list_changed notifications.
func (s *server) listChanged(ctx context.Context, p peer) {
	for range s.opts.ListChanged {
		_ = p.notify(ctx, "notifications/tools/list_changed", nil)
	}
}
