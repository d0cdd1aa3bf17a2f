package demo

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// maxBig bounds the big tool's answer.
const maxBig = 1 << 30

type toolDef struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  *annotations    `json:"annotations,omitempty"`
	Execution    *execution      `json:"execution,omitempty"`
	Icons        json.RawMessage `json:"icons,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

type annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint,omitempty"`
	DestructiveHint bool `json:"destructiveHint,omitempty"`
	IdempotentHint  bool `json:"idempotentHint,omitempty"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

type toolResult struct {
	Content           []any `json:"content"`
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func textResult(s string) *toolResult { return &toolResult{Content: []any{text(s)}} }

func toolError(format string, args ...any) *toolResult {
	return &toolResult{Content: []any{text(fmt.Sprintf(format, args...))}, IsError: true}
}

func schema(props string, required ...string) json.RawMessage {
	req := ""
	if len(required) > 0 {
		b, _ := json.Marshal(required)
		req = `,"required":` + string(b)
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `}` + req + `}`)
}

// baseTools are the demo's own tools, in list order.
func baseTools() []toolDef {
	ro := &annotations{ReadOnlyHint: true, IdempotentHint: true}
	return []toolDef{
		{Name: "echo", Title: "Echo", Description: "Returns the text it is given.",
			InputSchema: schema(`"text":{"type":"string","description":"the text to echo"}`, "text"), Annotations: ro},
		{Name: "add", Title: "Add two numbers", Description: "Adds a and b; the sum comes as text and as structured content.",
			InputSchema:  schema(`"a":{"type":"number"},"b":{"type":"number"}`, "a", "b"),
			OutputSchema: schema(`"sum":{"type":"number"}`, "sum"), Annotations: ro},
		{Name: "sleep", Title: "Sleep", Description: "Waits ms milliseconds, then answers; stops when cancelled.",
			InputSchema: schema(`"ms":{"type":"integer","minimum":0}`, "ms"), Annotations: ro},
		{Name: "fail", Title: "Fail", Description: "Always answers with a tool error (isError).",
			InputSchema: schema(``)},
		{Name: "big", Title: "Big answer", Description: "Returns one text content of exactly bytes bytes ('x' repeated, or pattern).",
			InputSchema: schema(`"bytes":{"type":"integer","minimum":0},"pattern":{"type":"string"}`, "bytes"), Annotations: ro},
		{Name: "crash", Title: "Crash", Description: "Exits the server with status 3 in the middle of the call.",
			InputSchema: schema(``), Annotations: &annotations{DestructiveHint: true}},
		{Name: "notify", Title: "Notify", Description: "Sends tools/list_changed, three progress notifications (with a progressToken) and a log message.",
			InputSchema: schema(``)},
		{Name: "env", Title: "Environment variable", Description: "Returns the value of the server's environment variable name (mirrored into the Mcp-Param-Env-Name header over HTTP in the modern era).",
			InputSchema: schema(`"name":{"type":"string","x-mcp-header":"Env-Name"}`, "name"), Annotations: ro},
		{Name: "roots", Title: "Roots", Description: "Asks the client for its roots (roots/list) and returns them.",
			InputSchema: schema(``), Annotations: ro},
		{Name: "ask", Title: "Ask the user", Description: "Asks the user a form (elicitation/create) and returns the answer.",
			InputSchema: schema(``)},
		{Name: "sample", Title: "Sample", Description: "Asks the client's model (sampling/createMessage) and returns the answer.",
			InputSchema: schema(`"prompt":{"type":"string"}`)},
		{Name: "image", Title: "Media", Description: "Returns an image, an audio clip, a resource link and an embedded resource.",
			InputSchema: schema(``), Annotations: ro},
	}
}

// extraName is the name of the i-th extra tool, from 1.
func extraName(i int) string { return fmt.Sprintf("tool-%04d", i) }

func extraTool(i int) toolDef {
	return toolDef{Name: extraName(i), Description: fmt.Sprintf("Extra tool number %d; answers with its name.", i),
		InputSchema: schema(`"text":{"type":"string"}`)}
}

func (s *server) listTools(params json.RawMessage) (any, error) {
	base := baseTools()
	if s.nextReleaseOn() {
		base = nextRelease(base)
	}
	if s.opts.Tasks {
		base = append(base, taskTools()...)
	}
	if s.opts.Apps {
		base = append(base, appTool())
	}
	if s.opts.Hostile {
		base = append(base, hostileTools()...)
	}
	if s.opts.Icons {
		base = append(base, toolDef{Name: "pictured", Description: "Has icons of every scheme; a client keeps the https: and data: ones.",
			InputSchema: schema(``), Icons: json.RawMessage(`[{"src":"https://example.com/pictured.png","mimeType":"image/png"},` +
				`{"src":"data:image/png;base64,iVBORw0KGgo=","mimeType":"image/png"},{"src":"javascript:alert(1)"},{"src":"file:///etc/passwd"}]`)})
	}
	if s.opts.Union {
		base = append(base, toolDef{Name: "either", Description: "Takes a or b.", InputSchema: json.RawMessage(
			`{"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}`)})
	}
	if err := s.describe(base); err != nil {
		return nil, err
	}
	total := len(base) + s.opts.ExtraTools
	start, end, next, err := page(params, total, s.opts.PageSize)
	if err != nil {
		return nil, err
	}
	out := make([]toolDef, 0, end-start)
	for i := start; i < end; i++ {
		if i < len(base) {
			out = append(out, base[i])
		} else {
			out = append(out, extraTool(i-len(base)+1))
		}
	}
	return listResult("tools", out, next), nil
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// args unmarshals a tool's arguments; a bad one is a tool error, as the
// spec asks for input validation failures.
func args(raw json.RawMessage, v any) *toolResult {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return toolError("invalid arguments: %v", err)
	}
	return nil
}

func (s *server) callTool(ctx context.Context, p peer, req *jsonrpc.Request) (any, error) {
	var in callParams
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.calls++
	first := s.calls == 1
	s.mu.Unlock()
	if first && s.opts.CrashOnFirstCall {
		return nil, errCrash
	}
	if s.opts.Tasks && isTaskTool(in.Name) {
		return s.createTask(ctx, p, &in)
	}
	res, err := s.runTool(ctx, p, req.ID, &in)
	if res == nil && err == nil {
		return nil, invalidParams("unknown tool %q", in.Name)
	}
	return res, err
}

func (s *server) runTool(ctx context.Context, p peer, id jsonrpc.ID, in *callParams) (*toolResult, error) {
	switch in.Name {
	case "echo":
		var a struct {
			Text *string `json:"text"`
		}
		if r := args(in.Arguments, &a); r != nil {
			return r, nil
		}
		if a.Text == nil {
			return toolError("missing argument text"), nil
		}
		return textResult(*a.Text), nil
	case "add":
		var a struct {
			A, B *float64
		}
		if r := args(in.Arguments, &a); r != nil {
			return r, nil
		}
		if a.A == nil || a.B == nil {
			return toolError("arguments a and b are both required numbers"), nil
		}
		sum := *a.A + *a.B
		r := textResult(strconv.FormatFloat(sum, 'g', -1, 64))
		r.StructuredContent = map[string]float64{"sum": sum}
		return r, nil
	case "sleep":
		var a struct {
			MS int64 `json:"ms"`
		}
		if r := args(in.Arguments, &a); r != nil {
			return r, nil
		}
		t := time.NewTimer(time.Duration(a.MS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return textResult(fmt.Sprintf("slept %d ms", a.MS)), nil
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errCancelled) {
				return nil, errCancelled
			}
			return nil, ctx.Err()
		}
	case "fail":
		return toolError("this tool always fails (as asked)"), nil
	case "big":
		var a struct {
			Bytes   int64  `json:"bytes"`
			Pattern string `json:"pattern"`
		}
		if r := args(in.Arguments, &a); r != nil {
			return r, nil
		}
		if a.Bytes < 0 || a.Bytes > maxBig {
			return toolError("bytes must be between 0 and %d", maxBig), nil
		}
		if a.Pattern == "" {
			a.Pattern = "x"
		}
		n := int(a.Bytes)
		reps := n/len(a.Pattern) + 1
		return textResult(strings.Repeat(a.Pattern, reps)[:n]), nil
	case "crash":
		return nil, errCrash
	case "notify":
		_ = p.notify(ctx, "notifications/tools/list_changed", nil)
		if tok := in.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
			for i := 1; i <= 3; i++ {
				_ = p.notify(ctx, "notifications/progress", map[string]any{
					"progressToken": tok, "progress": i, "total": 3, "message": fmt.Sprintf("step %d of 3", i)})
			}
		}
		s.sendLog(ctx, p, "info", "the notify tool ran")
		return textResult("sent notifications"), nil
	case "env":
		var a struct {
			Name string `json:"name"`
		}
		if r := args(in.Arguments, &a); r != nil {
			return r, nil
		}
		v, ok := os.LookupEnv(a.Name)
		if !ok {
			return toolError("%s is not set", a.Name), nil
		}
		return textResult(v), nil
	case "roots":
		if !s.declared(ctx, func(c clientCaps) bool { return c.Roots != nil }) {
			return toolError("the client did not declare the roots capability"), nil
		}
		return s.ask(ctx, p, "roots/list", nil)
	case "ask":
		if !s.declared(ctx, func(c clientCaps) bool { return c.Elicitation != nil }) {
			return toolError("the client did not declare the elicitation capability"), nil
		}
		return s.ask(ctx, p, "elicitation/create", s.elicitParams(ctx))
	case "sample":
		if !s.declared(ctx, func(c clientCaps) bool { return c.Sampling != nil }) {
			return toolError("the client did not declare the sampling capability"), nil
		}
		var a struct {
			Prompt string `json:"prompt"`
		}
		if r := args(in.Arguments, &a); r != nil {
			return r, nil
		}
		if a.Prompt == "" {
			a.Prompt = "Say hello to the demo server."
		}
		return s.ask(ctx, p, "sampling/createMessage", map[string]any{
			"messages":     []any{map[string]any{"role": "user", "content": text(a.Prompt)}},
			"systemPrompt": "You are a helpful assistant.",
			"maxTokens":    100,
		})
	case "dashboard":
		if !s.opts.Apps {
			return nil, nil
		}
		return textResult("the dashboard is at " + dashboardURI), nil
	case "image":
		return &toolResult{Content: []any{
			map[string]any{"type": "image", "data": base64.StdEncoding.EncodeToString(demoPNG()), "mimeType": "image/png"},
			map[string]any{"type": "audio", "data": base64.StdEncoding.EncodeToString(demoWAV()), "mimeType": "audio/wav"},
			map[string]any{"type": "resource_link", "uri": "demo://logo.png", "name": "logo.png", "title": "Demo logo", "mimeType": "image/png"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "demo://readme", "mimeType": "text/markdown", "text": readmeText}},
		}}, nil
	}
	if strings.HasPrefix(in.Name, "tool-") {
		n, err := strconv.Atoi(in.Name[len("tool-"):])
		if err == nil && n >= 1 && n <= s.opts.ExtraTools && extraName(n) == in.Name {
			return textResult(in.Name + " called"), nil
		}
	}
	return nil, nil
}

// declared reports whether the client declared a capability: in the
// request's _meta (modern), or in initialize (legacy).
func (s *server) declared(ctx context.Context, has func(clientCaps) bool) bool {
	return s.sess.Declared(ctx, has)
}

// ask sends a request to the client and returns its answer as text. In
// the modern era the "request" is an input request of the answer
// (*inputRequired, passed on), answered by the client's retry.
func (s *server) ask(ctx context.Context, p peer, method string, params any) (*toolResult, error) {
	res, err := p.call(ctx, method, params)
	var ir *inputRequired
	if errors.As(err, &ir) {
		return nil, err
	}
	if err != nil {
		if errors.Is(context.Cause(ctx), errCancelled) {
			return nil, errCancelled
		}
		return toolError("%s: %v", method, err), nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, res) != nil {
		return toolError("%s: the answer is not JSON", method), nil
	}
	r := textResult(buf.String())
	var obj map[string]any
	if json.Unmarshal(res, &obj) == nil {
		r.StructuredContent = obj
	}
	return r, nil
}

func (s *server) elicitParams(ctx context.Context) map[string]any {
	m := map[string]any{
		"message": "The demo server would like to know a few things.",
		"requestedSchema": json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string","title":"Name","description":"what to call you","default":"Ada"},` +
			`"age":{"type":"integer","title":"Age","minimum":0,"maximum":150,"default":36},` +
			`"height":{"type":"number","title":"Height in metres","minimum":0,"default":1.7},` +
			`"subscribe":{"type":"boolean","title":"Subscribe to news","default":false},` +
			`"color":{"type":"string","title":"Favourite colour","enum":["red","green","blue"],"default":"green"}` +
			`},"required":["name"]}`),
	}
	if s.sess.Version() == latestVersion || modernOf(ctx) != nil {
		m["mode"] = "form"
	}
	return m
}

// demoPNG returns a small PNG: an 8×8 square in mcpwire blue (0x2060c0),
// as image/png encodes it. The bytes are written out, not encoded at run
// time: image/png would add some 50 KB to the mcpwire binary, which
// carries this server (TestDemoPNG decodes them).
func demoPNG() []byte {
	return []byte{
		0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
		0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08, 0x08, 0x02, 0x00, 0x00, 0x00, 0x4b, 0x6d, 0x29,
		0xdc, 0x00, 0x00, 0x00, 0x19, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x62, 0x51, 0x48, 0x38, 0xc0,
		0x80, 0x0d, 0x30, 0x61, 0x15, 0x1d, 0xb4, 0x12, 0x80, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00, 0x4f,
		0x01, 0x53, 0x24, 0xfa, 0x1a, 0x40, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42,
		0x60, 0x82,
	}
}

// demoWAV returns a tenth of a second of silence as 8-bit mono WAV.
func demoWAV() []byte {
	const rate, n = 8000, 800
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	_ = binary.Write(&b, le, uint32(36+n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(rate), uint16(1), uint16(8)} {
		_ = binary.Write(&b, le, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, le, uint32(n))
	b.Write(bytes.Repeat([]byte{0x80}, n))
	return b.Bytes()
}
