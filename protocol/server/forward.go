package server

// The forwarder: one client session (a protocol.Session with a server)
// served as a server, in either era to either era. The proxy of mcpwire
// is a Server with a Forwarder's options: the host never sees the
// target's transport, era, tokens or process.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
	"github.com/mcpwire/mcpwire/protocol"
)

// A Forwarder forwards a host's requests to a target session and the
// target's notifications and requests to the host. Make it with
// NewForwarder, give ClientOptions to the target's session, then call
// Attach with that session and serve the Server of Options.
type Forwarder struct {
	// CacheTools answers tools/list from the target's last full list
	// until it says its tools changed (a session's daemon: the manager
	// lists again only on list_changed too). Set it before serving.
	CacheTools bool

	mu     sync.Mutex
	target *protocol.Session
	hosts  map[*Session]Peer // the host sessions, with the peer of their last request
	ready  chan struct{}
	gate   ToolGate         // nil: every tool passes
	tools  []*protocol.Tool // the cached list (CacheTools); nil when none
	// toolsGen counts the target's tools list_changed: a list made
	// before one is not cached after it.
	toolsGen int

	dial     Dial                      // nil: Attach gives the target
	dialing  chan struct{}             // held by the one dial running
	declared ClientCaps                // what the target was connected declaring (with dial)
	retire   func(*protocol.Session)   // a replaced target no request uses (SetRetire)
	uses     map[*protocol.Session]int // the requests using each target (forward_retire.go)
	draining []*protocol.Session       // replaced targets that requests still use, oldest first

	// A host's roots changed: the target is told, once for the
	// notifications that come while it is (rootsChanged).
	rootsBusy, rootsAgain atomic.Bool

	relay *InputRelay    // a modern host's requests that the target asks input of
	subs  *Subscriptions // the hosts' resource subscriptions, made on the target

	info atomic.Pointer[encodedInfo] // the serverInfo of the last initialize result, encoded
}

// encodedInfo is an initialize result's serverInfo as JSON text: a
// modern host's every result carries it.
type encodedInfo struct {
	init *protocol.InitializeResult
	raw  json.RawMessage
}

// serverInfo is in's serverInfo, encoded once per initialize result.
func (f *Forwarder) serverInfo(in *protocol.InitializeResult) json.RawMessage {
	if e := f.info.Load(); e != nil && e.init == in {
		return e.raw
	}
	raw := MustJSON(in.ServerInfo)
	f.info.Store(&encodedInfo{init: in, raw: raw})
	return raw
}

// NewForwarder returns a Forwarder without a target yet.
func NewForwarder() *Forwarder {
	f := &Forwarder{hosts: map[*Session]Peer{}, uses: map[*protocol.Session]int{}, ready: make(chan struct{}), relay: NewInputRelay()}
	f.subs = NewSubscriptions(Upstream{
		Subscribe: func(ctx context.Context, uri string) error {
			t, err := f.acquire(ctx)
			if err != nil {
				return err
			}
			defer f.release(t)
			return t.Subscribe(ctx, uri)
		},
		Unsubscribe: func(ctx context.Context, uri string) error {
			t, err := f.acquire(ctx)
			if err != nil {
				return err
			}
			defer f.release(t)
			return t.Unsubscribe(ctx, uri)
		},
	})
	return f
}

// Release ends every host session (a stdio host's end of input): their
// subscriptions on the target end with them.
func (f *Forwarder) Release() {
	f.mu.Lock()
	hosts := make([]*Session, 0, len(f.hosts))
	for s := range f.hosts {
		hosts = append(hosts, s)
	}
	f.mu.Unlock()
	for _, s := range hosts {
		f.ended(s)
	}
}

// ended forgets s, a host session that ended, and its subscriptions.
func (f *Forwarder) ended(s *Session) {
	f.mu.Lock()
	delete(f.hosts, s)
	f.mu.Unlock()
	f.subs.Release(s)
}

// Attach gives the forwarder its target; the server answers from then
// on. (SetDial instead connects it when a host declares what it can.)
func (f *Forwarder) Attach(target *protocol.Session) {
	f.mu.Lock()
	f.target = target
	f.mu.Unlock()
	close(f.ready)
}

// ClientOptions sets, in opts, what the target's session needs to reach
// the host: change notifications and log messages passed on, and the
// server requests (roots, elicitation, sampling) asked of the host that
// sent the request in flight (a legacy host; a modern host is asked
// nothing: the target gets an error).
func (f *Forwarder) ClientOptions(opts *protocol.Options) {
	changed := func(method string) func() {
		return func() { f.notifyAll(method, nil) }
	}
	toolsChanged := changed("notifications/tools/list_changed")
	opts.OnToolsChanged = func() {
		f.mu.Lock()
		f.tools = nil
		f.toolsGen++
		f.mu.Unlock()
		toolsChanged()
	}
	opts.OnPromptsChanged = changed("notifications/prompts/list_changed")
	opts.OnResourcesChanged = changed("notifications/resources/list_changed")
	opts.OnResourceUpdated = func(uri string) { f.notifyAll("notifications/resources/updated", map[string]any{"uri": uri}) }
	opts.OnLog = func(p protocol.LogParams) {
		f.notifyAll("notifications/message", map[string]any{"level": p.Level, "logger": p.Logger, "data": p.Data})
	}
	opts.Roots = func(ctx context.Context) ([]protocol.Root, error) {
		var out struct {
			Roots []protocol.Root `json:"roots"`
		}
		err := f.askHost(ctx, "roots/list", nil, &out)
		return out.Roots, err
	}
	opts.Elicit = func(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
		var out protocol.ElicitResult
		err := f.askHost(ctx, "elicitation/create", p, &out)
		return &out, err
	}
	opts.Sample = func(ctx context.Context, p json.RawMessage) (any, error) {
		var out json.RawMessage
		err := f.askHost(ctx, "sampling/createMessage", p, &out)
		return out, err
	}
}

// notifyAll sends a notification to every host session: on its peer
// (legacy) and to its subscriptions (modern).
func (f *Forwarder) notifyAll(method string, params any) {
	f.mu.Lock()
	hosts := make(map[*Session]Peer, len(f.hosts))
	for s, p := range f.hosts {
		hosts[s] = p
	}
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for s, p := range hosts {
		if unrelated(method) {
			s.Broadcast(ctx, method, params)
		}
		if p != nil {
			if method == "notifications/resources/updated" && !f.subs.Holds(s, updatedURI(params)) {
				continue
			}
			if method == "notifications/message" {
				level, _ := params.(map[string]any)["level"].(string)
				s.Log(ctx, p, fmt.Sprint(params.(map[string]any)["logger"]), level, params.(map[string]any)["data"])
				continue
			}
			_ = p.Notify(ctx, method, params)
		}
	}
}

// updatedURI is the uri of a resources/updated notification's params.
func updatedURI(params any) string {
	m, _ := params.(map[string]any)
	uri, _ := m["uri"].(string)
	return uri
}

// askHost sends a server request to a host that can answer it.
func (f *Forwarder) askHost(ctx context.Context, method string, params, out any) error {
	f.mu.Lock()
	var peers []Peer
	var sessions []*Session
	for s, p := range f.hosts {
		if p != nil {
			peers, sessions = append(peers, p), append(sessions, s)
		}
	}
	f.mu.Unlock()
	var peer Peer
	for i, s := range sessions {
		if s.Version() != "" && declares(s.Capabilities(), method) {
			peer = peers[i]
			break
		}
	}
	// The request of a modern host the ask belongs to; else the one
	// running (a legacy target's request names none); else a legacy host.
	raw, asked, err := f.relay.Ask(ctx, method, params)
	switch {
	case asked:
	case peer != nil:
		raw, err = peer.Call(ctx, method, params)
	default:
		return jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "%s: no host behind the proxy declared it (no legacy session that did, no request of a modern one)", method)
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// Options fills base with what the forwarder serves: the target's
// identity, capabilities and instructions, and a handler per session.
func (f *Forwarder) Options(base Options) Options {
	init := func() *protocol.InitializeResult {
		select {
		case <-f.ready: // attached: no timer (asked on every modern result)
			f.mu.Lock()
			t := f.target
			f.mu.Unlock()
			if t != nil {
				return t.Init()
			}
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		t, err := f.acquire(ctx)
		if err != nil {
			return &protocol.InitializeResult{}
		}
		defer f.release(t)
		if t == nil {
			return &protocol.InitializeResult{}
		}
		return t.Init()
	}
	base.ServerInfo = func() any { return f.serverInfo(init()) }
	base.Capabilities = func() map[string]any {
		var m map[string]any
		b, _ := json.Marshal(init().Capabilities)
		_ = json.Unmarshal(b, &m)
		delete(m, "tasks")
		if m == nil {
			m = map[string]any{}
		}
		return m
	}
	base.Instructions = func() string { return init().Instructions }
	base.KnownResource = func(string) bool { return true }
	base.Hello = f.hello
	base.SessionEnded = f.ended
	base.Listened = f.subs.Listened
	base.NewSession = func(s *Session) Handler {
		f.mu.Lock()
		f.hosts[s] = nil
		f.mu.Unlock()
		return &forwardSession{f: f, s: s}
	}
	return base
}

// A forwardSession is one host session of a Forwarder.
type forwardSession struct {
	f *Forwarder
	s *Session
}

// Serve forwards one request.
func (fs *forwardSession) Serve(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	mr := Modern(ctx)
	if mr == nil {
		fs.f.mu.Lock()
		fs.f.hosts[fs.s] = p
		fs.f.mu.Unlock()
	}
	if fs.f.dial != nil {
		var caps ClientCaps
		if mr != nil {
			caps = mr.Caps
		} else {
			caps = fs.s.Capabilities()
		}
		if err := fs.f.hello(ctx, caps); err != nil {
			return nil, hostError(err)
		}
	}
	t, err := fs.f.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer fs.f.release(t)
	ctx = fs.f.carry(ctx, t, fs.s)
	g := fs.f.toolGate()
	if err := gateCall(g, req); err != nil {
		return nil, err
	}
	var res any
	if req.Method == "resources/subscribe" || req.Method == "resources/unsubscribe" {
		res, err = fs.subscribe(ctx, req)
	} else if req.Method == "tools/list" && fs.f.CacheTools {
		res, err = fs.f.listTools(ctx, t)
	} else if fs.f.relay.Relays(ctx, req.Method) {
		res, err = fs.f.relay.Serve(ctx, func(rctx context.Context) (any, error) { return forward(rctx, t, p, req) })
	} else {
		res, err = forward(ctx, t, p, req)
	}
	if err == nil {
		res = gateList(ctx, g, req, res)
	}
	return res, hostError(err)
}

// subscribe is a legacy host's resources/subscribe or unsubscribe,
// counted with the other hosts': the target is unsubscribed when the
// last host that held the resource lets it go.
func (fs *forwardSession) subscribe(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := Decode(req.Params, &in); err != nil {
		return nil, err
	}
	if req.Method == "resources/unsubscribe" {
		fs.f.subs.Unsubscribe(ctx, fs.s, in.URI)
		return struct{}{}, nil
	}
	return struct{}{}, fs.f.subs.Subscribe(ctx, fs.s, in.URI)
}

// listTools answers tools/list from the cache, filled when empty.
func (f *Forwarder) listTools(ctx context.Context, t *protocol.Session) (any, error) {
	tools, err := f.cachedTools(ctx, t)
	if err != nil {
		return nil, err
	}
	return map[string]any{"tools": tools}, nil
}

// hostError is the error the host gets: the target's JSON-RPC error as
// it was, anything else an internal error that says what failed.
func hostError(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	var ir *InputRequired
	if errors.As(err, &ir) || errors.Is(err, ErrCancelled) {
		return err
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "proxy: %v", err)
}

func forward(ctx context.Context, t *protocol.Session, p Peer, req *jsonrpc.Request) (any, error) {
	if req.Method == "tools/call" {
		if name, args, tok, ok := callParams(req.Params); ok {
			return forwardCall(ctx, t, p, name, args, tok)
		}
	}
	var in struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		Ref       protocol.Reference
		Argument  struct{ Name, Value string }
		Context   struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := Decode(req.Params, &in); err != nil {
		return nil, err
	}
	switch req.Method {
	case "tools/list":
		tools, err := t.ListTools(ctx)
		return map[string]any{"tools": nonNil(tools)}, err
	case "tools/call":
		return forwardCall(ctx, t, p, in.Name, in.Arguments, in.Meta.ProgressToken)
	case "resources/list":
		rs, err := t.ListResources(ctx)
		return map[string]any{"resources": nonNil(rs)}, err
	case "resources/templates/list":
		rs, err := t.ListResourceTemplates(ctx)
		return map[string]any{"resourceTemplates": nonNil(rs)}, err
	case "resources/read":
		return passTo(ctx).pass(t.ReadResourceRaw(ctx, in.URI))
	case "prompts/list":
		ps, err := t.ListPrompts(ctx)
		return map[string]any{"prompts": nonNil(ps)}, err
	case "prompts/get":
		var a struct {
			Arguments map[string]string `json:"arguments"`
		}
		_ = json.Unmarshal(req.Params, &a)
		return passTo(ctx).pass(t.GetPromptRaw(ctx, in.Name, a.Arguments))
	case "completion/complete":
		return t.Complete(ctx, in.Ref, in.Argument.Name, in.Argument.Value, in.Context.Arguments)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// forwardCall calls the tool name with args (raw; none when empty),
// passing the target's progress on under the host's token tok, if any.
func forwardCall(ctx context.Context, t *protocol.Session, p Peer, name string, args json.RawMessage, tok json.RawMessage) (any, error) {
	opts := &protocol.CallOptions{}
	if len(tok) > 0 && string(tok) != "null" {
		opts.Progress = func(pp protocol.ProgressParams) {
			pp.ProgressToken = tok
			_ = p.Notify(ctx, "notifications/progress", pp)
		}
	}
	return passTo(ctx).pass(t.CallToolRaw(ctx, name, args, opts))
}

// A passed result is a target's result passed on as it came: JSON text
// the target's session decoded (valid, one object). The session serves
// it without encoding it again: as it is to a legacy host, with the
// modern head replaced to a modern one (decorate).
type passed json.RawMessage

// A host is the era of the host a target's result is passed to.
type host struct{ legacy bool }

// passTo is the host of the request ctx serves.
func passTo(ctx context.Context) host { return host{legacy: Modern(ctx) == nil} }

// pass is the target's result raw (or its error) as the host's era has
// it: without the modern head members for a legacy host. (A result that
// spans lines is put on one when its answer is encoded.)
func (h host) pass(raw json.RawMessage, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if h.legacy {
		raw = withoutHead(raw)
	}
	return passed(raw), nil
}

// withoutHead is the result raw without the members the modern era puts
// at its top (resultType, a list's or read's ttlMs and cacheScope, and
// serverInfo in _meta), which a legacy result does not have; raw itself
// when it has none. A _meta left empty goes too.
func withoutHead(raw json.RawMessage) json.RawMessage {
	found := false
	jsonscan.Members(raw, func(key, val []byte) bool {
		found = modernHead(key, val)
		return !found
	})
	if !found {
		return raw
	}
	out := append(make([]byte, 0, len(raw)), '{')
	jsonscan.Members(raw, func(key, val []byte) bool {
		if isKey(key, "_meta") {
			val = withoutServerInfo(val)
		} else if modernHead(key, val) {
			val = nil
		}
		if val != nil {
			out = appendMember(out, key, val)
		}
		return true
	})
	return append(out, '}')
}

// modernHead reports whether the member key: val of a result's top is
// the modern era's only (or a _meta that holds serverInfo).
func modernHead(key, val []byte) bool {
	switch string(key) {
	case "resultType", "ttlMs", "cacheScope":
		return true
	}
	if !isKey(key, "_meta") {
		return false
	}
	has := false
	jsonscan.Members(val, func(k, _ []byte) bool {
		has = isKey(k, MetaServerInfo)
		return !has
	})
	return has
}

// isKey reports whether key, a member's name as it was quoted, is name.
func isKey(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == name
	}
	u, err := jsonscan.Unquote(append(append([]byte{'"'}, key...), '"'))
	return err == nil && u == name
}

// withoutServerInfo is the _meta meta without its serverInfo; nil when
// nothing else is in it.
func withoutServerInfo(meta []byte) []byte {
	if !modernHead([]byte("_meta"), meta) {
		return meta
	}
	out := []byte{'{'}
	jsonscan.Members(meta, func(key, val []byte) bool {
		if !isKey(key, MetaServerInfo) {
			out = appendMember(out, key, val)
		}
		return true
	})
	if len(out) == 1 {
		return nil
	}
	return append(out, '}')
}

// appendMember appends the member key: val (key as it was quoted) to
// out, an object begun.
func appendMember(out, key, val []byte) []byte {
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(append(append(append(out, '"'), key...), `":`...), val...)
}

// callParams reads a tools/call's name, arguments and progress token
// without reflection; ok is false when only encoding/json can (an escape
// in a member's name, a name that is not a string, null arguments).
func callParams(params []byte) (name string, args, tok json.RawMessage, ok bool) {
	v, ok := members(params, "name", "arguments", "_meta")
	if !ok || len(v[0]) < 2 || v[0][0] != '"' || string(v[1]) == "null" {
		return "", nil, nil, false
	}
	name, err := jsonscan.Unquote(v[0])
	if err != nil {
		return "", nil, nil, false
	}
	if !isNull(v[2]) {
		if v[2][0] != '{' {
			return "", nil, nil, false
		}
		m, ok := members(v[2], "progressToken")
		if !ok {
			return "", nil, nil, false
		}
		tok = m[0]
	}
	return name, v[1], tok, true
}

// nonNil keeps an empty list a list ([], not null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
