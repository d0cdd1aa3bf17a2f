package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// The modern era (2026-07-28/basic/index.mdx, "_meta"): every request
// carries its protocol version, the client's capabilities and identity in
// params._meta; over streamable HTTP they are mirrored into headers.

// The reserved _meta keys of the modern era.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// The error codes of the modern era (2026-07-28/basic/index.mdx, "Error
// Codes"). A server that answers with one of them speaks the modern era.
const (
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
)

// isModernError reports whether err is one of the modern era's own errors.
func isModernError(err error) (*jsonrpc.Error, bool) {
	if err == nil {
		return nil, false
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return nil, false
	}
	switch je.Code {
	case CodeHeaderMismatch, CodeMissingRequiredClientCapability:
		return je, true
	case CodeUnsupportedProtocolVersion:
		// Recognized by its data.supported list: a legacy server's
		// -32022 of its own means nothing of the sort.
		var data struct {
			Supported json.RawMessage `json:"supported"`
		}
		_ = json.Unmarshal(je.Data, &data)
		return je, len(data.Supported) > 0 && data.Supported[0] == '['
	}
	return je, false
}

// supportedOf reads data.supported of an UnsupportedProtocolVersionError.
func supportedOf(je *jsonrpc.Error) []string {
	var data struct {
		Supported []string `json:"supported"`
	}
	_ = json.Unmarshal(je.Data, &data)
	return data.Supported
}

// A modernState is what every request of a modern session carries: the
// revision, and the encoded members of _meta that do not change.
type modernState struct {
	version string
	base    []byte // `"key":value,…` without braces: version, clientInfo, clientCapabilities
	meta    []byte // `"_meta":{base}`: the member most requests add, as it is

	// The states of the same version declaring another client's
	// capabilities (WithDeclared), by that client's object; bounded.
	mu       sync.Mutex
	variants map[string]*modernState
}

// newModernState encodes the _meta members of version.
func (s *Session) newModernState(version string) (*modernState, error) {
	return s.encodeModernState(version, s.clientCapabilities(version))
}

// encodeModernState encodes the _meta members of version, declaring caps.
func (s *Session) encodeModernState(version string, caps map[string]any) (*modernState, error) {
	b := make([]byte, 0, 256)
	add := func(key string, v any) error {
		raw, err := jsonrpc.MarshalParams(v)
		if err != nil {
			return fmt.Errorf("marshaling _meta %s: %v", key, err)
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, key)
		b = append(b, ':')
		b = append(b, raw...)
		return nil
	}
	if err := add(metaProtocolVersion, version); err != nil {
		return nil, err
	}
	if err := add(metaClientInfo, Implementation{Name: s.opts.ClientName, Version: s.opts.ClientVersion}); err != nil {
		return nil, err
	}
	if err := add(metaClientCapabilities, caps); err != nil {
		return nil, err
	}
	meta := jsonrpc.AppendString(nil, "_meta")
	meta = append(append(append(meta, ":{"...), b...), '}')
	return &modernState{version: version, base: b, meta: meta}, nil
}

// withMeta returns params (a JSON object, or nil) with _meta added: the
// protocol fields, the log level when one was asked for, and extra (the
// caller's members; the protocol fields win over members of the same
// name); more are added beside it, in the same copy. Without the last two the _meta member is the one encoded once
// for the session.
func (m *modernState) withMeta(params json.RawMessage, extra map[string]any, level string, more ...member) (json.RawMessage, error) {
	parts, err := m.withMetaParts(params, extra, level, more...)
	return join(parts), err
}

// withMetaParts is withMeta, the params given in parts to be joined: a
// big member of more (a requestState) is one of them, as it stands.
func (m *modernState) withMetaParts(params json.RawMessage, extra map[string]any, level string, more ...member) ([][]byte, error) {
	if level == "" && len(extra) == 0 && len(more) == 0 {
		return spliceParts(params, []string{"_meta"}, m.meta)
	}
	meta := make([]byte, 0, len(m.base)+64)
	meta = append(meta, '{')
	meta = append(meta, m.base...)
	if level != "" {
		meta = append(meta, ',')
		meta = jsonrpc.AppendString(meta, metaLogLevel)
		meta = append(meta, ':')
		meta = jsonrpc.AppendString(meta, level)
	}
	if len(extra) > 0 {
		keys := make([]string, 0, len(extra))
		for k := range extra {
			switch k {
			case metaProtocolVersion, metaClientInfo, metaClientCapabilities, metaLogLevel:
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, err := jsonrpc.MarshalParams(extra[k])
			if err != nil {
				return nil, fmt.Errorf("marshaling _meta %s: %v", k, err)
			}
			meta = append(meta, ',')
			meta = jsonrpc.AppendString(meta, k)
			meta = append(meta, ':')
			meta = append(meta, v...)
		}
	}
	meta = append(meta, '}')
	return addMemberParts(params, append([]member{{"_meta", meta}}, more...)...)
}

// A member is one member to add to a JSON object.
type member struct {
	key   string
	value []byte // JSON
}

// addMembers returns the JSON object raw (null or absent: an empty object)
// with the members added in front. A member raw already has is replaced.
func addMembers(raw json.RawMessage, members ...member) (json.RawMessage, error) {
	parts, err := addMemberParts(raw, members...)
	return join(parts), err
}

// addMemberParts is addMembers, the object given in parts to be joined:
// a big member's value is one of them, as it stands.
func addMemberParts(raw json.RawMessage, members ...member) ([][]byte, error) {
	keys := make([]string, len(members))
	head := make([][]byte, 0, 2*len(members))
	for i, m := range members {
		keys[i] = m.key
		var name []byte
		if i > 0 {
			name = append(name, ',')
		}
		name = jsonrpc.AppendString(name, m.key)
		head = append(head, append(name, ':'), m.value)
	}
	return spliceParts(raw, keys, head...)
}

// splice returns the JSON object raw (null or absent: an empty object)
// with head (encoded members, `"k":v,…`, whose names are keys, in parts
// to be joined) in front. A member raw already has of those names is
// dropped.
func splice(raw json.RawMessage, keys []string, head ...[]byte) (json.RawMessage, error) {
	parts, err := spliceParts(raw, keys, head...)
	return join(parts), err
}

// spliceParts is splice, the object given in parts to be joined.
func spliceParts(raw json.RawMessage, keys []string, head ...[]byte) ([][]byte, error) {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 || string(body) == "null" {
		body = []byte("{}")
	}
	if body[0] != '{' {
		return nil, errors.New("params are not an object")
	}
	for _, k := range keys {
		if hasName(body, k) {
			var err error
			if body, err = dropMember(body, k); err != nil {
				return nil, err
			}
		}
	}
	rest := bytes.TrimSpace(body[1:])
	parts := make([][]byte, 0, len(head)+3)
	parts = append(append(parts, []byte("{")), head...)
	if len(rest) > 0 && rest[0] != '}' {
		parts = append(parts, []byte(","))
	}
	return append(parts, rest), nil
}

// join returns parts joined, in a slice of the exact size (nil for none).
func join(parts [][]byte) []byte {
	if parts == nil {
		return nil
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// hasName reports whether body may hold a member named key (a quick look
// for the quoted name anywhere; dropMember then looks properly).
func hasName(body []byte, key string) bool {
	for i := 0; ; {
		j := bytes.Index(body[i:], []byte(key))
		if j < 0 {
			return false
		}
		at := i + j
		if at > 0 && body[at-1] == '"' && at+len(key) < len(body) && body[at+len(key)] == '"' {
			return true
		}
		i = at + 1
	}
}

// dropMember returns the object body without its top-level member key.
func dropMember(body []byte, key string) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("params are not an object: %v", err)
	}
	if _, ok := obj[key]; !ok {
		return body, nil
	}
	delete(obj, key)
	return jsonrpc.MarshalParams(obj)
}

// envelope returns what the HTTP binding mirrors of rq into headers
// (2026-07-28/basic/transports/streamable-http.mdx, "Request Metadata"):
// raw values; the transport encodes those that need it.
func (m *modernState) envelope(rq *request) map[string]string {
	env := make(map[string]string, 3+len(rq.extra))
	env["Mcp-Protocol-Version"] = m.version // MCP-Protocol-Version, in the form Go writes (no canonicalizing per request)
	env["Mcp-Method"] = rq.method
	switch rq.method {
	case "tools/call", "resources/read", "prompts/get":
		env["Mcp-Name"] = rq.name
	}
	for k, v := range rq.extra {
		env[k] = v
	}
	return env
}

// modernFields is the state of a modern session that changes, guarded by
// Session.mu.
type modernFields struct {
	level         string                   // the log level asked for ("": none)
	toolHeaders   map[string][]headerParam // x-mcp-header parameters, by tool, from the last listing
	rejected      map[string]string        // tools left out of the listing, with the reason
	subs          map[string]bool          // resource subscriptions
	listen        *listener                // the subscriptions/listen stream, when open
	earlyAcks     map[jsonrpc.ID]*listenFilter
	taskWatch     map[string]*taskWatch // tasks WaitTask follows, by id (notifications/tasks)
	serverInfo    *Implementation       // from the last result's _meta
	serverInfoRaw []byte                // its JSON, as it came
}

// logLevel returns the log level every modern request asks for.
func (s *Session) logLevel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mod.level
}

// switchVersion takes an UnsupportedProtocolVersionError of a modern
// session: when the server supports a modern revision this package
// speaks, the session speaks it from now on and reports true (the request
// is then sent again).
func (s *Session) switchVersion(err error) bool {
	cur := s.modern.Load()
	if cur == nil {
		return false
	}
	je, ok := isModernError(err)
	if !ok || je.Code != CodeUnsupportedProtocolVersion {
		return false
	}
	v := bestCommon(supportedOf(je), EraModern)
	if v == "" {
		return false
	}
	if v != cur.version {
		ms, err := s.newModernState(v)
		if err != nil {
			return false
		}
		s.modern.CompareAndSwap(cur, ms)
	}
	return true
}

// A resultHead is what the modern era puts at the top of every result.
type resultHead struct {
	resultType    string
	inputRequests json.RawMessage
	requestState  json.RawMessage // the JSON string as sent (aliasing the answer), nil when absent
	meta          json.RawMessage
	ttlMs         *int64
	cacheScope    string
}

// take reads the member at c that belongs to the head; it reports whether
// key was one.
func (h *resultHead) take(c *jsonscan.Cursor, key []byte) (bool, error) {
	switch string(key) {
	case "resultType":
		return true, word(c, "resultType", &h.resultType, "complete", "input_required")
	case "inputRequests":
		raw(c, &h.inputRequests)
	case "requestState":
		if c.Null() {
			return true, nil
		}
		// Kept as sent: echoed unchanged without being decoded and
		// encoded again (a big state costs one copy, in the retry).
		if c.Kind() != '"' {
			return true, errors.New("requestState: not a string")
		}
		h.requestState = json.RawMessage(c.Raw())
		if !jsonscan.Valid(h.requestState) {
			return true, errors.New("requestState: not a valid JSON string")
		}
	case "_meta":
		raw(c, &h.meta)
	case "ttlMs":
		return true, small(c, "ttlMs", &h.ttlMs)
	case "cacheScope":
		return true, str(c, "cacheScope", &h.cacheScope)
	default:
		return false, nil
	}
	return true, nil
}

// readHead reads the head of a result.
func readHead(result json.RawMessage) (*resultHead, error) {
	h := &resultHead{}
	c := jsonscan.NewCursor(result)
	if c.Null() {
		return h, nil
	}
	if c.Kind() != '{' {
		return nil, errors.New("the result is not an object")
	}
	err := c.Object(func(key []byte) error {
		_, err := h.take(c, key)
		return err
	})
	return h, err
}

// complete checks the head of a result of method: a missing resultType is
// "complete" (a legacy server's); input_required only where mrtr says it
// may come. It also notes the server's identity from _meta.
func (s *Session) checkHead(method string, h *resultHead, mrtr bool) error {
	if s.era != EraModern {
		return nil
	}
	s.noteMeta(h.meta)
	switch h.resultType {
	case "", "complete":
		return nil
	case "input_required":
		if mrtr {
			return nil
		}
		return &ResultError{Method: method, Err: fmt.Errorf("the server asked for input (resultType input_required), which %s does not take", method)}
	}
	return &ResultError{Method: method, Err: fmt.Errorf("unknown resultType %s", quoteShort(h.resultType))}
}

// checkComplete reads the head of a result of method and checks it.
func (s *Session) checkComplete(method string, result json.RawMessage) error {
	if s.era != EraModern {
		return nil
	}
	h, err := readHead(result)
	if err != nil {
		return &ResultError{Method: method, Err: err}
	}
	return s.checkHead(method, h, false)
}

// noteMeta keeps the server's identity from a result's _meta. A modern
// server may send it with every result: the same bytes as last time are
// taken for the same identity, and cost no decoding.
func (s *Session) noteMeta(meta json.RawMessage) {
	if len(meta) == 0 || !bytes.Contains(meta, []byte(metaServerInfo)) {
		return
	}
	var info []byte
	c := jsonscan.NewCursor(meta)
	if c.Kind() != '{' {
		return
	}
	if c.Object(func(key []byte) error {
		if string(key) == metaServerInfo {
			info = c.Raw()
		}
		return nil
	}) != nil || info == nil {
		return
	}
	s.mu.Lock()
	same := s.mod.serverInfo != nil && bytes.Equal(info, s.mod.serverInfoRaw)
	s.mu.Unlock()
	if same {
		return
	}
	var impl Implementation
	if json.Unmarshal(info, &impl) != nil || impl.Name == "" {
		return
	}
	s.mu.Lock()
	s.mod.serverInfo = &impl
	s.mod.serverInfoRaw = bytes.Clone(info)
	s.mu.Unlock()
}

// ServerInfo returns the server's identity: from initialize (legacy), or
// from the _meta of the latest result that carried it (modern).
func (s *Session) ServerInfo() Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mod.serverInfo != nil {
		return *s.mod.serverInfo
	}
	return s.init.ServerInfo
}

// DiscoverResult is the answer to server/discover.
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	// ServerInfo is the server's identity. The revision puts it in _meta;
	// a member of this name is read too, as some servers send it so.
	ServerInfo *Implementation `json:"serverInfo,omitempty"`
	TTLMs      *int64          `json:"ttlMs,omitempty"`
	CacheScope string          `json:"cacheScope,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
	ResultType string          `json:"resultType,omitempty"`
}

// identity returns the server's identity of a discover answer.
func (d *DiscoverResult) identity() Implementation {
	if len(d.Meta) > 0 {
		var m map[string]json.RawMessage
		if json.Unmarshal(d.Meta, &m) == nil {
			var impl Implementation
			if json.Unmarshal(m[metaServerInfo], &impl) == nil && impl.Name != "" {
				return impl
			}
		}
	}
	if d.ServerInfo != nil {
		return *d.ServerInfo
	}
	return Implementation{}
}

// discoverOnce sends server/discover asking for version, bounded by
// timeout, and reads the answer. It reports found false when the answer
// is a result but not a discover result (a server of the legacy era
// answering anything at all).
func (s *Session) discoverOnce(ctx context.Context, version string, timeout time.Duration) (res *DiscoverResult, found bool, err error) {
	sc, err := s.startDiscover(ctx, version, timeout)
	if err != nil {
		return nil, false, err
	}
	return s.discoverResult(sc.wait())
}

// startDiscover sends server/discover asking for version, the session
// speaking it from now on.
func (s *Session) startDiscover(ctx context.Context, version string, timeout time.Duration) (*sessionCall, error) {
	ms, err := s.newModernState(version)
	if err != nil {
		return nil, err
	}
	s.modern.Store(ms)
	return s.startCall(ctx, &request{method: "server/discover", probe: true, opts: &CallOptions{Timeout: timeout}})
}

// discoverResult reads the answer to server/discover: found is false
// for a result that is not a DiscoverResult.
func (s *Session) discoverResult(resp *jsonrpc.Response, err error) (res *DiscoverResult, found bool, _ error) {
	if err != nil {
		return nil, false, err
	}
	var probe struct {
		SupportedVersions json.RawMessage `json:"supportedVersions"`
	}
	raw := resp.Result
	if json.Unmarshal(raw, &probe) != nil || !declared(probe.SupportedVersions) {
		return nil, false, nil
	}
	res = &DiscoverResult{}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, false, &ResultError{Method: "server/discover", Err: err}
	}
	if res.ResultType != "" && res.ResultType != "complete" {
		return nil, false, &ResultError{Method: "server/discover", Err: fmt.Errorf("unexpected resultType %s", quoteShort(res.ResultType))}
	}
	return res, true, nil
}
