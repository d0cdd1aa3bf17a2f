package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Request metadata beside the message (2026-07-28/basic/transports/
// streamable-http.mdx, "Request Metadata"): the streamable HTTP transport
// mirrors the protocol version, the method, the name and the parameters a
// tool marks with x-mcp-header into headers. The session computes them
// and hands them to the stream through the request's context; the stream
// encodes the values.

// An envelopeWriter is a stream that carries request metadata beside a
// message (transport.HTTPConn): env maps header names to raw values.
type envelopeWriter interface {
	WriteEnvelope(ctx context.Context, msg jsonrpc.Message, env map[string]string) error
}

type envelopeKey struct{}

// withEnvelope returns ctx carrying env for the stream's Write.
func withEnvelope(ctx context.Context, env map[string]string) context.Context {
	return context.WithValue(ctx, envelopeKey{}, env)
}

// An envelopeStream hands the envelope of a request, when its context has
// one, to the stream below.
type envelopeStream struct {
	_ [0]func() // not comparable: no equality function in the binary

	jsonrpc.Stream
	ew envelopeWriter
}

func (e *envelopeStream) Write(ctx context.Context, msg jsonrpc.Message) error {
	if env, ok := ctx.Value(envelopeKey{}).(map[string]string); ok {
		return e.ew.WriteEnvelope(ctx, msg, env)
	}
	return e.Stream.Write(ctx, msg)
}

// A headerParam is a tool parameter mirrored into a header (x-mcp-header).
type headerParam struct {
	header string   // "Mcp-Param-<name>"
	path   []string // the chain of properties keys that leads to it
	typ    string   // "string", "integer" or "boolean"
}

// toolHeaderParams reads the x-mcp-header annotations of a tool's
// inputSchema and checks them as SEP-2243 says: a non-empty token, unique
// without regard to case, on a parameter of type string, integer or
// boolean, reached from the root through properties keys alone. An error
// says why the tool must be left out.
func toolHeaderParams(schema json.RawMessage) ([]headerParam, error) {
	if !declared(schema) || !bytes.Contains(schema, []byte("x-mcp-header")) {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("its inputSchema is not JSON: %v", err)
	}
	var params []headerParam
	seen := map[string]string{} // lower-case name → the name as written
	var walk func(node any, path []string, reachable bool) error
	walk = func(node any, path []string, reachable bool) error {
		switch n := node.(type) {
		case []any:
			for _, it := range n {
				if err := walk(it, path, false); err != nil {
					return err
				}
			}
		case map[string]any:
			if v, ok := n["x-mcp-header"]; ok {
				p, err := headerParamAt(n, v, path, reachable)
				if err != nil {
					return err
				}
				low := strings.ToLower(p.header)
				if first, dup := seen[low]; dup {
					return fmt.Errorf("x-mcp-header %q repeats %q (header names ignore case)", strings.TrimPrefix(p.header, "Mcp-Param-"), first)
				}
				seen[low] = strings.TrimPrefix(p.header, "Mcp-Param-")
				params = append(params, p)
			}
			keys := make([]string, 0, len(n))
			for k := range n {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == "properties" {
					if props, ok := n[k].(map[string]any); ok {
						names := make([]string, 0, len(props))
						for name := range props {
							names = append(names, name)
						}
						sort.Strings(names)
						for _, name := range names {
							sub := append(append([]string(nil), path...), name)
							if err := walk(props[name], sub, reachable); err != nil {
								return err
							}
						}
						continue
					}
				}
				if err := walk(n[k], path, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, nil, true); err != nil {
		return nil, err
	}
	return params, nil
}

// headerParamAt checks one x-mcp-header annotation (value v) on the schema
// node n at path.
func headerParamAt(n map[string]any, v any, path []string, reachable bool) (headerParam, error) {
	where := "the schema's root"
	if len(path) > 0 {
		where = "parameter " + strings.Join(path, ".")
	}
	name, ok := v.(string)
	switch {
	case !ok:
		return headerParam{}, fmt.Errorf("x-mcp-header of %s is not a string", where)
	case name == "":
		return headerParam{}, fmt.Errorf("x-mcp-header of %s is empty", where)
	case !isToken(name):
		return headerParam{}, fmt.Errorf("x-mcp-header %q of %s is not an HTTP field-name token", name, where)
	case !reachable || len(path) == 0:
		return headerParam{}, fmt.Errorf("x-mcp-header %q is on %s, which is not reached from the root through properties alone", name, where)
	}
	typ, _ := n["type"].(string)
	if types, ok := n["type"].([]any); ok {
		// A nullable parameter (["string", "null"]): null values are left
		// out, so the one other type is what is mirrored.
		var others []any
		for _, t := range types {
			if t != "null" {
				others = append(others, t)
			}
		}
		if len(others) == 1 && len(types) == 2 {
			typ, _ = others[0].(string)
		}
	}
	switch typ {
	case "string", "integer", "boolean":
	default:
		shown := typ
		if shown == "" {
			b, _ := json.Marshal(n["type"])
			shown = string(b)
		}
		return headerParam{}, fmt.Errorf("x-mcp-header %q is on %s of type %s; only string, integer and boolean parameters may be mirrored", name, where, shown)
	}
	return headerParam{header: "Mcp-Param-" + name, path: path, typ: typ}, nil
}

// isToken reports whether s is an HTTP token (RFC 9110 tchar+).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

// headerValues returns the headers of params for the arguments args (a
// JSON object): the value at each parameter's path, as text; absent and
// null values are left out.
func headerValues(params []headerParam, args json.RawMessage) map[string]string {
	if len(params) == 0 || !declared(args) {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var root any
	if d.Decode(&root) != nil {
		return nil
	}
	out := map[string]string{}
	for _, p := range params {
		var v any = root
		for _, k := range p.path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		switch v := v.(type) {
		case string:
			out[p.header] = v
		case json.Number:
			out[p.header] = v.String()
		case bool:
			out[p.header] = fmt.Sprint(v)
		}
	}
	return out
}

// A ToolRejectedError reports a call of a tool that was left out of the
// tool list because its x-mcp-header annotations are invalid.
type ToolRejectedError struct {
	Tool   string
	Reason string
}

func (e *ToolRejectedError) Error() string {
	return fmt.Sprintf("tools/call: tool %s was left out of the server's tool list: %s", quoteShort(e.Tool), e.Reason)
}

// screenTools leaves out of a listed page the tools whose x-mcp-header
// annotations are invalid, and remembers the parameters of the others
// (modern era over HTTP only; elsewhere the page is kept as it is).
func (s *Session) screenTools(tools []*Tool) []*Tool {
	if s.era != EraModern || !s.headers {
		return tools
	}
	out := tools[:0]
	var rejected [][2]string
	s.mu.Lock()
	if s.mod.toolHeaders == nil {
		s.mod.toolHeaders = map[string][]headerParam{}
		s.mod.rejected = map[string]string{}
	}
	for _, t := range tools {
		params, err := toolHeaderParams(t.InputSchema)
		if err != nil {
			s.mod.rejected[t.Name] = err.Error()
			delete(s.mod.toolHeaders, t.Name)
			rejected = append(rejected, [2]string{t.Name, err.Error()})
			continue
		}
		delete(s.mod.rejected, t.Name)
		if len(params) > 0 { // most tools have none: no entry (a missing one reads as none)
			s.mod.toolHeaders[t.Name] = params
		} else {
			delete(s.mod.toolHeaders, t.Name)
		}
		out = append(out, t)
	}
	s.mu.Unlock()
	if s.opts.OnToolRejected != nil {
		for _, r := range rejected {
			s.opts.OnToolRejected(r[0], r[1])
		}
	}
	return out
}

// toolHeaders returns the header parameters of the tool name as far as the
// session knows them: from a listing on this session, or the tools
// Options.KnownTools gave (a cache). An unknown tool has none: the call goes
// without Mcp-Param-* headers, and a server that wants them refuses it with
// -32020 before running it. With relist (after that answer) the tools are
// listed first, as the transport page says a client should. An error when
// the tool was left out of the list.
func (s *Session) toolHeaders(ctx context.Context, name string, relist bool) ([]headerParam, error) {
	if relist {
		if _, err := s.ListTools(ctx); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	params := s.mod.toolHeaders[name]
	reason, rejected := s.mod.rejected[name]
	s.mu.Unlock()
	if rejected {
		return nil, &ToolRejectedError{Tool: name, Reason: reason}
	}
	return params, nil
}

// knowHeaders learns the x-mcp-header parameters of tools a previous
// listing of the server gave (Options.KnownTools), without listing; a tool
// whose annotations are invalid is left unknown (a listing screens it).
func (s *Session) knowHeaders(tools []*Tool) {
	if s.era != EraModern || !s.headers || len(tools) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mod.toolHeaders == nil {
		s.mod.toolHeaders = map[string][]headerParam{}
		s.mod.rejected = map[string]string{}
	}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if params, err := toolHeaderParams(t.InputSchema); err == nil && len(params) > 0 {
			s.mod.toolHeaders[t.Name] = params
		}
	}
}
