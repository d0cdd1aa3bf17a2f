package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// requestMeta is the _meta of a modern request, as the fake sees it.
type requestMeta struct {
	ProtocolVersion    string          `json:"io.modelcontextprotocol/protocolVersion"`
	ClientInfo         *Implementation `json:"io.modelcontextprotocol/clientInfo"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel           string          `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage `json:"progressToken"`
}

// metaOf reads the _meta of a request's params.
func metaOf(m *wire) (*requestMeta, bool) {
	var p struct {
		Meta *requestMeta `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Meta == nil {
		return nil, false
	}
	return p.Meta, true
}

// discoverResult answers server/discover for versions with caps.
func discoverResult(caps string, versions ...string) json.RawMessage {
	vs, _ := json.Marshal(versions)
	return json.RawMessage(fmt.Sprintf(`{"resultType":"complete","supportedVersions":%s,"capabilities":%s,"instructions":"modern and kind","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern-fake","version":"2.0"}}}`, vs, caps))
}

// startModern connects a dual-era session to a fake modern server that
// answers server/discover with caps, checks that every request carries
// the modern _meta, refuses initialize as a modern-only server does, and
// answers everything else through h.
func startModern(t *testing.T, caps string, h func(f *fakeServer, m *wire) (any, error), opts *Options) (*Session, *fakeServer) {
	t.Helper()
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		meta, ok := metaOf(m)
		if !ok || meta.ProtocolVersion != ModernVersion || !declared(meta.ClientCapabilities) || meta.ClientInfo == nil || meta.ClientInfo.Name == "" {
			t.Errorf("%s without the modern _meta: %s", m.Method, m.Params)
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "missing _meta")
		}
		switch m.Method {
		case "server/discover":
			return discoverResult(caps, ModernVersion), nil
		case "initialize":
			t.Errorf("a modern session sent initialize")
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
		}
		if h == nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
		}
		return h(f, m)
	})
	return connectFake(t, f, opts), f
}

func TestModernDiscover(t *testing.T) {
	methods := make(chan string, 10)
	s, f := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		methods <- m.Method
		return json.RawMessage(`{"resultType":"complete","tools":[]}`), nil
	}, nil)
	if s.Era() != EraModern || s.ProtocolVersion() != ModernVersion {
		t.Fatalf("era %s, version %s", s.Era(), s.ProtocolVersion())
	}
	init := s.Init()
	if init.ServerInfo.Name != "modern-fake" || init.Instructions != "modern and kind" || init.Capabilities.Tools == nil {
		t.Errorf("init %+v", init)
	}
	if _, err := s.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m := <-methods; m != "tools/list" {
		t.Errorf("the server got %s", m)
	}
	// No initialized notification, no ping: nothing but requests.
	select {
	case n := <-f.notes:
		t.Errorf("a modern session sent %s", n.Method)
	default:
	}
	// Ping is server/discover in the modern era.
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestModernMeta(t *testing.T) {
	type seen struct {
		method string
		meta   *requestMeta
		params json.RawMessage
	}
	got := make(chan seen, 20)
	elicit := func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) { return nil, nil }
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		meta, _ := metaOf(m)
		got <- seen{m.Method, meta, m.Params}
		switch m.Method {
		case "tools/call":
			return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"ok"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"renamed","version":"3"}}}`), nil
		case "resources/read":
			return json.RawMessage(`{"resultType":"complete","contents":[{"uri":"demo://x","text":"x"}],"ttlMs":5,"cacheScope":"private"}`), nil
		case "prompts/get":
			return json.RawMessage(`{"messages":[]}`), nil // no resultType: complete
		}
		return json.RawMessage(`{"resultType":"complete","tools":[]}`), nil
	}, &Options{Elicit: elicit, ClientName: "tester", ClientVersion: "9"})
	ctx := context.Background()
	if _, err := s.CallTool(ctx, "echo", map[string]string{"a": "b"}, &CallOptions{Progress: func(ProgressParams) {}, Meta: map[string]any{"com.example/k": "v"}}); err != nil {
		t.Fatal(err)
	}
	c := <-got
	if c.meta.ClientInfo.Name != "tester" || c.meta.ClientInfo.Version != "9" || len(c.meta.ProgressToken) == 0 {
		t.Errorf("tools/call _meta %+v", c.meta)
	}
	// No Roots option: no roots capability (no roots unless asked); the
	// Tasks extension, which CallTool follows.
	if string(c.meta.ClientCapabilities) != `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/tasks":{}}}` {
		t.Errorf("capabilities %s", c.meta.ClientCapabilities)
	}
	if !strings.Contains(string(c.params), `"com.example/k":"v"`) || !strings.Contains(string(c.params), `"arguments":{"a":"b"}`) {
		t.Errorf("params %s", c.params)
	}
	if s.ServerInfo().Name != "renamed" {
		t.Errorf("server info from _meta: %+v", s.ServerInfo())
	}
	// The log level goes with every later request; no logging/setLevel.
	if err := s.SetLogLevel(ctx, "debug"); err != nil {
		t.Fatal(err)
	}
	rr, err := s.ReadResource(ctx, "demo://x")
	if err != nil {
		t.Fatal(err)
	}
	if c := <-got; c.method != "resources/read" || c.meta.LogLevel != "debug" {
		t.Errorf("%s _meta %+v", c.method, c.meta)
	}
	if rr.TTLMs == nil || *rr.TTLMs != 5 || rr.CacheScope != "private" {
		t.Errorf("read result %+v", rr)
	}
	if _, err := s.GetPrompt(ctx, "p", nil); err != nil {
		t.Fatal(err)
	}
	if c := <-got; c.method != "prompts/get" || c.meta.LogLevel != "debug" {
		t.Errorf("%s _meta %+v", c.method, c.meta)
	}
}

func TestModernResultType(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		switch m.Method {
		case "tools/list":
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`), nil
		case "tools/call":
			return json.RawMessage(`{"resultType":"partial","content":[]}`), nil
		}
		return json.RawMessage(`{"resultType":"complete","completion":{"values":[]}}`), nil
	}, nil)
	ctx := context.Background()
	var re *ResultError
	if _, err := s.ListTools(ctx); !errors.As(err, &re) || !strings.Contains(err.Error(), "input_required") {
		t.Errorf("input_required on tools/list: %v", err)
	}
	if _, err := s.CallTool(ctx, "x", nil, nil); !errors.As(err, &re) || !strings.Contains(err.Error(), "partial") {
		t.Errorf("unknown resultType: %v", err)
	}
	if _, err := s.Complete(ctx, PromptRef("p"), "a", "", nil); err != nil {
		t.Errorf("complete: %v", err)
	}
}

// unsupported answers a discover request with -32022 listing supported.
func unsupported(m *wire, supported ...string) error {
	meta, _ := metaOf(m)
	data, _ := json.Marshal(map[string]any{"supported": supported, "requested": meta.ProtocolVersion})
	return &jsonrpc.Error{Code: CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
}

func TestUnsupportedVersionRetried(t *testing.T) {
	var mu sync.Mutex
	var ids []string
	first := true
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		mu.Lock()
		ids = append(ids, string(m.ID))
		again := first
		first = false
		mu.Unlock()
		if m.Method == "server/discover" && again {
			return nil, unsupported(m, ModernVersion)
		}
		if m.Method == "server/discover" {
			return discoverResult(`{"tools":{}}`, ModernVersion), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	})
	s, err := Connect(context.Background(), f.stream(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mu.Lock()
	defer mu.Unlock()
	if s.Era() != EraModern || len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("era %s, request ids %v", s.Era(), ids)
	}
}

func TestUnsupportedVersionToLegacy(t *testing.T) {
	var methods []string
	var mu sync.Mutex
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		mu.Lock()
		methods = append(methods, m.Method)
		mu.Unlock()
		switch m.Method {
		case "server/discover":
			return nil, unsupported(m, "2025-06-18", "2024-11-05")
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(m.Params, &p)
			return initResult(p.ProtocolVersion, `{}`), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
	})
	s, err := Connect(context.Background(), f.stream(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Era() != EraLegacy || s.ProtocolVersion() != "2025-06-18" {
		t.Errorf("era %s, version %s", s.Era(), s.ProtocolVersion())
	}
	f.waitNote(t, "notifications/initialized")
}

func TestUnsupportedVersionNoneInCommon(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		return nil, unsupported(m, "2099-01-01")
	})
	_, err := Connect(context.Background(), f.stream(), nil)
	var ue *UnsupportedVersionError
	if !errors.As(err, &ue) || !slices.Equal(ue.Supported, []string{"2099-01-01"}) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"2099-01-01", "2026-07-28", "2024-11-05"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
}

// A legacy server that never answers the probe: after the probe timeout
// the session falls back to initialize, and tells the server nothing of
// the probe it gave up.
func TestProbeTimeoutFallsBack(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "initialize" {
			return initResult("2025-03-26", `{"tools":{}}`), nil
		}
		<-f.done
		return nil, noAnswer
	})
	s, err := Connect(context.Background(), f.stream(), &Options{ProbeOverlap: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Era() != EraLegacy || s.ProtocolVersion() != "2025-03-26" {
		t.Errorf("era %s, version %s", s.Era(), s.ProtocolVersion())
	}
	f.waitNote(t, "notifications/initialized")
}

// A -32022 without data.supported is no modern error: a legacy server's
// own code. With data.supported it is, and never a fallback to the
// default legacy revision.
func TestUnsupportedWithoutData(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "initialize" {
			return initResult("2025-11-25", `{}`), nil
		}
		return nil, jsonrpc.NewError(CodeUnsupportedProtocolVersion, "not now")
	})
	s, err := Connect(context.Background(), f.stream(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Era() != EraLegacy {
		t.Errorf("era %s", s.Era())
	}
}

// A legacy server that exits on a request it does not know.
func TestProbeClosesConnection(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		f.conn.Close()
		return nil, noAnswer
	})
	_, err := Connect(context.Background(), f.stream(), nil)
	if !errors.Is(err, ErrClosedByProbe) || !errors.Is(err, io.EOF) {
		t.Fatalf("got %v", err)
	}
}

func TestHintLegacySkipsProbe(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method != "initialize" {
			t.Errorf("got %s", m.Method)
		}
		return initResult("2025-06-18", `{}`), nil
	})
	s, err := Connect(context.Background(), f.stream(), &Options{Hint: &EraHint{Era: EraLegacy, Version: "2025-06-18"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ProtocolVersion() != "2025-06-18" {
		t.Errorf("version %s", s.ProtocolVersion())
	}
}

// A server cached as legacy that became modern refuses initialize: the
// era is detected afresh.
func TestHintLegacyWrong(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "initialize" {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: initialize")
		}
		return discoverResult(`{}`, ModernVersion), nil
	})
	s, err := Connect(context.Background(), f.stream(), &Options{Hint: &EraHint{Era: EraLegacy}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Era() != EraModern {
		t.Errorf("era %s", s.Era())
	}
}

func TestPinnedModernAgainstLegacy(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "initialize" {
			t.Error("a session pinned to the modern era sent initialize")
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found")
	})
	_, err := Connect(context.Background(), f.stream(), &Options{ProtocolVersion: ModernVersion})
	if err == nil || !strings.Contains(err.Error(), "does not speak 2026-07-28 (pinned)") {
		t.Fatalf("got %v", err)
	}
}

// A pinned legacy revision accepts an older legacy answer, as a client of
// that revision would (ask 2025-06-18, accept 2025-03-26), never a newer
// one.
func TestPinnedLegacyAcceptsOlder(t *testing.T) {
	for _, tc := range []struct{ answer, err string }{
		{"2025-03-26", ""},
		{"2025-06-18", ""},
		{"2025-11-25", "newer than 2025-06-18 as pinned"},
	} {
		f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
			if m.Method != "initialize" {
				t.Errorf("a pinned legacy session sent %s", m.Method)
			}
			return initResult(tc.answer, `{}`), nil
		})
		s, err := Connect(context.Background(), f.stream(), &Options{ProtocolVersion: "2025-06-18"})
		if tc.err != "" {
			var ve *VersionError
			if !errors.As(err, &ve) || !ve.Pinned || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("answer %s: got %v", tc.answer, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("answer %s: %v", tc.answer, err)
		}
		if s.ProtocolVersion() != tc.answer || s.Era() != EraLegacy {
			t.Errorf("answer %s: speaks %s %s", tc.answer, s.Era(), s.ProtocolVersion())
		}
		s.Close()
	}
}

// mrtrServer answers tools/call with input_required until the retry
// carries inputResponses for every key.
func TestMultiRoundTrip(t *testing.T) {
	type call struct {
		id     string
		params map[string]json.RawMessage
	}
	calls := make(chan call, 10)
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p map[string]json.RawMessage
		json.Unmarshal(m.Params, &p)
		calls <- call{string(m.ID), p}
		var name string
		json.Unmarshal(p["name"], &name)
		switch {
		case name == "no-state" && p["inputResponses"] == nil:
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{"ok":{"method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object"}}}}}`), nil
		case name == "no-state":
			return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"done"}]}`), nil
		case name == "forever":
			return json.RawMessage(`{"resultType":"input_required","requestState":"again"}`), nil
		case p["inputResponses"] == nil:
			return json.RawMessage(`{"resultType":"input_required","inputRequests":{
				"ask":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}},
				"llm":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}},
				"dirs":{"method":"roots/list"}},"requestState":"opaque \"state\" ✓"}`), nil
		}
		return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"thanks"}]}`), nil
	}, &Options{
		MaxInputRounds: 3,
		Elicit: func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
			return &ElicitResult{Action: "accept", Content: map[string]any{"n": "Ada"}}, nil
		},
		Sample: func(ctx context.Context, p json.RawMessage) (any, error) {
			return map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "hi"}}, nil
		},
		Roots: func(ctx context.Context) ([]Root, error) { return []Root{{URI: "file:///w", Name: "w"}}, nil },
	})
	ctx := context.Background()
	res, err := s.CallTool(ctx, "all", map[string]string{"x": "y"}, nil)
	if err != nil || res.Content[0].Text != "thanks" {
		t.Fatalf("%+v %v", res, err)
	}
	first, retry := <-calls, <-calls
	if first.id == retry.id {
		t.Errorf("the retry reused id %s", first.id)
	}
	if string(retry.params["requestState"]) != `"opaque \"state\" ✓"` || string(retry.params["arguments"]) != `{"x":"y"}` {
		t.Errorf("retry params %s %s", retry.params["requestState"], retry.params["arguments"])
	}
	var responses map[string]map[string]any
	json.Unmarshal(retry.params["inputResponses"], &responses)
	if responses["ask"]["action"] != "accept" || responses["llm"]["model"] != "m" || responses["dirs"]["roots"] == nil {
		t.Errorf("inputResponses %s", retry.params["inputResponses"])
	}
	if _, ok := first.params["inputResponses"]; ok {
		t.Error("the first request had inputResponses")
	}

	// Without requestState the retry sends none.
	if _, err := s.CallTool(ctx, "no-state", nil, nil); err != nil {
		t.Fatal(err)
	}
	<-calls
	if r := <-calls; r.params["requestState"] != nil || r.params["inputResponses"] == nil {
		t.Errorf("no-state retry %v", r.params)
	}

	// The rounds are bounded.
	_, err = s.CallTool(ctx, "forever", nil, nil)
	var re *InputRoundsError
	if !errors.As(err, &re) || re.Rounds != 3 {
		t.Errorf("got %v", err)
	}
}

func TestMultiRoundTripUndeclared(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		return json.RawMessage(`{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}}`), nil
	}, nil)
	_, err := s.CallTool(context.Background(), "t", nil, nil)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Input != "sampling/createMessage" || !strings.Contains(err.Error(), "sampling") {
		t.Fatalf("got %v", err)
	}
}

func TestModernPagination(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		switch {
		case p.Cursor == nil: // an empty cursor is a cursor in the modern era
			return json.RawMessage(`{"resultType":"complete","tools":[{"name":"a"}],"nextCursor":"","ttlMs":60000,"cacheScope":"public"}`), nil
		case *p.Cursor == "":
			return json.RawMessage(`{"resultType":"complete","tools":[{"name":"b"}],"ttlMs":30000,"cacheScope":"private"}`), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad cursor")
	}, &Options{OnToolsChanged: func() {}})
	tools, err := s.ListTools(context.Background())
	if err != nil || len(tools) != 2 {
		t.Fatalf("%v %v", tools, err)
	}
	h := s.CacheHint("tools/list")
	if !h.Given || h.TTL != 30*time.Second || h.Scope != "private" || !h.Fresh(time.Now()) {
		t.Errorf("hint %+v", h)
	}
}

func TestModernResourceNotFound(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Resource not found")
	}, nil)
	_, err := s.ReadResource(context.Background(), "demo://nope")
	if !IsResourceNotFound(err) {
		t.Fatalf("got %v", err)
	}
}

// A call timed out over stdio in the modern era: notifications/cancelled.
// (The timeout is the call's own: the start keeps the default one, so
// that a slow machine does not end the discover probe.)
func TestModernCancelSendsCancelled(t *testing.T) {
	timedOut(t, func(time.Duration) (*Session, *fakeServer) {
		return startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
			if strings.Contains(string(m.Params), `"name":"sleep"`) {
				<-f.done
				return nil, noAnswer
			}
			return json.RawMessage(`{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`), nil
		}, nil)
	}, func(s *Session, d time.Duration) error {
		_, err := s.CallTool(context.Background(), "sleep", nil, &CallOptions{Timeout: d})
		return err
	})
}

func TestListen(t *testing.T) {
	listens := make(chan *wire, 10)
	changed := make(chan struct{}, 10)
	updated := make(chan string, 10)
	s, f := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		if m.Method != "subscriptions/listen" {
			return json.RawMessage(`{"resultType":"complete"}`), nil
		}
		var p struct {
			Notifications listenFilter `json:"notifications"`
		}
		json.Unmarshal(m.Params, &p)
		ack := p.Notifications
		ack.ResourceSubscriptions = slices.DeleteFunc(ack.ResourceSubscriptions, func(u string) bool { return u == "demo://refused" })
		f.notify("notifications/subscriptions/acknowledged", map[string]any{
			"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}, "notifications": ack})
		listens <- m
		<-f.done
		return nil, noAnswer
	}, &Options{
		OnToolsChanged:    func() { changed <- struct{}{} },
		OnResourceUpdated: func(uri string) { updated <- uri },
	})
	first := <-listens
	if !strings.Contains(string(first.Params), `"notifications":{"toolsListChanged":true}`) {
		t.Errorf("listen params %s", first.Params)
	}
	f.notify("notifications/tools/list_changed", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": first.ID}})
	<-changed

	ctx := context.Background()
	if err := s.Subscribe(ctx, "demo://x"); err != nil {
		t.Fatal(err)
	}
	// The old stream is given up (stdio: notifications/cancelled), a new
	// one opened with the resource.
	n := f.waitNote(t, "notifications/cancelled")
	if !strings.Contains(string(n.Params), `"requestId":`+string(first.ID)) {
		t.Errorf("cancelled %s, want the first listen %s", n.Params, first.ID)
	}
	second := <-listens
	if !strings.Contains(string(second.Params), `"resourceSubscriptions":["demo://x"]`) {
		t.Errorf("listen params %s", second.Params)
	}
	f.notify("notifications/resources/updated", map[string]any{"uri": "demo://x"})
	if u := <-updated; u != "demo://x" {
		t.Errorf("updated %s", u)
	}
	// A subscription the server does not acknowledge is an error.
	if err := s.Subscribe(ctx, "demo://refused"); err == nil || !strings.Contains(err.Error(), "did not accept") {
		t.Errorf("got %v", err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// envelopes records the request metadata a session hands to an HTTP-like
// stream.
type envelopes struct {
	jsonrpc.Stream
	mu  sync.Mutex
	env map[string]map[string]string // by method, the last one
}

func (e *envelopes) WriteEnvelope(ctx context.Context, msg jsonrpc.Message, env map[string]string) error {
	e.mu.Lock()
	e.env[msg.(*jsonrpc.Request).Method] = env
	e.mu.Unlock()
	return e.Stream.Write(ctx, msg)
}

func (e *envelopes) of(method string) map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.env[method]
}

func TestHeaderEnvelope(t *testing.T) {
	tools := `{"resultType":"complete","tools":[
		{"name":"q","inputSchema":{"type":"object","properties":{
			"region":{"type":"string","x-mcp-header":"Region"},
			"n":{"type":"integer","x-mcp-header":"N"},
			"on":{"type":"boolean","x-mcp-header":"On"},
			"gone":{"type":"string","x-mcp-header":"Gone"},
			"deep":{"type":"object","properties":{"k":{"type":"string","x-mcp-header":"Deep"}}},
			"plain":{"type":"string"}}}},
		{"name":"bad","inputSchema":{"type":"object","properties":{"v":{"type":"number","x-mcp-header":"V"}}}}]}`
	var mu sync.Mutex
	mismatches := 1
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		switch m.Method {
		case "server/discover":
			return discoverResult(`{"tools":{}}`, ModernVersion), nil
		case "tools/list":
			return json.RawMessage(tools), nil
		case "tools/call":
			mu.Lock()
			defer mu.Unlock()
			if mismatches > 0 && strings.Contains(string(m.Params), `"name":"mismatch"`) {
				mismatches--
				return nil, jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch")
			}
			return json.RawMessage(`{"resultType":"complete","content":[]}`), nil
		}
		return json.RawMessage(`{"resultType":"complete"}`), nil
	})
	st := &envelopes{Stream: f.stream(), env: map[string]map[string]string{}}
	var rejected []string
	s, err := Connect(context.Background(), st, &Options{OnToolRejected: func(tool, reason string) { rejected = append(rejected, tool+": "+reason) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if env := st.of("server/discover"); env["Mcp-Protocol-Version"] != ModernVersion || env["Mcp-Method"] != "server/discover" {
		t.Errorf("discover envelope %v", env)
	}
	ctx := context.Background()
	// Calling a tool not listed yet costs no listing: it goes without
	// Mcp-Param-* headers (this server does not ask for them).
	args := map[string]any{"region": "Hello, 世界", "n": 42, "on": false, "gone": nil, "deep": map[string]any{"k": "v"}, "plain": "p"}
	if _, err := s.CallTool(ctx, "q", args, nil); err != nil {
		t.Fatal(err)
	}
	bare := map[string]string{"Mcp-Protocol-Version": ModernVersion, "Mcp-Method": "tools/call", "Mcp-Name": "q"}
	if got := st.of("tools/call"); fmt.Sprint(got) != fmt.Sprint(bare) {
		t.Errorf("tools/call envelope before a listing\n got %v\nwant %v", got, bare)
	}
	if env := st.of("tools/list"); env != nil {
		t.Errorf("a call listed the tools: %v", env)
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(ctx, "q", args, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Mcp-Protocol-Version": ModernVersion, "Mcp-Method": "tools/call", "Mcp-Name": "q",
		"Mcp-Param-Region": "Hello, 世界", "Mcp-Param-N": "42", "Mcp-Param-On": "false", "Mcp-Param-Deep": "v"}
	if got := st.of("tools/call"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("tools/call envelope\n got %v\nwant %v", got, want)
	}
	if len(rejected) != 1 || !strings.HasPrefix(rejected[0], "bad: ") || !strings.Contains(rejected[0], "number") {
		t.Errorf("rejected %v", rejected)
	}
	list, err := s.ListTools(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "q" {
		t.Errorf("listed %v %v", list, err)
	}
	var tr *ToolRejectedError
	if _, err := s.CallTool(ctx, "bad", map[string]any{"v": 1.5}, nil); !errors.As(err, &tr) {
		t.Errorf("calling a rejected tool: %v", err)
	}
	// A header mismatch lists the tools again and retries once.
	if _, err := s.CallTool(ctx, "mismatch", nil, nil); err != nil {
		t.Errorf("after a header mismatch: %v", err)
	}
	if _, err := s.ReadResource(ctx, "demo://a b"); err == nil {
		t.Error("read without the resources capability")
	}
}

func TestToolHeaderParams(t *testing.T) {
	tests := []struct {
		schema string
		want   string // the headers, or the start of the error
	}{
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}`, "Mcp-Param-A"},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, "error: x-mcp-header of parameter a is empty"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My Region"}}}`, "error: x-mcp-header \"My Region\""},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R:1"}}}`, "error: x-mcp-header \"R:1\""},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Région"}}}`, "error: x-mcp-header \"Région\""},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R\t1"}}}`, "error: x-mcp-header \"R\\t1\""},
		{`{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, "error: x-mcp-header \"A\" is on parameter a of type object"},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"x-mcp-header":"A"}}}`, "error: x-mcp-header \"A\" is on parameter a of type array"},
		{`{"type":"object","properties":{"a":{"type":"null","x-mcp-header":"A"}}}`, "error: x-mcp-header \"A\" is on parameter a of type null"},
		{`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, "error: x-mcp-header \"A\" is on parameter a of type number"},
		{`{"type":"object","properties":{"a":{"type":["string","null"],"x-mcp-header":"A"}}}`, "Mcp-Param-A"},
		{`{"type":"object","properties":{"a":{"type":["string","integer"],"x-mcp-header":"A"}}}`, "error: x-mcp-header \"A\" is on parameter a of type [\"string\",\"integer\"]"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"R"}}}`, "error: x-mcp-header \"R\" repeats"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`, "error: x-mcp-header \"myfield\" repeats \"MyField\""},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`, "error: x-mcp-header \"A\" is on parameter a, which is not reached"},
		{`{"type":"object","allOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "error: x-mcp-header \"A\" is on parameter a, which is not reached"},
		{`{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"A"}}}`, "error: x-mcp-header \"A\" is on the schema's root"},
		{`{"type":"string","x-mcp-header":"A"}`, "error: x-mcp-header \"A\" is on the schema's root"},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"k":{"type":"integer","x-mcp-header":"K"}}}}}`, "Mcp-Param-K"},
	}
	for _, tt := range tests {
		params, err := toolHeaderParams(json.RawMessage(tt.schema))
		var got string
		if err != nil {
			got = "error: " + err.Error()
		} else {
			var hs []string
			for _, p := range params {
				hs = append(hs, p.header)
			}
			got = strings.Join(hs, ",")
		}
		if !strings.HasPrefix(got, tt.want) || tt.want == "" && got != "" {
			t.Errorf("%s:\n got %s\nwant %s", tt.schema, got, tt.want)
		}
	}
}

// Options.Discovered starts a modern session without server/discover
// when it names the pinned version; one that does not is not used.
func TestDiscoveredSkipsDiscover(t *testing.T) {
	for _, c := range []struct {
		name, versions string
		asked          bool
	}{
		{"used", ModernVersion, false},
		{"another version", "2099-01-01", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			methods := make(chan string, 10)
			f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
				methods <- m.Method
				if m.Method == "server/discover" {
					return discoverResult(allCaps, ModernVersion), nil
				}
				return json.RawMessage(`{"resultType":"complete","tools":[]}`), nil
			})
			given := json.RawMessage(`{"resultType":"complete","supportedVersions":["` + c.versions + `"],"capabilities":` + allCaps +
				`,"instructions":"handed over","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"given","version":"2"}}}`)
			s := connectFake(t, f, &Options{ProtocolVersion: ModernVersion, Discovered: given})
			if _, err := s.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			first := <-methods
			if asked := first == "server/discover"; asked != c.asked {
				t.Fatalf("the first request was %s", first)
			}
			if !c.asked && (s.Init().Instructions != "handed over" || s.Era() != EraModern || s.Init().Capabilities.Tools == nil) {
				t.Errorf("init %+v, era %s", s.Init(), s.Era())
			}
		})
	}
}
