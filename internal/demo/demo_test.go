package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestMain runs the demo as a child process when DEMO_CHILD_ARGS is set
// (a JSON array of flags), so that exits can be checked for real.
func TestMain(m *testing.M) {
	if a := os.Getenv("DEMO_CHILD_ARGS"); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(Main(context.Background(), args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// waitBuffer is a concurrency-safe buffer that can be waited on.
type waitBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	wake chan struct{}
}

func newWaitBuffer() *waitBuffer { return &waitBuffer{wake: make(chan struct{})} }

func (b *waitBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.wake)
	b.wake = make(chan struct{})
	return b.buf.Write(p)
}

func (b *waitBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the buffer contains s.
func (b *waitBuffer) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		has, wake := strings.Contains(b.buf.String(), s), b.wake
		b.mu.Unlock()
		if has {
			return
		}
		select {
		case <-wake:
		case <-deadline.C:
			t.Fatalf("waiting for %q; have %q", s, b.String())
		}
	}
}

type closers []io.Closer

func (cs closers) Close() error {
	for _, c := range cs {
		c.Close()
	}
	return nil
}

// A testClient is a jsonrpc.Conn talking to an in-process demo over pipes.
type testClient struct {
	conn   *jsonrpc.Conn
	notes  chan *jsonrpc.Request
	bad    chan error
	stderr *waitBuffer
	done   chan int
}

type clientOpts struct {
	handle func(ctx context.Context, req *jsonrpc.Request) (any, error)
}

func startStdio(t testing.TB, co *clientOpts, args ...string) *testClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &testClient{notes: make(chan *jsonrpc.Request, 100), bad: make(chan error, 100), stderr: newWaitBuffer(), done: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.done <- Main(ctx, args, inR, outW, c.stderr) }()
	opts := &jsonrpc.ConnOptions{
		Notify: func(r *jsonrpc.Request) {
			select {
			case c.notes <- r:
			default:
			}
		},
		OnBadMessage: func(err error) {
			select {
			case c.bad <- err:
			default:
			}
		},
	}
	if co != nil {
		opts.Handle = co.handle
	}
	opts.OnCancel = func(id jsonrpc.ID, _ error) {
		c.conn.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id, "reason": "test"})
	}
	c.conn = jsonrpc.NewConn(jsonrpc.NewLineStream(outR, inW, closers{inW, outR}), opts)
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("demo.Main did not return")
		}
	})
	return c
}

func (c *testClient) call(t *testing.T, method string, params any, out any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.conn.Call(ctx, method, params)
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: decoding %s: %v", method, res, err)
		}
	}
	return nil
}

func (c *testClient) mustCall(t *testing.T, method string, params any, out any) {
	t.Helper()
	if err := c.call(t, method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (c *testClient) init(t *testing.T, caps map[string]any) string {
	t.Helper()
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if caps == nil {
		caps = map[string]any{}
	}
	c.mustCall(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
		"clientInfo": map[string]any{"name": "test", "version": "1"}}, &res)
	if err := c.conn.Notify(context.Background(), "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return res.ProtocolVersion
}

// nextNote waits for the next notification of the method, skipping others.
func (c *testClient) nextNote(t *testing.T, method string) *jsonrpc.Request {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case n := <-c.notes:
			if n.Method == method {
				return n
			}
		case <-deadline.C:
			t.Fatalf("no %s notification", method)
		}
	}
}

type result struct {
	Content []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Data     string          `json:"data"`
		MimeType string          `json:"mimeType"`
		URI      string          `json:"uri"`
		Resource json.RawMessage `json:"resource"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (c *testClient) tool(t *testing.T, name string, args any) *result {
	t.Helper()
	var r result
	c.mustCall(t, "tools/call", map[string]any{"name": name, "arguments": args}, &r)
	return &r
}

func TestInitializeVersions(t *testing.T) {
	for _, tc := range []struct {
		ask, flag, want string
	}{
		{"2025-11-25", "", "2025-11-25"},
		{"2025-06-18", "", "2025-06-18"},
		{"2025-03-26", "", "2025-03-26"},
		{"2024-11-05", "", "2024-11-05"},
		{"2099-01-01", "", "2025-11-25"},
		{"2025-11-25", "1999-01-01", "1999-01-01"},
	} {
		t.Run(tc.ask+"/"+tc.flag, func(t *testing.T) {
			var args []string
			if tc.flag != "" {
				args = []string{"--version-answer", tc.flag}
			}
			c := startStdio(t, nil, args...)
			var res struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct{ Name, Version string }
				Capabilities    map[string]json.RawMessage
				Instructions    string
			}
			c.mustCall(t, "initialize", map[string]any{"protocolVersion": tc.ask, "capabilities": map[string]any{},
				"clientInfo": map[string]any{"name": "test", "version": "1"}}, &res)
			if res.ProtocolVersion != tc.want || res.ServerInfo.Name != "mcpwire-demo" || res.Instructions == "" {
				t.Errorf("got %+v, want version %s", res, tc.want)
			}
			for _, k := range []string{"tools", "resources", "prompts", "completions", "logging"} {
				if res.Capabilities[k] == nil {
					t.Errorf("capability %s missing", k)
				}
			}
		})
	}
}

func TestBeforeInitialize(t *testing.T) {
	c := startStdio(t, nil)
	c.mustCall(t, "ping", nil, nil)
	err := c.call(t, "tools/list", nil, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("tools/list before initialize: %v", err)
	}
}

func TestToolsPagination(t *testing.T) {
	c := startStdio(t, nil, "--tools", "600", "--page-size", "12")
	c.init(t, nil)
	seen := map[string]bool{}
	pages := 0
	var cursor *string
	for {
		var res struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			NextCursor *string `json:"nextCursor"`
		}
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		c.mustCall(t, "tools/list", params, &res)
		pages++
		for _, tl := range res.Tools {
			if seen[tl.Name] || len(tl.InputSchema) == 0 {
				t.Fatalf("tool %q repeated or without schema", tl.Name)
			}
			seen[tl.Name] = true
		}
		if res.NextCursor == nil {
			break
		}
		cursor = res.NextCursor
	}
	if n := len(baseTools()) + 600; len(seen) != n || pages != 51 {
		t.Errorf("%d tools in %d pages, want %d in 51", len(seen), pages, n)
	}
	if !seen["tool-0001"] || !seen["tool-0600"] || !seen["echo"] {
		t.Error("tools missing")
	}
	for _, bad := range []string{"!!", encodeCursor(0), encodeCursor(100000), base64.RawURLEncoding.EncodeToString([]byte("x"))} {
		err := c.call(t, "tools/list", map[string]any{"cursor": bad}, nil)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("cursor %q: %v, want -32602", bad, err)
		}
	}
	if r := c.tool(t, "tool-0600", nil); r.Content[0].Text != "tool-0600 called" {
		t.Errorf("tool-0600: %+v", r)
	}
}

func TestTools(t *testing.T) {
	c := startStdio(t, nil)
	c.init(t, nil)
	if r := c.tool(t, "echo", map[string]any{"text": "hi <there>"}); r.IsError || r.Content[0].Text != "hi <there>" {
		t.Errorf("echo: %+v", r)
	}
	r := c.tool(t, "add", map[string]any{"a": 2, "b": 3.5})
	if r.IsError || r.Content[0].Text != "5.5" || string(r.StructuredContent) != `{"sum":5.5}` {
		t.Errorf("add: %+v %s", r, r.StructuredContent)
	}
	if r := c.tool(t, "add", map[string]any{"a": "x"}); !r.IsError {
		t.Errorf("add with bad arguments: %+v", r)
	}
	if r := c.tool(t, "fail", nil); !r.IsError {
		t.Errorf("fail: %+v", r)
	}
	if r := c.tool(t, "big", map[string]any{"bytes": 1 << 20}); len(r.Content[0].Text) != 1<<20 || strings.Trim(r.Content[0].Text, "x") != "" {
		t.Errorf("big: %d bytes", len(r.Content[0].Text))
	}
	if r := c.tool(t, "big", map[string]any{"bytes": 7, "pattern": "abc"}); r.Content[0].Text != "abcabca" {
		t.Errorf("big pattern: %q", r.Content[0].Text)
	}
	if r := c.tool(t, "sleep", map[string]any{"ms": 1}); r.Content[0].Text != "slept 1 ms" {
		t.Errorf("sleep: %+v", r)
	}
	t.Setenv("DEMO_TEST_VAR", "value-1")
	if r := c.tool(t, "env", map[string]any{"name": "DEMO_TEST_VAR"}); r.Content[0].Text != "value-1" {
		t.Errorf("env: %+v", r)
	}
	if r := c.tool(t, "env", map[string]any{"name": "DEMO_TEST_UNSET_VAR"}); !r.IsError {
		t.Errorf("env of an unset variable: %+v", r)
	}
	r = c.tool(t, "image", nil)
	var types []string
	for _, ct := range r.Content {
		types = append(types, ct.Type)
	}
	if strings.Join(types, ",") != "image,audio,resource_link,resource" {
		t.Errorf("image: content types %v", types)
	}
	if png, _ := base64.StdEncoding.DecodeString(r.Content[0].Data); !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("image: not a PNG")
	}
	err := c.call(t, "tools/call", map[string]any{"name": "nope"}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: %v", err)
	}
	err = c.call(t, "nope/nope", nil, nil)
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
}

func TestNotify(t *testing.T) {
	c := startStdio(t, nil)
	c.init(t, nil)
	var r result
	c.mustCall(t, "tools/call", map[string]any{"name": "notify", "_meta": map[string]any{"progressToken": "tok-1"}}, &r)
	c.nextNote(t, "notifications/tools/list_changed")
	for i := 1; i <= 3; i++ {
		n := c.nextNote(t, "notifications/progress")
		var p struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
		}
		json.Unmarshal(n.Params, &p)
		if p.ProgressToken != "tok-1" || p.Progress != float64(i) {
			t.Errorf("progress %d: %s", i, n.Params)
		}
	}
	c.nextNote(t, "notifications/message")

	// Above the level asked for: no log message; the level change itself is logged.
	c.mustCall(t, "logging/setLevel", map[string]any{"level": "warning"}, nil)
	if n := c.nextNote(t, "notifications/message"); !strings.Contains(string(n.Params), `"level":"warning"`) {
		t.Errorf("after setLevel: %s", n.Params)
	}
	c.mustCall(t, "tools/call", map[string]any{"name": "notify"}, &r)
	c.nextNote(t, "notifications/tools/list_changed")
	c.mustCall(t, "logging/setLevel", map[string]any{"level": "error"}, nil)
	if n := c.nextNote(t, "notifications/message"); !strings.Contains(string(n.Params), `"level":"error"`) {
		t.Errorf("the info message of notify came through at level warning: %s", n.Params)
	}
	if err := c.call(t, "logging/setLevel", map[string]any{"level": "loud"}, nil); err == nil {
		t.Error("bad level accepted")
	}
}

func TestServerRequests(t *testing.T) {
	asked := make(chan string, 10)
	c := startStdio(t, &clientOpts{handle: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		asked <- req.Method
		switch req.Method {
		case "roots/list":
			return map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp/x", "name": "x"}}}, nil
		case "elicitation/create":
			var p struct {
				Mode            string `json:"mode"`
				RequestedSchema struct {
					Properties map[string]struct {
						Type    string          `json:"type"`
						Default json.RawMessage `json:"default"`
					} `json:"properties"`
				} `json:"requestedSchema"`
			}
			json.Unmarshal(req.Params, &p)
			content := map[string]json.RawMessage{}
			for k, v := range p.RequestedSchema.Properties {
				if v.Default == nil {
					return nil, fmt.Errorf("field %s has no default", k)
				}
				content[k] = v.Default
			}
			if p.Mode != "form" || len(content) != 5 {
				return nil, fmt.Errorf("unexpected elicitation %s", req.Params)
			}
			return map[string]any{"action": "accept", "content": content}, nil
		case "sampling/createMessage":
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hello"}, "model": "m"}, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	}})
	c.init(t, map[string]any{"roots": map[string]any{}, "elicitation": map[string]any{}, "sampling": map[string]any{}})
	if r := c.tool(t, "roots", nil); r.IsError || !strings.Contains(r.Content[0].Text, "file:///tmp/x") {
		t.Errorf("roots: %+v", r)
	}
	if r := c.tool(t, "ask", nil); r.IsError || !strings.Contains(r.Content[0].Text, `"color":"green"`) {
		t.Errorf("ask: %+v", r)
	}
	if r := c.tool(t, "sample", map[string]any{"prompt": "hi"}); r.IsError || !strings.Contains(r.Content[0].Text, `"hello"`) {
		t.Errorf("sample: %+v", r)
	}
	if len(asked) != 3 {
		t.Errorf("%d server requests, want 3", len(asked))
	}

	// A client without the capabilities is not asked.
	c2 := startStdio(t, nil)
	c2.init(t, nil)
	for _, name := range []string{"roots", "ask", "sample"} {
		if r := c2.tool(t, name, nil); !r.IsError {
			t.Errorf("%s without the capability: %+v", name, r)
		}
	}
}

func TestCancelSleep(t *testing.T) {
	c := startStdio(t, nil, "--verbose")
	c.init(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.conn.Call(ctx, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 600000}})
		errc <- err
	}()
	c.stderr.waitFor(t, "demo: <- tools/call") // in flight and cancellable
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	c.stderr.waitFor(t, "cancelled ")
	var st struct{ Contents []struct{ Text string } }
	c.mustCall(t, "resources/read", map[string]any{"uri": "demo://status"}, &st)
	var status struct{ Cancelled []string }
	json.Unmarshal([]byte(st.Contents[0].Text), &status)
	if len(status.Cancelled) != 1 || !strings.Contains(c.stderr.String(), "cancelled "+status.Cancelled[0]+"\n") {
		t.Errorf("status %s, stderr %q", st.Contents[0].Text, c.stderr.String())
	}
	// The connection is still usable.
	if r := c.tool(t, "echo", map[string]any{"text": "after"}); r.Content[0].Text != "after" {
		t.Errorf("echo after cancel: %+v", r)
	}
}

func TestResourcesPrompts(t *testing.T) {
	c := startStdio(t, nil, "--page-size", "1")
	c.init(t, nil)
	var uris []string
	var cursor string
	for {
		var res struct {
			Resources  []struct{ URI string }
			NextCursor string
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		c.mustCall(t, "resources/list", params, &res)
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if len(uris) != 4 {
		t.Errorf("resources: %v", uris)
	}
	var tpl struct {
		ResourceTemplates []struct{ URITemplate string } `json:"resourceTemplates"`
	}
	c.mustCall(t, "resources/templates/list", nil, &tpl)
	if len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "demo://item/{id}" {
		t.Errorf("templates: %+v", tpl)
	}
	type contents struct {
		Contents []struct{ URI, MimeType, Text, Blob string }
	}
	var rd contents
	c.mustCall(t, "resources/read", map[string]any{"uri": "demo://item/42"}, &rd)
	if rd.Contents[0].Text != "item 42" {
		t.Errorf("item: %+v", rd)
	}
	rd = contents{}
	c.mustCall(t, "resources/read", map[string]any{"uri": "demo://logo.png"}, &rd)
	if rd.Contents[0].Blob == "" || rd.Contents[0].MimeType != "image/png" {
		t.Errorf("logo: %+v", rd)
	}
	err := c.call(t, "resources/read", map[string]any{"uri": "demo://nope"}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32002 {
		t.Errorf("unknown resource: %v", err)
	}
	c.mustCall(t, "resources/subscribe", map[string]any{"uri": "demo://readme"}, nil)
	if n := c.nextNote(t, "notifications/resources/updated"); string(n.Params) != `{"uri":"demo://readme"}` {
		t.Errorf("updated: %s", n.Params)
	}

	var prompts struct {
		Prompts    []struct{ Name string }
		NextCursor string
	}
	c.mustCall(t, "prompts/list", nil, &prompts)
	if len(prompts.Prompts) != 1 || prompts.NextCursor == "" {
		t.Errorf("prompts page: %+v", prompts)
	}
	var got struct {
		Messages []struct {
			Role    string
			Content struct{ Text string }
		}
	}
	c.mustCall(t, "prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada", "style": "pirate"}}, &got)
	if len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.Text, "Ada in a pirate style") {
		t.Errorf("greet: %+v", got)
	}
	if err := c.call(t, "prompts/get", map[string]any{"name": "greet"}, nil); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("greet without name: %v", err)
	}

	var comp struct {
		Completion struct {
			Values  []string
			Total   int
			HasMore bool
		}
	}
	c.mustCall(t, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"},
		"argument": map[string]any{"name": "style", "value": "p"}}, &comp)
	if strings.Join(comp.Completion.Values, ",") != "pirate,poetic" {
		t.Errorf("style completion: %+v", comp)
	}
	c.mustCall(t, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "demo://item/{id}"},
		"argument": map[string]any{"name": "id", "value": "1"}}, &comp)
	if len(comp.Completion.Values) != 10 || !comp.Completion.HasMore || comp.Completion.Values[0] != "1" {
		t.Errorf("id completion: %+v", comp)
	}
}

func TestStdioMisbehaviour(t *testing.T) {
	t.Run("exit-at-start", func(t *testing.T) {
		var stderr bytes.Buffer
		if code := Main(context.Background(), []string{"--exit-at-start"}, strings.NewReader(""), io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "exiting at start") {
			t.Errorf("code %d, stderr %q", code, stderr.String())
		}
	})
	t.Run("bad flag", func(t *testing.T) {
		if code := Main(context.Background(), []string{"--nope"}, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
			t.Errorf("code %d", code)
		}
	})
	t.Run("banner and garbage", func(t *testing.T) {
		c := startStdio(t, nil, "--banner", "--garbage")
		c.init(t, nil)
		c.mustCall(t, "ping", nil, nil)
		// The banner and the garbage after initialize's answer were read
		// before the ping's answer.
		if len(c.bad) < 2 {
			t.Errorf("%d bad lines, want the banner and garbage", len(c.bad))
		}
	})
	t.Run("hang-initialize", func(t *testing.T) {
		c := startStdio(t, nil, "--hang-initialize")
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if _, err := c.conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25"}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("initialize: %v", err)
		}
	})
	t.Run("print-env", func(t *testing.T) {
		t.Setenv("DEMO_SECRET_FOR_TEST", "s3cret")
		c := startStdio(t, nil, "--print-env")
		c.init(t, nil)
		c.stderr.waitFor(t, "DEMO_SECRET_FOR_TEST=s3cret")
	})
	t.Run("start-delay", func(t *testing.T) {
		c := startStdio(t, nil, "--start-delay", "5ms")
		c.init(t, nil)
	})
	t.Run("eof", func(t *testing.T) {
		code := Main(context.Background(), nil, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), io.Discard, io.Discard)
		if code != 0 {
			t.Errorf("code %d", code)
		}
	})
}

// runChild runs the demo as a child process, sends it lines one at a
// time (waiting for an answer line after each but the last) and returns
// its exit code, stdout and stderr.
func runChild(t *testing.T, args []string, lines ...string) (int, string, string) {
	t.Helper()
	a, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DEMO_CHILD_ARGS="+string(a))
	// stdin stays open until the child exits, so that only the child's
	// own doing ends it.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	var stdout strings.Builder
	for i, l := range lines {
		io.WriteString(stdin, l+"\n")
		if i < len(lines)-1 {
			answer, _ := r.ReadString('\n')
			stdout.WriteString(answer)
		}
	}
	rest, _ := io.ReadAll(r)
	stdout.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func TestChildCrash(t *testing.T) {
	const (
		initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		echoLine = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
		crash    = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"crash"}}`
	)
	code, stdout, stderr := runChild(t, []string{}, initLine, echoLine, crash)
	if code != 3 || !strings.Contains(stderr, "demo: crashing as asked") || strings.Contains(stdout, `"id":3`) || !strings.Contains(stdout, `"text":"hi"`) {
		t.Errorf("crash: code %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	code, stdout, _ = runChild(t, []string{"--crash-on-first-call"}, initLine, echoLine)
	if code != 3 || strings.Contains(stdout, `"id":2`) {
		t.Errorf("crash-on-first-call: code %d, stdout %s", code, stdout)
	}
	code, _, stderr = runChild(t, []string{"--exit-at-start"})
	if code != 1 || stderr == "" {
		t.Errorf("exit-at-start: code %d", code)
	}
}

// TestDemoPNG: the written-out PNG decodes to an 8×8 square of 0x2060c0.
func TestDemoPNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(demoPNG()))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 8 || b.Dy() != 8 {
		t.Fatalf("bounds %v", b)
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if r, g, b, a := img.At(x, y).RGBA(); r>>8 != 0x20 || g>>8 != 0x60 || b>>8 != 0xc0 || a>>8 != 0xff {
				t.Fatalf("pixel %d,%d is %x %x %x %x", x, y, r, g, b, a)
			}
		}
	}
}
