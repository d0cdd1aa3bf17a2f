package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// CallTool calls the tool name with args (marshaled to a JSON object; nil
// sends no arguments) and returns its result. A tool's own failure is a
// result with IsError set, not an error. When the tool was listed on this
// session with an outputSchema, the result's structuredContent is checked
// against it and any mismatch is reported in OutputProblem.
func (s *Session) CallTool(ctx context.Context, name string, args any, opts *CallOptions) (*CallToolResult, error) {
	if err := s.require("tools/call", "tools"); err != nil {
		return nil, err
	}
	// {"name":…,"arguments":…} by hand: the arguments are the only part
	// that needs encoding/json.
	params := jsonrpc.AppendString(append(make([]byte, 0, 64), `{"name":`...), name)
	if args != nil {
		a, err := jsonrpc.MarshalParams(args)
		if err != nil {
			return nil, &MethodError{Method: "tools/call", Err: fmt.Errorf("marshaling tools/call params: %v", err)}
		}
		params = append(append(params, `,"arguments":`...), a...)
	}
	params = append(params, '}')
	resp, err := s.callResponse(ctx, "tools/call", json.RawMessage(params), opts)
	if err != nil {
		return nil, err
	}
	res, err := decodeCallResult(resp.Cursor())
	if err != nil {
		return nil, &ResultError{Method: "tools/call", Err: err}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	if !res.IsError {
		s.mu.Lock()
		schema := s.outSchemas[name]
		s.mu.Unlock()
		if schema != nil {
			res.OutputProblem = CheckOutput(schema, res.StructuredContent)
		}
	}
	return res, nil
}

// rememberSchemas keeps the output schemas of listed tools for CallTool.
func (s *Session) rememberSchemas(tools []*Tool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range tools {
		if declared(t.OutputSchema) {
			s.outSchemas[t.Name] = t.OutputSchema
		} else {
			delete(s.outSchemas, t.Name)
		}
	}
}

// CheckOutput checks structured content against a tool's output schema,
// shallowly: the content must be an object, hold every required member,
// and each member the schema's properties give a "type" must be of it. It
// returns "" when the content passes, else what is wrong.
func CheckOutput(schema, content json.RawMessage) string {
	if !declared(content) {
		return "the tool has an outputSchema but the result has no structuredContent"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(content, &obj) != nil {
		return "structuredContent is not a JSON object"
	}
	var sch struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &sch) != nil {
		return "" // a schema we cannot read constrains nothing we can check
	}
	var problems []string
	for _, r := range sch.Required {
		if _, ok := obj[r]; !ok {
			problems = append(problems, fmt.Sprintf("required member %q is missing", r))
		}
	}
	names := make([]string, 0, len(sch.Properties))
	for n := range sch.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		v, ok := obj[n]
		if !ok {
			continue
		}
		want := schemaTypes(sch.Properties[n].Type)
		if len(want) == 0 {
			continue
		}
		got := jsonType(v)
		if !slices.Contains(want, got) && !(got == "integer" && slices.Contains(want, "number")) {
			problems = append(problems, fmt.Sprintf("member %q is %s, not %s", n, got, strings.Join(want, " or ")))
		}
	}
	return strings.Join(problems, "; ")
}

// schemaTypes reads a JSON Schema "type": a string or a list of them.
func schemaTypes(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// jsonType names the JSON Schema type of a valid JSON value.
func jsonType(v json.RawMessage) string {
	t := strings.TrimSpace(string(v))
	if t == "" {
		return "null"
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if strings.ContainsAny(t, ".eE") {
		var f float64
		if json.Unmarshal(v, &f) == nil && f == float64(int64(f)) {
			return "integer"
		}
		return "number"
	}
	return "integer"
}
