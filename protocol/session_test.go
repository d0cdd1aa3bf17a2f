package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestVersionNegotiation connects a dual-era session to a legacy server
// that answers every request with an initialize result: the answer to the
// server/discover probe is no discover result, so the session falls back
// to initialize, asking for the newest legacy revision and taking the one
// answered.
func TestVersionNegotiation(t *testing.T) {
	for _, v := range SupportedVersions() {
		if EraOf(v) != EraLegacy {
			continue
		}
		t.Run(v, func(t *testing.T) {
			var asked string
			var caps json.RawMessage
			f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
				var p struct {
					ProtocolVersion string          `json:"protocolVersion"`
					Capabilities    json.RawMessage `json:"capabilities"`
				}
				json.Unmarshal(m.Params, &p)
				asked, caps = p.ProtocolVersion, p.Capabilities
				return initResult(v, `{}`), nil
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st := &versionStream{Stream: f.stream()}
			s, err := Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if asked != LatestLegacyVersion {
				t.Errorf("asked for %q, want %q", asked, LatestLegacyVersion)
			}
			if s.Era() != EraLegacy || s.ProtocolVersion() != v {
				t.Errorf("era %s, version %s", s.Era(), s.ProtocolVersion())
			}
			if string(caps) != `{}` { // no callbacks: nothing declared, no roots
				t.Errorf("capabilities %s", caps)
			}
			if got := s.Init().ProtocolVersion; got != v {
				t.Errorf("negotiated %q, want %q", got, v)
			}
			if st.version() != v {
				t.Errorf("SetProtocolVersion got %q, want %q", st.version(), v)
			}
			if s.Init().ServerInfo.Name != "fake" || s.Init().Instructions != "be nice" {
				t.Errorf("init result %+v", s.Init())
			}
			f.waitNote(t, "notifications/initialized")
		})
	}
}

// versionStream records SetProtocolVersion.
type versionStream struct {
	jsonrpc.Stream
	mu sync.Mutex
	v  string
}

func (s *versionStream) SetProtocolVersion(v string) { s.mu.Lock(); s.v = v; s.mu.Unlock() }
func (s *versionStream) version() string             { s.mu.Lock(); defer s.mu.Unlock(); return s.v }

func TestVersionRefused(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		return initResult("1999-01-01", `{"tools":{}}`), nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Connect(ctx, f.stream(), &Options{ProtocolVersion: "2025-06-18"})
	var ve *VersionError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *VersionError", err)
	}
	if ve.Asked != "2025-06-18" || ve.Answered != "1999-01-01" {
		t.Errorf("VersionError %+v", ve)
	}
	for _, want := range []string{"1999-01-01", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	// The stream was closed: the fake sees the end and no initialized.
	select {
	case n := <-f.notes:
		t.Errorf("client sent %s after a refused version", n.Method)
	default:
	}
}

func TestAskedVersionChecked(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		t.Error("the client sent something")
		return nil, noAnswer
	})
	_, err := Connect(context.Background(), f.stream(), &Options{ProtocolVersion: "2030-01-01"})
	if err == nil || !strings.Contains(err.Error(), "2030-01-01") {
		t.Fatalf("got %v", err)
	}
}

func TestInitializeError(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unsupported protocol version")
	})
	_, err := Connect(context.Background(), f.stream(), nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("got %v, want the server's error", err)
	}
	if err.Error() != "initialize: Unsupported protocol version" {
		t.Errorf("error text %q", err)
	}
}

func TestInitializeNeverCancelled(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		<-f.done
		return nil, noAnswer
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Connect(ctx, f.stream(), &Options{ProtocolVersion: LatestLegacyVersion})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "initialize: ") {
		t.Fatalf("got %v", err)
	}
	select {
	case n := <-f.notes:
		t.Errorf("client sent %s for initialize", n.Method)
	default:
	}
}

func TestInitializeTimeout(t *testing.T) {
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		<-f.done
		return nil, noAnswer
	})
	_, err := Connect(context.Background(), f.stream(), &Options{Timeout: 20 * time.Millisecond, ProtocolVersion: LatestLegacyVersion})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Method != "initialize" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	select {
	case n := <-f.notes:
		t.Errorf("client sent %s for initialize", n.Method)
	default:
	}
}

func TestClientCapabilities(t *testing.T) {
	elicit := func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) { return nil, nil }
	sample := func(ctx context.Context, p json.RawMessage) (any, error) { return nil, nil }
	roots := func(context.Context) ([]Root, error) { return nil, nil }
	// No roots unless asked: without Options.Roots the capability is not
	// declared.
	tests := []struct {
		version string
		opts    Options
		want    string
	}{
		{"2025-11-25", Options{Elicit: elicit}, `{"elicitation":{"form":{}}}`},
		{"2025-11-25", Options{Elicit: elicit, ElicitURL: true, Sample: sample, Roots: roots}, `{"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true},"sampling":{}}`},
		{"2025-06-18", Options{Elicit: elicit, ElicitURL: true}, `{"elicitation":{}}`},
		{"2025-11-25", Options{ElicitURL: true}, `{}`},
		{"2025-11-25", Options{Roots: roots}, `{"roots":{"listChanged":true}}`},
	}
	for _, tt := range tests {
		got := make(chan string, 1)
		f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
			var p struct {
				Capabilities json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(m.Params, &p)
			got <- string(p.Capabilities)
			return initResult(tt.version, `{}`), nil
		})
		tt.opts.ProtocolVersion = tt.version
		s, err := Connect(context.Background(), f.stream(), &tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if g := <-got; g != tt.want {
			t.Errorf("%s %+v: capabilities %s, want %s", tt.version, tt.opts, g, tt.want)
		}
	}
}

func TestCapabilityGating(t *testing.T) {
	sent := make(chan string, 10)
	s, _ := startFake(t, `{}`, func(f *fakeServer, m *wire) (any, error) {
		sent <- m.Method
		return struct{}{}, nil
	}, nil)
	ctx := context.Background()
	checks := []struct {
		capability string
		err        error
	}{
		{"tools", errOf(s.ListTools(ctx))},
		{"tools", errOf(s.CallTool(ctx, "x", nil, nil))},
		{"resources", errOf(s.ListResources(ctx))},
		{"resources", errOf(s.ListResourceTemplates(ctx))},
		{"resources", errOf(s.ReadResource(ctx, "file:///x"))},
		{"resources.subscribe", s.Subscribe(ctx, "file:///x")},
		{"resources.subscribe", s.Unsubscribe(ctx, "file:///x")},
		{"prompts", errOf(s.ListPrompts(ctx))},
		{"prompts", errOf(s.GetPrompt(ctx, "p", nil))},
		{"completions", errOf(s.Complete(ctx, PromptRef("p"), "a", "", nil))},
		{"logging", s.SetLogLevel(ctx, "info")},
	}
	for _, c := range checks {
		var ce *CapabilityError
		if !errors.As(c.err, &ce) || ce.Capability != c.capability {
			t.Errorf("got %v, want a CapabilityError for %s", c.err, c.capability)
		}
	}
	for _, err := range s.Tools(ctx) {
		var ce *CapabilityError
		if !errors.As(err, &ce) {
			t.Errorf("Tools: got %v", err)
		}
	}
	// Ping needs no capability; it is the only thing the fake saw.
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if m := <-sent; m != "ping" {
		t.Errorf("the server got %s", m)
	}
}

// subscribe without resources.subscribe is refused even with resources.
func TestSubscribeGating(t *testing.T) {
	s, _ := startFake(t, `{"resources":{}}`, func(f *fakeServer, m *wire) (any, error) {
		return json.RawMessage(`{"resources":[]}`), nil
	}, nil)
	var ce *CapabilityError
	if err := s.Subscribe(context.Background(), "x"); !errors.As(err, &ce) || ce.Capability != "resources.subscribe" {
		t.Errorf("got %v", err)
	}
	if _, err := s.ListResources(context.Background()); err != nil {
		t.Error(err)
	}
}

func errOf[T any](_ T, err error) error { return err }

// pagedTools answers tools/list in pages of 2 tools; cursor "c<n>" asks
// for page n, and pages run to last.
func pagedTools(last int, loopAt int) func(f *fakeServer, m *wire) (any, error) {
	return func(f *fakeServer, m *wire) (any, error) {
		if m.Method != "tools/list" {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
		}
		var p struct {
			Cursor *string `json:"cursor"`
		}
		json.Unmarshal(m.Params, &p)
		page := 1
		if p.Cursor != nil {
			if _, err := fmt.Sscanf(*p.Cursor, "c%d", &page); err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "bad cursor")
			}
		}
		res := map[string]any{"tools": []map[string]any{
			{"name": fmt.Sprintf("t%d-a", page), "inputSchema": map[string]any{"type": "object"}},
			{"name": fmt.Sprintf("t%d-b", page), "inputSchema": map[string]any{"type": "object"}},
		}}
		switch {
		case loopAt > 0 && page == loopAt:
			res["nextCursor"] = "c3"
		case page < last:
			res["nextCursor"] = fmt.Sprintf("c%d", page+1)
		}
		return res, nil
	}
}

func TestPagination(t *testing.T) {
	s, _ := startFake(t, allCaps, pagedTools(50, 0), nil)
	tools, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 100 || tools[0].Name != "t1-a" || tools[99].Name != "t50-b" {
		t.Fatalf("got %d tools", len(tools))
	}
	// The iterator form stops early when asked to.
	n := 0
	for tool, err := range s.Tools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			if tool.Name != "t2-a" {
				t.Errorf("third tool %s", tool.Name)
			}
			break
		}
	}
}

// TestPaginationGivenUpEarly stops a listing while the next page, asked
// for ahead, is still due: that request is given up and the server told.
func TestPaginationGivenUpEarly(t *testing.T) {
	paged := pagedTools(50, 0)
	s, f := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		switch {
		case m.Method == "ping":
			return map[string]any{}, nil
		case strings.Contains(string(m.Params), `"c2"`):
			<-f.done
			return nil, noAnswer
		}
		return paged(f, m)
	}, nil)
	for _, err := range s.Tools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	n := f.waitNote(t, "notifications/cancelled")
	// ids: 1 initialize, 2 page 1, 3 page 2 (asked for ahead).
	if !strings.Contains(string(n.Params), `"requestId":3`) {
		t.Errorf("cancelled %s", n.Params)
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("the session does not go on: %v", err)
	}
}

func TestPaginationLoop(t *testing.T) {
	s, _ := startFake(t, allCaps, pagedTools(50, 7), nil)
	_, err := s.ListTools(context.Background())
	var le *CursorLoopError
	if !errors.As(err, &le) || le.Cursor != "c3" || le.Page != 7 {
		t.Fatalf("got %v, want a CursorLoopError", err)
	}
}

// TestTimeoutSendsCancelled: the session's timeout (Options.Timeout)
// ends a call with a TimeoutError and notifications/cancelled saying it
// timed out; the session goes on (timedOut's echo).
func TestTimeoutSendsCancelled(t *testing.T) {
	n := timedOut(t, func(d time.Duration) (*Session, *fakeServer) {
		return startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(m.Params, &p)
			if p.Name == "sleep" {
				<-f.done
				return nil, noAnswer
			}
			return json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`), nil
		}, &Options{Timeout: d, StartTimeout: time.Minute}) // the call's timeout, not the start's
	}, func(s *Session, _ time.Duration) error {
		_, err := s.CallTool(context.Background(), "sleep", nil, nil)
		var te *TimeoutError
		if !errors.As(err, &te) || te.Method != "tools/call" {
			t.Fatalf("got %v, want a TimeoutError", err)
		}
		return err
	})
	var p struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(n.Params, &p)
	if !strings.Contains(p.Reason, "timed out") {
		t.Errorf("cancelled %s, want a reason saying it timed out", n.Params)
	}
}

func TestCallerCancelSendsCancelled(t *testing.T) {
	started := make(chan struct{})
	s, f := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		close(started)
		<-f.done
		return nil, noAnswer
	}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := s.CallTool(ctx, "sleep", nil, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	n := f.waitNote(t, "notifications/cancelled")
	if !strings.Contains(string(n.Params), `"requestId":2`) {
		t.Errorf("cancelled %s", n.Params)
	}
}

func TestConcurrentCalls(t *testing.T) {
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct {
			Arguments struct {
				N int `json:"n"`
			} `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		return map[string]any{"content": []map[string]any{{"type": "text", "text": fmt.Sprint(p.Arguments.N)}}}, nil
	}, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			res, err := s.CallTool(context.Background(), "echo", map[string]int{"n": i}, nil)
			if err != nil {
				errs <- err
				return
			}
			if res.Content[0].Text != fmt.Sprint(i) {
				errs <- fmt.Errorf("call %d got %q", i, res.Content[0].Text)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPingBothWays(t *testing.T) {
	var outcomes []string
	var mu sync.Mutex
	s, f := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		if m.Method == "ping" {
			return struct{}{}, nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
	}, &Options{OnServerRequest: func(method, outcome string) {
		mu.Lock()
		outcomes = append(outcomes, method+" "+outcome)
		mu.Unlock()
	}})
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := f.request("ping", nil)
	if r.Error != nil || string(r.Result) != "{}" {
		t.Errorf("ping answer %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(outcomes) != 1 || outcomes[0] != "ping answered" {
		t.Errorf("outcomes %q", outcomes)
	}
}

// TestNoRootsUnlessAsked: without Options.Roots, roots/list is a method
// the client does not have (-32601), as for an undeclared capability.
func TestNoRootsUnlessAsked(t *testing.T) {
	_, f := startFake(t, allCaps, nil, nil)
	r := f.request("roots/list", nil)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeMethodNotFound || len(r.Result) != 0 {
		t.Fatalf("roots/list without roots: %+v", r)
	}
}

func TestRootsGiven(t *testing.T) {
	_, f := startFake(t, allCaps, nil, &Options{Roots: func(ctx context.Context) ([]Root, error) {
		return []Root{{URI: "file:///a", Name: "a"}, {URI: "file:///b"}}, nil
	}})
	r := f.request("roots/list", map[string]any{})
	if string(r.Result) != `{"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}` {
		t.Errorf("roots answer %s", r.Result)
	}
}

func TestUnknownServerRequest(t *testing.T) {
	got := make(chan string, 4)
	_, f := startFake(t, allCaps, nil, &Options{OnServerRequest: func(method, outcome string) { got <- method + ": " + outcome }})
	for _, method := range []string{"tools/list", "sampling/createMessage", "elicitation/create"} {
		r := f.request(method, map[string]any{})
		if r.Error == nil || r.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: answer %+v", method, r)
		}
		if o := <-got; o != method+": method not found" {
			t.Errorf("outcome %q", o)
		}
	}
}

func TestProgressRouted(t *testing.T) {
	var mu sync.Mutex
	all := 0
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct {
			Name string `json:"name"`
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Meta.ProgressToken == nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "no progress token")
		}
		for i := 1; i <= 3; i++ {
			f.notify("notifications/progress", map[string]any{"progressToken": p.Meta.ProgressToken, "progress": i, "total": 3, "message": p.Name})
		}
		return json.RawMessage(`{"content":[]}`), nil
	}, &Options{OnProgress: func(ProgressParams) { mu.Lock(); all++; mu.Unlock() }})
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c", "d"} {
		wg.Go(func() {
			var got []ProgressParams
			_, err := s.CallTool(context.Background(), name, nil, &CallOptions{Progress: func(p ProgressParams) { got = append(got, p) }})
			if err != nil {
				t.Error(err)
				return
			}
			if len(got) != 3 {
				t.Errorf("%s: %d progress notifications", name, len(got))
				return
			}
			for i, p := range got {
				if p.Message != name || p.Progress != float64(i+1) || *p.Total != 3 {
					t.Errorf("%s got %+v", name, p)
				}
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if all != 12 {
		t.Errorf("OnProgress saw %d", all)
	}
}

// Progress extends a call's timeout: the server answers after more than
// one timeout, sending progress in between. The bubble's clock is fake, so
// the outcome does not depend on the machine's speed.
func TestProgressExtendsTimeout(t *testing.T) {
	synctest.Test(t, testProgressExtendsTimeout)
}

func testProgressExtendsTimeout(t *testing.T) {
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		for i := 1; i <= 6; i++ {
			time.Sleep(100 * time.Millisecond) // the server's work, on the fake clock
			f.notify("notifications/progress", map[string]any{"progressToken": p.Meta.ProgressToken, "progress": i})
		}
		return json.RawMessage(`{"content":[]}`), nil
	}, &Options{Timeout: 150 * time.Millisecond, MaxTimeout: time.Minute})
	if _, err := s.CallTool(context.Background(), "slow", nil, &CallOptions{Progress: func(ProgressParams) {}}); err != nil {
		t.Fatal(err)
	}
	// Without progress the same call times out; with it, the hard maximum
	// still ends it.
	_, err := s.CallTool(context.Background(), "slow", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("without progress: got %v", err)
	}
}

func TestProgressHardMaximum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
			var p struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			json.Unmarshal(m.Params, &p)
			for i := 1; ; i++ {
				select {
				case <-f.done:
					return nil, noAnswer
				case <-time.After(100 * time.Millisecond):
				}
				f.notify("notifications/progress", map[string]any{"progressToken": p.Meta.ProgressToken, "progress": i})
			}
		}, &Options{Timeout: 150 * time.Millisecond, MaxTimeout: time.Second})
		start := time.Now()
		_, err := s.CallTool(context.Background(), "endless", nil, &CallOptions{Progress: func(ProgressParams) {}})
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("got %v", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("gave up after %s on the fake clock, want 1s", d)
		}
	})
}
