package demo

// The modern era (MCP 2026-07-28): no initialize, no session. A request
// whose params carry io.modelcontextprotocol/protocolVersion in _meta is
// served on its own, with the client capabilities and log level of that
// _meta; server/discover says which revisions the demo speaks; the
// tools that ask the client something (roots, ask, sample) answer with
// resultType "input_required" and serve the client's retry that carries
// inputResponses and the requestState they gave out; list changes and
// resource updates reach the client on its subscriptions/listen stream.
// Every result carries resultType and serverInfo in _meta; lists and
// reads carry ttlMs and cacheScope.
//
// --era picks what the demo speaks: both eras (the default), modern only
// (initialize is refused with -32022 naming 2026-07-28) or legacy only
// (a modern request is a request before initialize).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// The eras the demo speaks (Options.Era).
const (
	EraDual   = ""       // both (the default)
	EraModern = "modern" // 2026-07-28 only
	EraLegacy = "legacy" // 2024-11-05 … 2025-11-25 only
)

// modernVersion is the modern revision the demo speaks.
const modernVersion = "2026-07-28"

// The error codes of the modern era.
const (
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// Reserved _meta keys.
const (
	metaVersion        = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities   = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel       = "io.modelcontextprotocol/logLevel"
	metaServerInfo     = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// versionsSpoken lists what server/discover and -32022 name.
func (s *server) versionsSpoken() []string {
	if s.opts.Era == EraModern {
		return []string{modernVersion}
	}
	return append([]string{modernVersion}, supportedVersions()...)
}

// A modernReq is what one modern request says of its client.
type modernReq struct {
	version   string
	caps      clientCaps
	level     int // index into logLevels; -1: no log messages
	responses map[string]json.RawMessage
	state     *string
}

type modernKey struct{}

// modernOf returns the modern request ctx serves, or nil (legacy).
func modernOf(ctx context.Context) *modernReq {
	mr, _ := ctx.Value(modernKey{}).(*modernReq)
	return mr
}

// hasModernMeta reports whether params carry the modern protocol version.
func hasModernMeta(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[metaVersion]
	return ok
}

// unsupported is the -32022 error for a version the demo does not speak.
func (s *server) unsupported(requested string) error {
	return &jsonrpc.Error{Code: codeUnsupportedVersion, Message: "Unsupported protocol version",
		Data: mustJSON(map[string]any{"supported": s.versionsSpoken(), "requested": requested})}
}

// refuseLegacy answers a request without the modern _meta when the demo
// speaks the modern era only.
func (s *server) refuseLegacy(req *jsonrpc.Request) error {
	if req.Method == "initialize" {
		var in initializeParams
		_ = json.Unmarshal(req.Params, &in)
		err := s.unsupported(in.ProtocolVersion).(*jsonrpc.Error)
		err.Message = "Unsupported protocol version: this server speaks " + modernVersion + " only (no initialize)"
		return err
	}
	return invalidParams("missing _meta %s: this server speaks %s only", metaVersion, modernVersion)
}

// parseModern reads a modern request's _meta and MRTR members.
func (s *server) parseModern(params json.RawMessage) (*modernReq, error) {
	var p struct {
		Meta           map[string]json.RawMessage `json:"_meta"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, invalidParams("invalid params: %v", err)
	}
	mr := &modernReq{level: -1, responses: p.InputResponses, state: p.RequestState}
	if json.Unmarshal(p.Meta[metaVersion], &mr.version) != nil || mr.version == "" {
		return nil, invalidParams("_meta %s must be a string", metaVersion)
	}
	caps, ok := p.Meta[metaCapabilities]
	if !ok || json.Unmarshal(caps, &mr.caps) != nil {
		return nil, invalidParams("_meta %s is required and must be an object", metaCapabilities)
	}
	if raw, ok := p.Meta[metaLogLevel]; ok {
		var level string
		_ = json.Unmarshal(raw, &level)
		if mr.level = slices.Index(logLevels(), level); mr.level < 0 {
			return nil, invalidParams("unknown log level %s", raw)
		}
	}
	if mr.version != modernVersion {
		return nil, s.unsupported(mr.version)
	}
	return mr, nil
}

// handleModern serves one modern request.
func (s *server) handleModern(ctx context.Context, p peer, req *jsonrpc.Request) (any, error) {
	mr, err := s.parseModern(req.Params)
	if err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, modernKey{}, mr)
	ctx, untrack := s.track(ctx, req)
	defer untrack()
	mp := &modernPeer{p: p, s: s}
	var res any
	switch req.Method {
	case "server/discover":
		if s.opts.HangInitialize {
			s.logf("demo: not answering server/discover (--hang-initialize)")
			<-ctx.Done()
			return nil, ctx.Err()
		}
		caps := capabilities()
		caps = s.withExtensions(caps)
		res = map[string]any{
			"supportedVersions": s.versionsSpoken(),
			"capabilities":      caps,
			"instructions":      s.instructions(),
		}
	case "subscriptions/listen":
		return s.listen(ctx, p, req)
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize":
		// Not part of the modern era.
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s (not in %s)", req.Method, modernVersion)
	default:
		res, err = s.dispatch(ctx, mp, req)
	}
	var ir *inputRequired
	if errors.As(err, &ir) {
		return map[string]any{"resultType": "input_required", "inputRequests": ir.requests, "requestState": ir.state,
			"_meta": map[string]any{metaServerInfo: s.serverInfo()}}, nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == codeResourceNotFound {
		// The modern era's resource not found is invalid params.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: je.Message, Data: je.Data}
	}
	if err != nil {
		return nil, err
	}
	return s.decorate(req, res)
}

// decorate adds what the modern era puts on every result: resultType,
// serverInfo in _meta, and the caching hints of lists and reads.
func (s *server) decorate(req *jsonrpc.Request, res any) (any, error) {
	after, isAfter := res.(*afterReply)
	if isAfter {
		res = after.result
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	if out, ok := s.appendHead(req, raw); ok {
		if isAfter {
			return &afterReply{result: out, then: after.then}, nil
		}
		return out, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	if _, ok := m["resultType"]; !ok { // a task's ("task") is kept
		m["resultType"] = json.RawMessage(`"complete"`)
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(m["_meta"], &meta)
	meta[metaServerInfo] = mustJSON(s.serverInfo())
	m["_meta"] = mustJSON(meta)
	switch req.Method {
	case "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		m["ttlMs"], m["cacheScope"] = json.RawMessage("30000"), json.RawMessage(`"public"`)
	case "resources/read":
		var in struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params, &in)
		if in.URI == "demo://status" {
			m["ttlMs"], m["cacheScope"] = json.RawMessage("0"), json.RawMessage(`"private"`)
		} else {
			m["ttlMs"], m["cacheScope"] = json.RawMessage("60000"), json.RawMessage(`"public"`)
		}
	}
	if isAfter {
		return &afterReply{result: m, then: after.then}, nil
	}
	return m, nil
}

// appendHead is decorate for a result (raw, an object) that has none of
// the members it adds: they are appended to its bytes, which are not
// decoded and encoded again (a big tool result costs one more copy, not
// four). It reports false for any other result.
func (s *server) appendHead(req *jsonrpc.Request, raw []byte) (json.RawMessage, bool) {
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return nil, false
	}
	clash := false
	jsonscan.Members(raw, func(key, _ []byte) bool {
		switch string(key) {
		case "resultType", "_meta", "ttlMs", "cacheScope":
			clash = true
		}
		return !clash
	})
	if clash {
		return nil, false
	}
	head := `"_meta":{` + string(jsonrpc.AppendString(nil, metaServerInfo)) + `:` + string(mustJSON(s.serverInfo())) + `},"resultType":"complete"`
	switch req.Method {
	case "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		head += `,"ttlMs":30000,"cacheScope":"public"`
	case "resources/read":
		var in struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(req.Params, &in)
		if in.URI == "demo://status" {
			head += `,"ttlMs":0,"cacheScope":"private"`
		} else {
			head += `,"ttlMs":60000,"cacheScope":"public"`
		}
	}
	out := make([]byte, 0, len(raw)+len(head)+1)
	out = append(out, raw[:len(raw)-1]...)
	if len(raw) > 2 {
		out = append(out, ',')
	}
	out = append(out, head...)
	return append(out, '}'), true
}

// An inputRequired is a tool's need for the client's input, in the
// modern era: it becomes an InputRequiredResult.
type inputRequired struct {
	requests map[string]any
	state    string
}

func (e *inputRequired) Error() string { return "demo: input required" }

// A modernPeer sends the server's messages of a modern request: progress
// and log messages on the request's own path, list changes and resource
// updates to the subscriptions that asked for them; what was a server
// request is an input request of the answer.
type modernPeer struct {
	p peer
	s *server
}

func (mp *modernPeer) notify(ctx context.Context, method string, params any) error {
	if unrelated(method) {
		mp.s.broadcast(ctx, method, params)
		return nil
	}
	return mp.p.notify(ctx, method, params)
}

// inputKeys are the keys the demo gives its input requests.
var inputKeys = map[string]string{"roots/list": "roots", "elicitation/create": "form", "sampling/createMessage": "llm"}

func (mp *modernPeer) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	mr := modernOf(ctx)
	key := inputKeys[method]
	state := "demo-state:" + key
	if r, ok := mr.responses[key]; ok {
		if mr.state == nil || *mr.state != state {
			return nil, invalidParams("requestState was not sent back unchanged")
		}
		return r, nil
	}
	req := map[string]any{"method": method}
	if params != nil {
		req["params"] = params
	}
	return nil, &inputRequired{requests: map[string]any{key: req}, state: state}
}

// A subscription is an open subscriptions/listen request.
type subscription struct {
	id     jsonrpc.ID
	filter listenFilter
	p      peer
}

type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// wants reports whether the subscription asked for method about uri.
func (sub *subscription) wants(method, uri string) bool {
	f := &sub.filter
	switch method {
	case "notifications/tools/list_changed":
		return f.ToolsListChanged
	case "notifications/prompts/list_changed":
		return f.PromptsListChanged
	case "notifications/resources/list_changed":
		return f.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(f.ResourceSubscriptions, uri)
	}
	return false
}

// hub holds the open subscriptions of a server.
type hub struct {
	mu   sync.Mutex
	subs map[*subscription]bool
}

// withSubscription adds the subscription id to params' _meta.
func withSubscription(params any, id jsonrpc.ID) map[string]any {
	var m map[string]any
	if raw, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[metaSubscriptionID] = id
	m["_meta"] = meta
	return m
}

// broadcast sends a change notification to every subscription that
// asked for it.
func (s *server) broadcast(ctx context.Context, method string, params any) {
	var in struct {
		URI string `json:"uri"`
	}
	if raw, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(raw, &in)
	}
	s.hub.mu.Lock()
	var to []*subscription
	for sub := range s.hub.subs {
		if sub.wants(method, in.URI) {
			to = append(to, sub)
		}
	}
	s.hub.mu.Unlock()
	sort.Slice(to, func(i, j int) bool { return to[i].id.String() < to[j].id.String() })
	for _, sub := range to {
		_ = sub.p.notify(context.WithoutCancel(ctx), method, withSubscription(params, sub.id))
	}
}

// listen serves subscriptions/listen: the acknowledgment with what the
// demo honours, then the notifications asked for, until the client
// cancels (stdio) or closes the stream (HTTP).
func (s *server) listen(ctx context.Context, p peer, req *jsonrpc.Request) (any, error) {
	var in struct {
		Notifications listenFilter `json:"notifications"`
	}
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	ack := in.Notifications
	ack.ResourceSubscriptions = slices.DeleteFunc(slices.Clone(ack.ResourceSubscriptions), func(u string) bool { return !knownResource(u) })
	sub := &subscription{id: req.ID, filter: ack, p: p}
	s.hub.mu.Lock()
	if s.hub.subs == nil {
		s.hub.subs = map[*subscription]bool{}
	}
	s.hub.subs[sub] = true
	s.hub.mu.Unlock()
	defer func() {
		s.hub.mu.Lock()
		delete(s.hub.subs, sub)
		s.hub.mu.Unlock()
	}()
	if err := p.notify(ctx, "notifications/subscriptions/acknowledged", withSubscription(map[string]any{"notifications": ack}, req.ID)); err != nil {
		return nil, err
	}
	for _, u := range ack.ResourceSubscriptions {
		// A subscription starts with the resource's state: one update.
		_ = p.notify(ctx, "notifications/resources/updated", withSubscription(map[string]any{"uri": u}, req.ID))
	}
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), errCancelled) {
		return nil, errCancelled
	}
	return nil, ctx.Err()
}

// listening reports whether id is an open subscription's request.
func (s *server) listening(id jsonrpc.ID) bool {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	for sub := range s.hub.subs {
		if sub.id == id {
			return true
		}
	}
	return false
}

// subscriptions counts the open subscriptions (demo://status).
func (s *server) subscriptions() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.subs)
}

// headerParams are the tool parameters the demo mirrors into headers
// (x-mcp-header), by tool: header name → argument.
var headerParams = map[string]map[string]string{"env": {"Mcp-Param-Env-Name": "name"}}

// checkHeaders checks a modern HTTP request's headers against its body, as
// a server must (2026-07-28 streamable HTTP, "Server Validation"); get
// reads a header (decoded from =?base64?…?=).
func checkHeaders(req *jsonrpc.Request, version string, get func(string) (string, bool)) error {
	mismatch := func(format string, args ...any) error {
		return jsonrpc.NewError(codeHeaderMismatch, "Header mismatch: "+format, args...)
	}
	if v, ok := get("MCP-Protocol-Version"); !ok {
		return mismatch("missing MCP-Protocol-Version header")
	} else if v != version {
		return mismatch("MCP-Protocol-Version %q does not match _meta %q", v, version)
	}
	if m, ok := get("Mcp-Method"); !ok || m != req.Method {
		return mismatch("Mcp-Method %q does not match the method %q", m, req.Method)
	}
	var in struct {
		Name      string                     `json:"name"`
		URI       string                     `json:"uri"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(req.Params, &in)
	switch req.Method {
	case "tools/call", "prompts/get", "resources/read":
		want := in.Name
		if req.Method == "resources/read" {
			want = in.URI
		}
		if n, ok := get("Mcp-Name"); !ok || n != want {
			return mismatch("Mcp-Name %q does not match the body's %q", n, want)
		}
	}
	if req.Method == "tools/call" {
		for header, arg := range headerParams[in.Name] {
			raw, present := in.Arguments[arg]
			h, sent := get(header)
			var v any
			_ = json.Unmarshal(raw, &v)
			switch {
			case !present || v == nil:
				if sent {
					return mismatch("%s sent for an argument that is absent", header)
				}
			case !sent:
				return mismatch("missing %s header for argument %s", header, arg)
			case fmt.Sprint(v) != h:
				return mismatch("%s %q does not match argument %s", header, h, arg)
			}
		}
	}
	return nil
}
