package server

// The modern era (MCP 2026-07-28): no initialize, no session. A request
// whose params carry io.modelcontextprotocol/protocolVersion in _meta is
// served on its own, with the client capabilities and log level of that
// _meta; server/discover says which revisions are spoken; a call to the
// client becomes resultType "input_required" and the client's retry
// carries inputResponses and the requestState given out; list changes and
// resource updates reach the client on its subscriptions/listen stream.
// Every result carries resultType and serverInfo in _meta; lists and
// reads carry ttlMs and cacheScope.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// Reserved _meta keys.
const (
	MetaVersion        = "io.modelcontextprotocol/protocolVersion"
	MetaCapabilities   = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel       = "io.modelcontextprotocol/logLevel"
	MetaServerInfo     = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// versionsSpoken lists what server/discover and -32022 name.
func (s *Server) versionsSpoken() []string {
	if s.opts.Era == EraModern {
		return []string{ModernVersion}
	}
	return append([]string{ModernVersion}, s.opts.Versions...)
}

// A ModernRequest is what one modern request says of its client.
type ModernRequest struct {
	Version   string
	Caps      ClientCaps
	level     int // index into LogLevels; -1: no log messages
	Responses map[string]json.RawMessage
	State     *string
}

type modernKey struct{}

// Modern returns the modern request ctx serves, or nil (legacy).
func Modern(ctx context.Context) *ModernRequest {
	mr, _ := ctx.Value(modernKey{}).(*ModernRequest)
	return mr
}

// hasModernMeta reports whether params carry the modern protocol version.
func hasModernMeta(params json.RawMessage) bool {
	if has, ok := fastHasMeta(params); ok {
		return has
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[MetaVersion]
	return ok
}

// unsupported is the -32022 error for a version not spoken.
func (s *Server) unsupported(requested string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: CodeUnsupportedVersion, Message: "Unsupported protocol version",
		Data: MustJSON(map[string]any{"supported": s.versionsSpoken(), "requested": requested})}
}

// refuseLegacy answers a request without the modern _meta when the
// server speaks the modern era only.
func (s *Session) refuseLegacy(req *jsonrpc.Request) error {
	if req.Method == "initialize" {
		var in InitializeParams
		_ = json.Unmarshal(req.Params, &in)
		err := s.srv.unsupported(in.ProtocolVersion)
		err.Message = "Unsupported protocol version: this server speaks " + ModernVersion + " only (no initialize)"
		return err
	}
	return InvalidParams("missing _meta %s: this server speaks %s only", MetaVersion, ModernVersion)
}

// parseModern reads a modern request's _meta and MRTR members.
func (s *Server) parseModern(params json.RawMessage) (*ModernRequest, error) {
	if mr, ok := s.fastModern(params); ok {
		return mr, nil
	}
	var p struct {
		Meta           map[string]json.RawMessage `json:"_meta"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, InvalidParams("invalid params: %v", err)
	}
	mr := &ModernRequest{level: -1, Responses: p.InputResponses, State: p.RequestState}
	if json.Unmarshal(p.Meta[MetaVersion], &mr.Version) != nil || mr.Version == "" {
		return nil, InvalidParams("_meta %s must be a string", MetaVersion)
	}
	caps, ok := p.Meta[MetaCapabilities]
	if !ok || json.Unmarshal(caps, &mr.Caps) != nil {
		return nil, InvalidParams("_meta %s is required and must be an object", MetaCapabilities)
	}
	if raw, ok := p.Meta[MetaLogLevel]; ok {
		var level string
		_ = json.Unmarshal(raw, &level)
		if mr.level = slices.Index(LogLevels(), level); mr.level < 0 {
			return nil, InvalidParams("unknown log level %s", raw)
		}
	}
	if mr.Version != ModernVersion {
		return nil, s.unsupported(mr.Version)
	}
	return mr, nil
}

// handleModern serves one modern request.
func (s *Session) handleModern(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	mr, err := s.srv.parseModern(req.Params)
	if err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, modernKey{}, mr)
	ctx, untrack := s.track(ctx, req)
	defer untrack()
	mp := &modernPeer{p: p, s: s}
	o := &s.srv.opts
	var res any
	switch req.Method {
	case "server/discover":
		if o.Hello != nil {
			if err := o.Hello(ctx, mr.Caps); err != nil {
				return nil, err
			}
		}
		if o.Hold != nil {
			if err := o.Hold(ctx); err != nil {
				return nil, err
			}
		}
		res = s.srv.discoverBody()
	case "subscriptions/listen":
		return s.listen(ctx, p, req)
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize":
		// Not part of the modern era.
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s (not in %s)", req.Method, ModernVersion)
	default:
		res, err = s.h.Serve(ctx, mp, req)
	}
	var ir *InputRequired
	if errors.As(err, &ir) {
		res := map[string]any{"resultType": "input_required", "inputRequests": ir.Requests,
			"_meta": map[string]any{MetaServerInfo: o.ServerInfo()}}
		if ir.State != "" {
			res["requestState"] = ir.State
		}
		return res, nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == CodeResourceNotFound {
		// The modern era's resource not found is invalid params.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: je.Message, Data: je.Data}
	}
	if err != nil {
		return nil, err
	}
	return s.srv.decorate(req, res)
}

// cacheHint is the ttlMs and cacheScope of a modern result, if any.
func (s *Server) cacheHint(req *jsonrpc.Request) (string, bool) {
	switch req.Method {
	case "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read":
	default:
		return "", false
	}
	ttl, scope := 30000, "public"
	if req.Method == "resources/read" {
		ttl = 60000
	}
	if s.opts.CacheHint != nil {
		if t, sc, ok := s.opts.CacheHint(req); ok {
			if sc == "" {
				return "", false // no hint at all (a test's server)
			}
			ttl, scope = t, sc
		}
	}
	return `"ttlMs":` + itoa(ttl) + `,"cacheScope":` + string(jsonrpc.AppendString(nil, scope)), true
}

func itoa(n int) string { return string(MustJSON(n)) }

// decorate adds what the modern era puts on every result: resultType,
// serverInfo in _meta, and the caching hints of lists and reads.
func (s *Server) decorate(req *jsonrpc.Request, res any) (any, error) {
	after, isAfter := res.(*AfterReply)
	if isAfter {
		res = after.Result
	}
	raw, isRaw := res.(passed) // a target's result, passed on as it came
	if !isRaw {
		var err error
		if raw, err = json.Marshal(res); err != nil {
			return nil, err
		}
	}
	out, ok := s.appendHead(req, raw)
	if !ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			m = map[string]json.RawMessage{}
		}
		if _, ok := m["resultType"]; !ok { // a task's ("task") is kept
			m["resultType"] = json.RawMessage(`"complete"`)
		}
		meta := map[string]json.RawMessage{}
		_ = json.Unmarshal(m["_meta"], &meta)
		meta[MetaServerInfo] = MustJSON(s.opts.ServerInfo())
		m["_meta"] = MustJSON(meta)
		if hint, ok := s.cacheHint(req); ok {
			var h map[string]json.RawMessage
			_ = json.Unmarshal([]byte("{"+hint+"}"), &h)
			for k, v := range h {
				m[k] = v
			}
		}
		out = MustJSON(m)
	}
	if isAfter {
		return &AfterReply{Result: out, Then: after.Then}, nil
	}
	return out, nil
}

// headKey is the index of a member of a result's head that appendHead
// replaces (resultType, ttlMs, cacheScope), or -1.
func headKey(key []byte) int {
	switch string(key) {
	case "resultType":
		return 0
	case "ttlMs":
		return 1
	case "cacheScope":
		return 2
	}
	return -1
}

// appendHead is decorate for a result (raw, an object) that has none of
// the members it adds but perhaps _meta (an object, whose serverInfo is
// then replaced), resultType "complete", and the ttlMs and cacheScope of
// a result that gets its own (a modern server's result passed on, whose
// members are dropped for the ones added): its members are copied as
// they stand, not decoded and encoded again (a big tool result costs one
// more copy, not four). It reports false for any other result.
func (s *Server) appendHead(req *jsonrpc.Request, raw []byte) (json.RawMessage, bool) {
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return nil, false
	}
	hint, hinted := s.cacheHint(req)
	var meta []byte
	clash, dropped := false, false
	var seen [3]bool // by headKey
	jsonscan.Members(raw, func(key, val []byte) bool {
		if string(key) == "_meta" {
			clash = meta != nil || val[0] != '{'
			meta = val
		} else if i := headKey(key); i >= 0 {
			clash = seen[i] || (i == 0 && string(val) != `"complete"`) || (i > 0 && !hinted)
			seen[i], dropped = true, true
		}
		return !clash
	})
	if clash {
		return nil, false
	}
	info := jsonrpc.AppendString(nil, MetaServerInfo)
	head := append([]byte(`"_meta":{`), info...)
	head = append(append(head, ':'), MustJSON(s.opts.ServerInfo())...)
	if meta != nil && !eachMember(meta, func(k string, v []byte) {
		if k != MetaServerInfo {
			head = append(jsonrpc.AppendString(append(head, ','), k), ':')
			head = append(head, v...)
		}
	}) {
		return nil, false
	}
	head = append(head, `},"resultType":"complete"`...)
	if hinted {
		head = append(append(head, ','), hint...)
	}
	out := make([]byte, 0, len(raw)+len(head)+1)
	if meta == nil && !dropped {
		out = append(out, bytes.TrimRight(raw[:len(raw)-1], " \t\r\n")...) // "{ }" is "{"
	} else {
		out = append(out, '{')
		jsonscan.Members(raw, func(key, val []byte) bool {
			if i := headKey(key); string(key) != "_meta" && (i < 0 || !seen[i]) {
				out = append(append(append(append(out, '"'), key...), `":`...), val...)
				out = append(out, ',')
			}
			return true
		})
	}
	if len(out) > 1 && out[len(out)-1] != ',' {
		out = append(out, ',')
	}
	out = append(out, head...)
	return append(out, '}'), true
}

// An InputRequired is a handler's need for the client's input, in the
// modern era: it becomes an InputRequiredResult.
type InputRequired struct {
	Requests map[string]any
	State    string
}

func (e *InputRequired) Error() string { return "server: input required" }

// A modernPeer sends the server's messages of a modern request: progress
// and log messages on the request's own path, list changes and resource
// updates to the subscriptions that asked for them; what was a server
// request is an input request of the answer.
type modernPeer struct {
	_ [0]func() // not comparable: no equality function in the binary

	p Peer
	s *Session
}

func (mp *modernPeer) Notify(ctx context.Context, method string, params any) error {
	if unrelated(method) {
		mp.s.broadcast(ctx, method, params)
		return nil
	}
	return mp.p.Notify(ctx, method, params)
}

// inputKeys are the keys given to input requests, by method.
var inputKeys = map[string]string{"roots/list": "roots", "elicitation/create": "form", "sampling/createMessage": "llm"}

// inputKey is the key of an input request for method.
func inputKey(method string) string {
	if k, ok := inputKeys[method]; ok {
		return k
	}
	return method
}

func (mp *modernPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	mr := Modern(ctx)
	key := inputKey(method)
	state := "demo-state:" + key
	if r, ok := mr.Responses[key]; ok {
		if mr.State == nil || *mr.State != state {
			return nil, InvalidParams("requestState was not sent back unchanged")
		}
		return r, nil
	}
	req := map[string]any{"method": method}
	if params != nil {
		req["params"] = params
	}
	return nil, &InputRequired{Requests: map[string]any{key: req}, State: state}
}

// unrelated reports whether a notification is not about the call that
// caused it, and so belongs on the standalone stream (legacy HTTP) or to
// the subscriptions (modern).
func unrelated(method string) bool {
	switch method {
	case "notifications/tools/list_changed", "notifications/resources/list_changed",
		"notifications/prompts/list_changed", "notifications/resources/updated":
		return true
	}
	return false
}
