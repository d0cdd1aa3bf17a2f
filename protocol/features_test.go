package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// events collects callback calls in order.
type events struct {
	mu  sync.Mutex
	got []string
	ch  chan struct{}
}

func newEvents() *events { return &events{ch: make(chan struct{}, 100)} }

func (e *events) add(s string) {
	e.mu.Lock()
	e.got = append(e.got, s)
	e.mu.Unlock()
	e.ch <- struct{}{}
}

// wait waits for n events and returns all so far.
func (e *events) wait(t *testing.T, n int) []string {
	t.Helper()
	for range n {
		select {
		case <-e.ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("waiting for %d events, got %q", n, e.got)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.got...)
}

func TestNotifications(t *testing.T) {
	ev := newEvents()
	raw := newEvents()
	_, f := startFake(t, allCaps, nil, &Options{
		OnNotification:     func(method string, params json.RawMessage) { raw.add(method) },
		OnToolsChanged:     func() { ev.add("tools changed") },
		OnResourcesChanged: func() { ev.add("resources changed") },
		OnPromptsChanged:   func() { ev.add("prompts changed") },
		OnResourceUpdated:  func(uri string) { ev.add("updated " + uri) },
		OnLog: func(p LogParams) {
			ev.add("log " + p.Level + " " + p.Logger + " " + string(p.Data))
		},
		OnProgress: func(p ProgressParams) { ev.add("progress " + string(p.ProgressToken)) },
	})
	f.notify("notifications/tools/list_changed", nil)
	f.notify("notifications/resources/list_changed", map[string]any{})
	f.notify("notifications/prompts/list_changed", nil)
	f.notify("notifications/resources/updated", map[string]any{"uri": "file:///a"})
	f.notify("notifications/message", map[string]any{"level": "warning", "logger": "db", "data": map[string]any{"x": 1}})
	f.notify("notifications/progress", map[string]any{"progressToken": 7, "progress": 1})
	f.notify("notifications/cancelled", map[string]any{"requestId": "s9"})
	f.notify("notifications/unknown", nil)
	got := ev.wait(t, 6)
	want := []string{"tools changed", "resources changed", "prompts changed", "updated file:///a", `log warning db {"x":1}`, "progress 7"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("callbacks %q, want %q", got, want)
	}
	got = raw.wait(t, 8)
	if len(got) != 8 || got[7] != "notifications/unknown" {
		t.Errorf("raw %q", got)
	}
}

func TestElicitation(t *testing.T) {
	outcomes := newEvents()
	_, f := startFake(t, allCaps, nil, &Options{
		ElicitURL: true,
		Elicit: func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
			switch {
			case p.Mode == "url":
				if p.URL != "https://example.com/x" || p.ElicitationID != "e1" {
					return nil, errors.New("bad url params")
				}
				return &ElicitResult{Action: "decline"}, nil
			case strings.Contains(string(p.RequestedSchema), `"name"`):
				return &ElicitResult{Action: "accept", Content: map[string]any{"name": "octocat"}}, nil
			}
			return &ElicitResult{Action: "cancel"}, nil
		},
		OnServerRequest: func(method, outcome string) { outcomes.add(method + " " + outcome) },
	})
	r := f.request("elicitation/create", map[string]any{"message": "who?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
	if string(r.Result) != `{"action":"accept","content":{"name":"octocat"}}` {
		t.Errorf("form answer %s %v", r.Result, r.Error)
	}
	r = f.request("elicitation/create", map[string]any{"mode": "url", "message": "log in", "url": "https://example.com/x", "elicitationId": "e1"})
	if string(r.Result) != `{"action":"decline"}` {
		t.Errorf("url answer %s %v", r.Result, r.Error)
	}
	r = f.request("elicitation/create", map[string]any{"mode": "telepathy", "message": "m"})
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown mode answer %+v", r)
	}
	got := outcomes.wait(t, 3)
	if got[0] != "elicitation/create accepted" || got[1] != "elicitation/create declined" || !strings.HasPrefix(got[2], "elicitation/create error: ") {
		t.Errorf("outcomes %q", got)
	}
}

func TestElicitationURLNotDeclared(t *testing.T) {
	_, f := startFake(t, allCaps, nil, &Options{
		Elicit: func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
			return &ElicitResult{Action: "accept"}, nil
		},
	})
	r := f.request("elicitation/create", map[string]any{"mode": "url", "message": "m", "url": "https://e.x", "elicitationId": "1"})
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("answer %+v", r)
	}
}

func TestSampling(t *testing.T) {
	outcomes := newEvents()
	_, f := startFake(t, allCaps, nil, &Options{
		Sample: func(ctx context.Context, p json.RawMessage) (any, error) {
			if strings.Contains(string(p), "refuse") {
				return nil, &jsonrpc.Error{Code: -1, Message: "User rejected sampling request"}
			}
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hi"}, "model": "canned", "stopReason": "endTurn"}, nil
		},
		OnServerRequest: func(method, outcome string) { outcomes.add(outcome) },
	})
	r := f.request("sampling/createMessage", map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hello"}}}, "maxTokens": 10})
	if !strings.Contains(string(r.Result), `"model":"canned"`) {
		t.Errorf("answer %s %v", r.Result, r.Error)
	}
	r = f.request("sampling/createMessage", map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "refuse"}}}, "maxTokens": 10})
	if r.Error == nil || r.Error.Code != -1 {
		t.Errorf("refusal %+v", r)
	}
	if got := outcomes.wait(t, 2); got[0] != "answered" || got[1] != "declined" {
		t.Errorf("outcomes %q", got)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		switch m.Method {
		case "resources/list":
			return json.RawMessage(`{"resources":[{"uri":"file:///a.txt","name":"a","mimeType":"text/plain","size":3,"extra":true}]}`), nil
		case "resources/templates/list":
			return json.RawMessage(`{"resourceTemplates":[{"uriTemplate":"file:///{path}","name":"files"}],"nextCursor":""}`), nil
		case "resources/read":
			var p struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(m.Params, &p)
			if p.URI == "file:///missing" {
				return nil, &jsonrpc.Error{Code: -32002, Message: "Resource not found"}
			}
			return json.RawMessage(`{"contents":[{"uri":"file:///a.txt","text":"abc"},{"uri":"file:///b.bin","mimeType":"application/octet-stream","blob":"AAEC"}]}`), nil
		case "resources/subscribe", "resources/unsubscribe":
			return struct{}{}, nil
		case "prompts/list":
			return json.RawMessage(`{"prompts":[{"name":"greet","arguments":[{"name":"who","required":true}]}]}`), nil
		case "prompts/get":
			return json.RawMessage(`{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"` + strings.ReplaceAll(string(m.Params), `"`, `'`) + `"}}]}`), nil
		case "completion/complete":
			return json.RawMessage(`{"completion":{"values":["` + strings.ReplaceAll(string(m.Params), `"`, `'`) + `"],"hasMore":true}}`), nil
		case "logging/setLevel":
			return struct{}{}, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
	}, nil)
	ctx := context.Background()
	rs, err := s.ListResources(ctx)
	if err != nil || len(rs) != 1 || rs[0].URI != "file:///a.txt" || *rs[0].Size != 3 {
		t.Fatalf("resources %+v %v", rs, err)
	}
	ts, err := s.ListResourceTemplates(ctx)
	if err != nil || len(ts) != 1 || ts[0].URITemplate != "file:///{path}" {
		t.Fatalf("templates %+v %v", ts, err)
	}
	rr, err := s.ReadResource(ctx, "file:///a.txt")
	if err != nil || len(rr.Contents) != 2 {
		t.Fatalf("read %+v %v", rr, err)
	}
	if rr.Contents[0].IsBlob() || rr.Contents[0].Text != "abc" {
		t.Errorf("text contents %+v", rr.Contents[0])
	}
	if b, err := rr.Contents[1].Bytes(); !rr.Contents[1].IsBlob() || err != nil || string(b) != "\x00\x01\x02" {
		t.Errorf("blob contents %q %v", b, err)
	}
	_, err = s.ReadResource(ctx, "file:///missing")
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32002 || err.Error() != "resources/read: Resource not found" {
		t.Errorf("missing resource: %v", err)
	}
	if err := s.Subscribe(ctx, "file:///a.txt"); err != nil {
		t.Error(err)
	}
	if err := s.Unsubscribe(ctx, "file:///a.txt"); err != nil {
		t.Error(err)
	}
	ps, err := s.ListPrompts(ctx)
	if err != nil || len(ps) != 1 || !ps[0].Arguments[0].Required {
		t.Fatalf("prompts %+v %v", ps, err)
	}
	gp, err := s.GetPrompt(ctx, "greet", map[string]string{"who": "you"})
	if err != nil || gp.Messages[0].Content.Text != `{'name':'greet','arguments':{'who':'you'}}` {
		t.Errorf("prompt %+v %v", gp, err)
	}
	cr, err := s.Complete(ctx, ResourceRef("file:///{path}"), "path", "a", map[string]string{"x": "y"})
	if err != nil || cr.Completion.Values[0] != `{'ref':{'type':'ref/resource','uri':'file:///{path}'},'argument':{'name':'path','value':'a'},'context':{'arguments':{'x':'y'}}}` || !cr.Completion.HasMore {
		t.Errorf("complete %+v %v", cr, err)
	}
	cr, err = s.Complete(ctx, PromptRef("greet"), "who", "", nil)
	if err != nil || cr.Completion.Values[0] != `{'ref':{'type':'ref/prompt','name':'greet'},'argument':{'name':'who','value':''}}` {
		t.Errorf("complete %+v %v", cr, err)
	}
	if err := s.SetLogLevel(ctx, "debug"); err != nil {
		t.Error(err)
	}
	if err := s.SetLogLevel(ctx, "loud"); err == nil {
		t.Error("SetLogLevel accepted an unknown level")
	}
}

func TestCallToolResults(t *testing.T) {
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "tools/list" {
			return json.RawMessage(`{"tools":[
				{"name":"weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"},"city":{"type":"string"}},"required":["temp"]}},
				{"name":"plain","title":"Plain","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"icons":[{"src":"data:,x"}]}]}`), nil
		}
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		switch string(p.Arguments) {
		case `{"case":"good"}`:
			return json.RawMessage(`{"content":[{"type":"text","text":"{\"temp\":21.5}"}],"structuredContent":{"temp":21.5,"city":"Oslo"}}`), nil
		case `{"case":"bad"}`:
			return json.RawMessage(`{"content":[],"structuredContent":{"temp":"warm"}}`), nil
		case `{"case":"missing"}`:
			return json.RawMessage(`{"content":[]}`), nil
		case `{"case":"iserror"}`:
			return json.RawMessage(`{"content":[{"type":"text","text":"boom"}],"isError":true}`), nil
		case `{"case":"mixed"}`:
			return json.RawMessage(`{"content":[
				{"type":"image","data":"iVBO","mimeType":"image/png"},
				{"type":"audio","data":"UklG","mimeType":"audio/wav"},
				{"type":"resource_link","uri":"file:///r","name":"r","size":5},
				{"type":"resource","resource":{"uri":"file:///e","text":"embedded"}},
				{"type":"resource","resource":{"uri":"file:///f","blob":"AA=="}}]}`), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unknown tool: %s", p.Name)
	}, nil)
	ctx := context.Background()
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) != 2 || tools[1].DisplayName() != "Plain" || !*tools[1].Annotations.ReadOnlyHint {
		t.Fatalf("tools %+v %v", tools, err)
	}
	call := func(c string) *CallToolResult {
		t.Helper()
		res, err := s.CallTool(ctx, "weather", map[string]string{"case": c}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		return res
	}
	if r := call("good"); r.OutputProblem != "" || string(r.StructuredContent) != `{"temp":21.5,"city":"Oslo"}` {
		t.Errorf("good: %+v", r)
	}
	if r := call("bad"); !strings.Contains(r.OutputProblem, `required member "temp"`) && !strings.Contains(r.OutputProblem, `"temp" is string, not number`) {
		t.Errorf("bad: %q", r.OutputProblem)
	}
	if r := call("missing"); !strings.Contains(r.OutputProblem, "no structuredContent") {
		t.Errorf("missing: %q", r.OutputProblem)
	}
	if r := call("iserror"); !r.IsError || r.Content[0].Text != "boom" || r.OutputProblem != "" {
		t.Errorf("iserror: %+v", r)
	}
	r := call("mixed")
	types := []string{}
	for _, c := range r.Content {
		types = append(types, c.Type)
	}
	if strings.Join(types, ",") != "image,audio,resource_link,resource,resource" ||
		r.Content[2].URI != "file:///r" || r.Content[3].Resource.Text != "embedded" || !r.Content[4].Resource.IsBlob() {
		t.Errorf("mixed: %+v", r.Content)
	}
	_, err = s.CallTool(ctx, "nope", nil, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || err.Error() != "tools/call: Unknown tool: nope" {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestServerGoneMidCall(t *testing.T) {
	s, f := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		f.conn.Close()
		return nil, noAnswer
	}, nil)
	_, err := s.CallTool(context.Background(), "crash", nil, nil)
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("got %v, want the connection's end", err)
	}
	if !strings.HasPrefix(err.Error(), "tools/call: ") {
		t.Errorf("error %q", err)
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("session not done")
	}
	if s.Err() == nil {
		t.Error("Err is nil after the end")
	}
	t.Logf("error: %v; Err: %v", err, s.Err())
	_ = f
}

func TestCheckOutput(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":["string","null"]},"a":{"type":"array"}},"required":["n"]}`)
	for content, want := range map[string]string{
		`{"n":1}`:                    "",
		`{"n":1.0,"s":null,"a":[]}`:  "",
		`{"n":1.5}`:                  `member "n" is number, not integer`,
		`{"s":"x"}`:                  `required member "n" is missing`,
		`[1]`:                        "structuredContent is not a JSON object",
		`{"n":1,"a":{}}`:             `member "a" is object, not array`,
		`{"n":2,"s":true,"extra":1}`: `member "s" is boolean, not string or null`,
	} {
		if got := CheckOutput(schema, json.RawMessage(content)); got != want {
			t.Errorf("%s: got %q, want %q", content, got, want)
		}
	}
}

func TestServerCancelsItsRequest(t *testing.T) {
	asked := make(chan struct{})
	outcomes := newEvents()
	_, f := startFake(t, allCaps, nil, &Options{
		Elicit: func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
			close(asked)
			<-ctx.Done() // the user is still thinking
			return nil, ctx.Err()
		},
		OnServerRequest: func(method, outcome string) { outcomes.add(outcome) },
	})
	answer := make(chan *wire, 1)
	id := strconv.Quote("el")
	f.mu.Lock()
	f.calls[id] = answer
	f.mu.Unlock()
	f.send(&wire{JSONRPC: "2.0", ID: json.RawMessage(id), Method: "elicitation/create",
		Params: json.RawMessage(`{"message":"m","requestedSchema":{"type":"object"}}`)})
	<-asked
	f.notify("notifications/cancelled", map[string]any{"requestId": "el", "reason": "user went away"})
	if got := outcomes.wait(t, 1); got[0] != "cancelled by the server" {
		t.Errorf("outcome %q", got)
	}
	// A request cancelled gets no reply (basic/utilities/cancellation):
	// the ping that follows is answered, the elicitation is not.
	if r := f.request("ping", nil); r.Error != nil {
		t.Errorf("ping: %+v", r)
	}
	select {
	case r := <-answer:
		t.Errorf("a cancelled request was answered: %+v", r)
	default:
	}
}

func TestURLElicitations(t *testing.T) {
	err := &MethodError{Method: "tools/call", Err: &jsonrpc.Error{Code: -32042, Message: "go there",
		Data: json.RawMessage(`{"elicitations":[{"mode":"url","elicitationId":"e","url":"https://x.example/","message":"m"}]}`)}}
	els, ok := URLElicitations(err)
	if !ok || len(els) != 1 || els[0].URL != "https://x.example/" {
		t.Errorf("got %+v %v", els, ok)
	}
	if _, ok := URLElicitations(errors.New("x")); ok {
		t.Error("a plain error is not -32042")
	}
}
