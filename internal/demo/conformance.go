package demo

// The surface the MCP conformance suite's server scenarios ask for
// (serve-demo --conformance): tools test_simple_text …, resources
// test://…, prompts test_…, as the scenarios' descriptions name them. It
// is a Mux on the server package, one HandlerFunc per method: the proof
// that the package serves a surface that is not the demo's.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// conformanceOptions are the server options of --conformance.
func conformanceOptions(o *mcpserver.Options) {
	o.NewSession = func(sess *mcpserver.Session) mcpserver.Handler { return newFixture(sess).mux() }
	o.ServerInfo = func() any { return map[string]any{"name": "mcpwire-demo-conformance", "version": "0.1.0"} }
	o.Capabilities = func() map[string]any {
		return map[string]any{
			"tools":       map[string]any{"listChanged": true},
			"resources":   map[string]any{"subscribe": true, "listChanged": true},
			"prompts":     map[string]any{"listChanged": true},
			"completions": struct{}{},
			"logging":     struct{}{},
		}
	}
	o.Instructions = func() string { return "mcpwire's demo server, serving the conformance suite's fixtures." }
	o.Early, o.CacheHint, o.MirroredParams = nil, nil, nil
	o.KnownResource = func(uri string) bool {
		return uri == "test://static-text" || uri == "test://static-binary" || uri == "test://watched-resource"
	}
	o.SSE, o.RetryMillis = true, 200
}

// A fixture is one session's state of the conformance surface.
type fixture struct {
	sess *mcpserver.Session
	mu   sync.Mutex
	subs map[string]bool
}

func newFixture(sess *mcpserver.Session) *fixture {
	return &fixture{sess: sess, subs: map[string]bool{}}
}

func (f *fixture) mux() mcpserver.Mux {
	return mcpserver.Mux{
		"tools/list":               f.listTools,
		"tools/call":               f.callTool,
		"resources/list":           f.listResources,
		"resources/templates/list": f.listTemplates,
		"resources/read":           f.readResource,
		"resources/subscribe":      f.subscribe,
		"resources/unsubscribe":    f.subscribe,
		"prompts/list":             f.listPrompts,
		"prompts/get":              f.getPrompt,
		"completion/complete":      f.complete,
	}
}

func fixtureTool(name, desc string, schema json.RawMessage) map[string]any {
	if schema == nil {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return map[string]any{"name": name, "description": desc, "inputSchema": schema}
}

func (f *fixture) listTools(context.Context, mcpserver.Peer, *jsonrpc.Request) (any, error) {
	str := func(props ...string) json.RawMessage {
		var p []string
		for _, n := range props {
			p = append(p, `"`+n+`":{"type":"string"}`)
		}
		b, _ := json.Marshal(props)
		return json.RawMessage(`{"type":"object","properties":{` + strings.Join(p, ",") + `},"required":` + string(b) + `}`)
	}
	return map[string]any{"tools": append([]any{
		fixtureTool("test_simple_text", "Returns a simple text.", nil),
		fixtureTool("test_image_content", "Returns an image.", nil),
		fixtureTool("test_audio_content", "Returns an audio clip.", nil),
		fixtureTool("test_embedded_resource", "Returns an embedded resource.", nil),
		fixtureTool("test_multiple_content_types", "Returns text, an image and a resource.", nil),
		fixtureTool("test_tool_with_logging", "Sends three log messages.", nil),
		fixtureTool("test_tool_with_progress", "Reports progress 0, 50, 100 of 100.", nil),
		fixtureTool("test_error_handling", "Always fails (isError).", nil),
		fixtureTool("test_sampling", "Asks the client's model.", str("prompt")),
		fixtureTool("test_elicitation", "Asks the user.", str("message")),
		fixtureTool("test_elicitation_sep1034_defaults", "Asks with defaults of every type.", nil),
		fixtureTool("test_elicitation_sep1330_enums", "Asks with every kind of enum.", nil),
		fixtureTool("test_reconnection", "Closes its SSE stream mid-call; the answer comes on the resumed stream.", nil),
		fixtureTool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", json.RawMessage(
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",`+
				`"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},`+
				`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`)),
	}, mrtrTools()...)}, nil
}

func content(items ...any) map[string]any { return map[string]any{"content": items} }

func pngContent() map[string]any {
	return map[string]any{"type": "image", "data": base64.StdEncoding.EncodeToString(demoPNG()), "mimeType": "image/png"}
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return mcpserver.ErrCancelled
	}
}

func (f *fixture) callTool(ctx context.Context, p mcpserver.Peer, req *jsonrpc.Request) (any, error) {
	var in callParams
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	var a struct {
		Prompt  string `json:"prompt"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(in.Arguments, &a)
	if res, ok, err := f.mrtrTool(ctx, p, in.Name); ok {
		return res, err
	}
	switch in.Name {
	case "test_simple_text":
		return content(text("This is a simple text response for testing.")), nil
	case "test_image_content":
		return content(pngContent()), nil
	case "test_audio_content":
		return content(map[string]any{"type": "audio", "data": base64.StdEncoding.EncodeToString(demoWAV()), "mimeType": "audio/wav"}), nil
	case "test_embedded_resource":
		return content(map[string]any{"type": "resource", "resource": map[string]any{
			"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}), nil
	case "test_multiple_content_types":
		return content(text("Multiple content types test:"), pngContent(), map[string]any{"type": "resource", "resource": map[string]any{
			"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": `{"test":"data","value":123}`}}), nil
	case "test_tool_with_logging":
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				if err := pause(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
			}
			f.sess.Log(ctx, p, "conformance", "info", msg)
		}
		return content(text("Tool with logging executed successfully")), nil
	case "test_tool_with_progress":
		for i, n := range []int{0, 50, 100} {
			if i > 0 {
				if err := pause(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
			}
			if tok := in.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
				_ = p.Notify(ctx, "notifications/progress", map[string]any{"progressToken": tok, "progress": n, "total": 100})
			}
		}
		return content(text("Tool with progress executed successfully")), nil
	case "test_error_handling":
		return &toolResult{Content: []any{text("This tool intentionally returns an error for testing")}, IsError: true}, nil
	case "test_sampling":
		return f.askClient(ctx, p, "sampling", "sampling/createMessage", map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": text(a.Prompt)}},
			"maxTokens": 100}, "LLM response: ")
	case "test_elicitation":
		return f.askClient(ctx, p, "elicitation", "elicitation/create", map[string]any{"message": a.Message,
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},` +
				`"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)}, "User response: ")
	case "test_elicitation_sep1034_defaults":
		return f.askClient(ctx, p, "elicitation", "elicitation/create", map[string]any{"message": "Please review and update the form fields with defaults",
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{` +
				`"name":{"type":"string","description":"User name","default":"John Doe"},` +
				`"age":{"type":"integer","description":"User age","default":30},` +
				`"score":{"type":"number","description":"User score","default":95.5},` +
				`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
				`"verified":{"type":"boolean","description":"Verification status","default":true}}}`)}, "Elicitation completed: ")
	case "test_elicitation_sep1330_enums":
		return f.askClient(ctx, p, "elicitation", "elicitation/create", map[string]any{"message": "Please pick options",
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{` +
				`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},` +
				`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
				`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
				`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},` +
				`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)},
			"Elicitation completed: ")
	case "test_reconnection":
		mcpserver.CloseStream(p)
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
		return content(text("Reconnection test completed successfully")), nil
	}
	return nil, invalidParams("unknown tool %q", in.Name)
}

// askClient sends the client a request (an input request in the modern
// era) and answers with its result as text after prefix.
func (f *fixture) askClient(ctx context.Context, p mcpserver.Peer, capName, method string, params any, prefix string) (any, error) {
	if !f.sess.Declared(ctx, func(c clientCaps) bool {
		if capName == "sampling" {
			return c.Sampling != nil
		}
		return c.Elicitation != nil
	}) {
		return nil, jsonrpc.NewError(mcpserver.CodeMissingCapability, "the client did not declare the %s capability", capName)
	}
	res, err := p.Call(ctx, method, params)
	if err != nil {
		return nil, err
	}
	if method == "sampling/createMessage" {
		var r struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		_ = json.Unmarshal(res, &r)
		return content(text(prefix + r.Content.Text)), nil
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(res, &r)
	if len(r.Content) == 0 {
		r.Content = json.RawMessage("{}")
	}
	return content(text(fmt.Sprintf("%saction=%s, content=%s", prefix, r.Action, r.Content))), nil
}

func (f *fixture) listResources(context.Context, mcpserver.Peer, *jsonrpc.Request) (any, error) {
	// JSON text, its members in the order encoding/json gives a map's:
	// data, where a map literal is code.
	return json.RawMessage(`{"resources":[{"description":"A static text resource.","mimeType":"text/plain","name":"static-text","uri":"test://static-text"},{"description":"A static binary resource.","mimeType":"image/png","name":"static-binary","uri":"test://static-binary"},{"description":"A resource to subscribe to.","mimeType":"text/plain","name":"watched-resource","uri":"test://watched-resource"}]}`), nil
}

func (f *fixture) listTemplates(context.Context, mcpserver.Peer, *jsonrpc.Request) (any, error) {
	return json.RawMessage(`{"resourceTemplates":[{"description":"Data by id.","mimeType":"application/json","name":"template","uriTemplate":"test://template/{id}/data"}]}`), nil
}

func (f *fixture) readResource(_ context.Context, _ mcpserver.Peer, req *jsonrpc.Request) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	one := func(m map[string]any) (any, error) {
		m["uri"] = in.URI
		return map[string]any{"contents": []any{m}}, nil
	}
	switch in.URI {
	case "test://static-text":
		return one(map[string]any{"mimeType": "text/plain", "text": "This is the content of the static text resource."})
	case "test://static-binary":
		return one(map[string]any{"mimeType": "image/png", "blob": base64.StdEncoding.EncodeToString(demoPNG())})
	case "test://watched-resource":
		return one(map[string]any{"mimeType": "text/plain", "text": "Watched resource content."})
	}
	if rest, ok := strings.CutPrefix(in.URI, "test://template/"); ok {
		if id, ok := strings.CutSuffix(rest, "/data"); ok && id != "" && !strings.Contains(id, "/") {
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return one(map[string]any{"mimeType": "application/json", "text": string(b)})
		}
	}
	return nil, &jsonrpc.Error{Code: mcpserver.CodeResourceNotFound, Message: "Resource not found", Data: mustJSON(map[string]string{"uri": in.URI})}
}

func (f *fixture) subscribe(_ context.Context, _ mcpserver.Peer, req *jsonrpc.Request) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.subs[in.URI] = req.Method == "resources/subscribe"
	f.mu.Unlock()
	return struct{}{}, nil
}

func (f *fixture) listPrompts(context.Context, mcpserver.Peer, *jsonrpc.Request) (any, error) {
	return json.RawMessage(`{"prompts":[{"description":"A simple prompt without arguments.","name":"test_simple_prompt"},{"arguments":[{"description":"First test argument","name":"arg1","required":true},{"description":"Second test argument","name":"arg2","required":true}],"description":"A prompt with two arguments.","name":"test_prompt_with_arguments"},{"arguments":[{"description":"URI of the resource to embed","name":"resourceUri","required":true}],"description":"A prompt with an embedded resource.","name":"test_prompt_with_embedded_resource"},{"description":"A prompt with an image.","name":"test_prompt_with_image"},{"description":"A prompt that asks the user for context (modern era).","name":"test_input_required_result_prompt"}]}`), nil
}

func (f *fixture) getPrompt(ctx context.Context, _ mcpserver.Peer, req *jsonrpc.Request) (any, error) {
	var in struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	user := func(c any) map[string]any { return map[string]any{"role": "user", "content": c} }
	switch in.Name {
	case "test_simple_prompt":
		return map[string]any{"messages": []any{user(text("This is a simple prompt for testing."))}}, nil
	case "test_prompt_with_arguments":
		return map[string]any{"messages": []any{user(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'",
			in.Arguments["arg1"], in.Arguments["arg2"])))}}, nil
	case "test_prompt_with_embedded_resource":
		return map[string]any{"messages": []any{
			user(map[string]any{"type": "resource", "resource": map[string]any{"uri": in.Arguments["resourceUri"],
				"mimeType": "text/plain", "text": "Embedded resource content for testing."}}),
			user(text("Please process the embedded resource above."))}}, nil
	case "test_input_required_result_prompt":
		return f.mrtrPrompt(ctx)
	case "test_prompt_with_image":
		return map[string]any{"messages": []any{user(pngContent()), user(text("Please analyze the image above."))}}, nil
	}
	return nil, invalidParams("unknown prompt %q", in.Name)
}

func (f *fixture) complete(context.Context, mcpserver.Peer, *jsonrpc.Request) (any, error) {
	return json.RawMessage(`{"completion":{"hasMore":false,"total":3,"values":["paris","park","party"]}}`), nil
}
