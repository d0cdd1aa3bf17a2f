package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/protocol"
)

// The capabilities a forwarder declares to its target, seen by the
// target: every byte crosses pipes, as over stdio (host → proxy's
// server, proxy's client → target).

// onPipes serves srv over stdio on pipes and returns the client's end.
func onPipes(t testing.TB, srv *Server) jsonrpc.Stream {
	t.Helper()
	cr, sw := io.Pipe() // the server's output
	sr, cw := io.Pipe() // the server's input
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeStdio(ctx, sr, sw)
		sw.Close()
	}()
	t.Cleanup(func() {
		cw.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("a server on pipes did not end")
		}
	})
	return jsonrpc.NewLineStream(cr, cw, cw)
}

// capsTarget is a target of era that answers the tool "caps" with the
// capabilities its client declared (at initialize, or in the call's
// _meta), and "sample" by asking its client for a sample; its sessions
// send on roots (if not nil) for each notifications/roots/list_changed.
func capsTarget(era string, roots chan<- struct{}) *Server {
	tools := func() map[string]any { return map[string]any{"tools": map[string]any{}} }
	return New(Options{Era: era, Capabilities: tools, NewSession: func(s *Session) Handler {
		return &capsHandler{s: s, roots: roots}
	}})
}

// A capsHandler is a session of a capsTarget.
type capsHandler struct {
	s     *Session
	roots chan<- struct{}
}

// RootsChanged counts the client's notifications/roots/list_changed.
func (h *capsHandler) RootsChanged() {
	if h.roots != nil {
		h.roots <- struct{}{}
	}
}

// Serve answers tools/list and tools/call.
func (h *capsHandler) Serve(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case "tools/list":
		return map[string]any{"tools": []any{}}, nil
	case "tools/call":
	default:
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no %s", req.Method)
	}
	var in struct{ Name string }
	_ = json.Unmarshal(req.Params, &in)
	text := ""
	if in.Name == "sample" {
		raw, err := p.Call(ctx, "sampling/createMessage", map[string]any{"messages": []any{}, "maxTokens": 1})
		if err != nil {
			return nil, err
		}
		text = string(raw)
	} else {
		caps := h.s.Capabilities()
		if mr := Modern(ctx); mr != nil {
			caps = mr.Caps
		}
		text = string(MustJSON(caps))
	}
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}, nil
}

// A capsProxy is a forwarder in front of a capsTarget, dialing it as a
// proxy does.
type capsProxy struct {
	srv   *Server
	dials atomic.Int32
}

func newCapsProxy(t testing.TB, era string) *capsProxy {
	return newCapsProxyRoots(t, era, nil)
}

// newCapsProxyRoots is newCapsProxy whose target sends on roots.
func newCapsProxyRoots(t testing.TB, era string, roots chan<- struct{}) *capsProxy {
	target := capsTarget(era, roots)
	f := NewForwarder()
	var popts protocol.Options
	f.ClientOptions(&popts)
	cp := &capsProxy{}
	f.SetDial(func(ctx context.Context, caps json.RawMessage) (*protocol.Session, error) {
		cp.dials.Add(1)
		o := popts
		o.Declare = caps
		s, err := protocol.Connect(ctx, onPipes(t, target), &o)
		if err == nil {
			t.Cleanup(func() { s.Close() })
		}
		return s, err
	})
	cp.srv = New(f.Options(Options{}))
	return cp
}

// A capsHost is a host of the proxy: legacy (caps declared at
// initialize) or modern (caps in each request's _meta).
type capsHost struct {
	t      testing.TB
	conn   *jsonrpc.Conn
	modern bool
	caps   string
	asked  atomic.Int32 // sampling/createMessage requests it was sent
}

func newCapsHost(t testing.TB, cp *capsProxy, modern bool, caps string) *capsHost {
	h := &capsHost{t: t, modern: modern, caps: caps}
	h.conn = jsonrpc.NewConn(onPipes(t, cp.srv), &jsonrpc.ConnOptions{
		Handle: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "sampling/createMessage" {
				return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no %s", req.Method)
			}
			h.asked.Add(1)
			return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "sampled"}, "model": "m"}, nil
		},
	})
	t.Cleanup(func() { h.conn.Close() })
	if !modern {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err := h.conn.Call(ctx, "initialize", json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"host","version":"1"}}`))
		if err != nil {
			t.Fatalf("initialize: %v", err)
		}
		_ = h.conn.Notify(ctx, "notifications/initialized", nil)
	}
	return h
}

// call calls the tool name through the proxy, declaring caps (a modern
// host; "" its own), and returns the text of its answer.
func (h *capsHost) call(name, caps string) (string, error) {
	h.t.Helper()
	if caps == "" {
		caps = h.caps
	}
	params := `{"name":"` + name + `","arguments":{}}`
	if h.modern {
		params = `{"name":"` + name + `","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}`
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw, err := h.conn.Call(ctx, "tools/call", json.RawMessage(params))
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct{ Text string }
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 {
		h.t.Fatalf("not a result of one text: %s", raw)
	}
	return res.Content[0].Text, nil
}

// seen is the capabilities the target saw, as ClientCaps encode them,
// without the proxy's own extensions of the modern era.
func (h *capsHost) seen(caps string) string {
	h.t.Helper()
	text, err := h.call("caps", caps)
	if err != nil {
		h.t.Fatalf("caps: %v", err)
	}
	var c ClientCaps
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		h.t.Fatalf("caps: %v: %s", err, text)
	}
	delete(c.Extensions, protocol.ExtTasks)
	delete(c.Extensions, protocol.ExtSkills)
	if len(c.Extensions) == 0 {
		c.Extensions = nil
	}
	return string(MustJSON(c))
}

const fullCaps = `{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html"]}},"experimental":{"x":{}}}`

// TestForwarderDeclaresHostCaps: the target is told what the host
// declared, no more: nothing for a host that declared nothing (in either
// era, to a target of either era), the host's roots, sampling and
// elicitation with their members, and its extensions, for one that
// declared them (roots without listChanged to a modern target, which has
// no such notification).
func TestForwarderDeclaresHostCaps(t *testing.T) {
	wantFull := map[string]string{
		EraLegacy: `{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html"]}}}`,
		EraModern: `{"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html"]}}}`,
	}
	for _, targetEra := range []string{EraLegacy, EraModern} {
		for _, modern := range []bool{false, true} {
			name := "legacy host to " + targetEra
			if modern {
				name = "modern host to " + targetEra
			}
			t.Run(name, func(t *testing.T) {
				for caps, want := range map[string]string{`{}`: `{}`, fullCaps: wantFull[targetEra]} {
					cp := newCapsProxy(t, targetEra)
					h := newCapsHost(t, cp, modern, caps)
					if got := h.seen(""); got != want {
						t.Errorf("host declared %s: the target saw %s, want %s", caps, got, want)
					}
					if n := cp.dials.Load(); n != 1 {
						t.Errorf("host declared %s: %d connections to the target, want 1", caps, n)
					}
				}
			})
		}
	}
}

// TestForwarderDeclaresPerRequest: a modern host's requests declare
// what each declares. A modern target is told each request's; a legacy
// one (capabilities at initialize) is connected again declaring the
// union when a request declares more than it was told.
func TestForwarderDeclaresPerRequest(t *testing.T) {
	cp := newCapsProxy(t, EraModern)
	h := newCapsHost(t, cp, true, `{}`)
	for _, caps := range []string{`{}`, `{"sampling":{}}`, `{}`, `{"elicitation":{"form":{}}}`} {
		if got := h.seen(caps); got != caps {
			t.Errorf("modern target: a request declaring %s was seen declaring %s", caps, got)
		}
	}
	if n := cp.dials.Load(); n != 1 {
		t.Errorf("modern target: %d connections, want 1", n)
	}

	cp = newCapsProxy(t, EraLegacy)
	h = newCapsHost(t, cp, true, `{"roots":{}}`)
	if got := h.seen(""); got != `{"roots":{}}` {
		t.Errorf("legacy target: saw %s, want the first request's", got)
	}
	if got := h.seen(`{"sampling":{}}`); got != `{"roots":{},"sampling":{}}` {
		t.Errorf("legacy target: saw %s after a request with sampling, want the union", got)
	}
	if got := h.seen(`{}`); got != `{"roots":{},"sampling":{}}` || cp.dials.Load() != 2 {
		t.Errorf("legacy target: saw %s after %d connections, want the union after 2", got, cp.dials.Load())
	}
}

// TestForwarderManyHosts: the hosts of one forwarder (--listen) are
// declared together: a host that declares more than the target was told
// has it connected again declaring the union; a server request goes
// only to a host that declared its capability, and when none did the
// target is answered -32601.
func TestForwarderManyHosts(t *testing.T) {
	cp := newCapsProxy(t, EraLegacy)
	bare := newCapsHost(t, cp, false, `{}`)
	if got := bare.seen(""); got != `{}` {
		t.Fatalf("one host that declared nothing: the target saw %s", got)
	}
	_, err := bare.call("sample", "")
	var je *jsonrpc.Error
	if err == nil || !strings.Contains(err.Error(), "sampling/createMessage") {
		t.Errorf("a sample with no host that declared sampling: %v, want the target's -32601 passed on", err)
	} else if errors.As(err, &je) && je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("a sample with no host that declared sampling: code %d", je.Code)
	}

	sampler := newCapsHost(t, cp, false, `{"sampling":{}}`)
	for _, h := range []*capsHost{sampler, bare} {
		if got := h.seen(""); got != `{"sampling":{}}` || cp.dials.Load() != 2 {
			t.Errorf("a second host declared sampling: the target saw %s after %d connections, want sampling after 2", got, cp.dials.Load())
		}
	}
	for _, h := range []*capsHost{bare, sampler} {
		if text, err := h.call("sample", ""); err != nil || !strings.Contains(text, "sampled") {
			t.Errorf("a sample through the proxy: %q, %v", text, err)
		}
	}
	if bare.asked.Load() != 0 || sampler.asked.Load() != 2 {
		t.Errorf("samples asked of the host that did not declare it: %d, of the one that did: %d; want 0 and 2", bare.asked.Load(), sampler.asked.Load())
	}
	newCapsHost(t, cp, false, `{"sampling":{}}`)
	if n := cp.dials.Load(); n != 2 {
		t.Errorf("a third host declaring nothing new: %d connections, want 2", n)
	}
}

// TestForwarderRootsChanged: a legacy host's
// notifications/roots/list_changed reaches a legacy target, to which
// the proxy declared roots.listChanged as the host did.
func TestForwarderRootsChanged(t *testing.T) {
	roots := make(chan struct{}, 8)
	cp := newCapsProxyRoots(t, EraLegacy, roots)
	h := newCapsHost(t, cp, false, `{"roots":{"listChanged":true}}`)
	if got := h.seen(""); got != `{"roots":{"listChanged":true}}` {
		t.Fatalf("the target saw %s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.conn.Notify(ctx, "notifications/roots/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-roots:
	case <-ctx.Done():
		t.Fatal("the host's roots/list_changed did not reach the target")
	}
}

// FuzzUnionCaps: the union of two hosts' capabilities covers each, and
// covering is by member: a host whose members are all declared does not
// have the target connected again.
func FuzzUnionCaps(f *testing.F) {
	f.Add([]byte(`{}`), []byte(`{"sampling":{}}`))
	f.Add([]byte(`{"roots":{"listChanged":true}}`), []byte(`{"roots":{"listChanged":false},"elicitation":{"url":{}}}`))
	f.Add([]byte(`{"extensions":{"a":{}}}`), []byte(`{"extensions":{"a":{"v":1},"b":{}},"sampling":true}`))
	f.Fuzz(func(t *testing.T, ra, rb []byte) {
		var a, b ClientCaps
		if json.Unmarshal(ra, &a) != nil || json.Unmarshal(rb, &b) != nil {
			return
		}
		a, b = objectCaps(a), objectCaps(b)
		u := unionCaps(a, b)
		if !coversCaps(u, a) || !coversCaps(u, b) || !coversCaps(u, u) {
			t.Fatalf("the union %s of %s and %s does not cover them", MustJSON(u), MustJSON(a), MustJSON(b))
		}
		if !coversCaps(unionCaps(u, a), u) || !coversCaps(u, unionCaps(u, a)) {
			t.Fatalf("the union %s grows with %s", MustJSON(u), MustJSON(a))
		}
	})
}

// holdTarget is a capsTarget of era whose tool "hold" tells entered
// that it runs, then answers "held" once hold is closed.
func holdTarget(era string, entered chan<- struct{}, hold <-chan struct{}) *Server {
	return New(Options{Era: era, Capabilities: func() map[string]any { return map[string]any{"tools": map[string]any{}} },
		NewSession: func(s *Session) Handler {
			return &holdHandler{capsHandler: capsHandler{s: s}, entered: entered, hold: hold}
		}})
}

// A holdHandler is a session of a holdTarget.
type holdHandler struct {
	capsHandler
	entered chan<- struct{}
	hold    <-chan struct{}
}

// Serve answers "hold" once hold is closed, the rest as capsHandler.
func (h *holdHandler) Serve(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	var in struct{ Name string }
	_ = json.Unmarshal(req.Params, &in)
	if req.Method != "tools/call" || in.Name != "hold" {
		return h.capsHandler.Serve(ctx, p, req)
	}
	h.entered <- struct{}{}
	select {
	case <-h.hold:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": "held"}}}, nil
}

// A retireProxy is a forwarder in front of a holdTarget whose dial
// keeps each connection it makes and whose retire function hands each
// connection retired to retired, then closes it.
type retireProxy struct {
	*capsProxy
	t       *testing.T
	retired chan *protocol.Session

	mu     sync.Mutex
	dialed []*protocol.Session
}

func newRetireProxy(t *testing.T, entered chan<- struct{}, hold <-chan struct{}) *retireProxy {
	target := holdTarget(EraLegacy, entered, hold)
	f := NewForwarder()
	var popts protocol.Options
	f.ClientOptions(&popts)
	rp := &retireProxy{t: t, retired: make(chan *protocol.Session, 2*maxDraining+4)}
	f.SetDial(func(ctx context.Context, caps json.RawMessage) (*protocol.Session, error) {
		o := popts
		o.Declare = caps
		s, err := protocol.Connect(ctx, onPipes(t, target), &o)
		if err == nil {
			t.Cleanup(func() { s.Close() })
			rp.mu.Lock()
			rp.dialed = append(rp.dialed, s)
			rp.mu.Unlock()
		}
		return s, err
	})
	f.SetRetire(func(s *protocol.Session) {
		rp.retired <- s
		s.Close()
	})
	rp.capsProxy = &capsProxy{srv: New(f.Options(Options{}))}
	return rp
}

// dialedN is the connection the proxy made i-th (from 0).
func (rp *retireProxy) dialedN(i int) *protocol.Session {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if len(rp.dialed) <= i {
		rp.t.Fatalf("%d connections to the target, want more than %d", len(rp.dialed), i)
	}
	return rp.dialed[i]
}

// TestForwarderRetiresWhenIdle: a legacy target connected again for a
// host that declares more is retired (handed to SetRetire's function,
// which closes it) only once no request uses it: a call running on it
// when a later host connects ends with its answer, then it is retired;
// one that no request uses is retired as it is replaced.
func TestForwarderRetiresWhenIdle(t *testing.T) {
	entered, hold := make(chan struct{}, 1), make(chan struct{})
	rp := newRetireProxy(t, entered, hold)
	cp, retired, dialedN := rp.capsProxy, rp.retired, rp.dialedN

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := newCapsHost(t, cp, false, `{}`)
	got := make(chan error, 1)
	go func() {
		text, err := first.call("hold", "")
		if err == nil && text != "held" {
			err = fmt.Errorf("answered %q, want held", text)
		}
		got <- err
	}()
	select { // the call runs on the first connection
	case <-entered:
	case err := <-got:
		t.Fatalf("the held call ended before it ran: %v", err)
	case <-ctx.Done():
		t.Fatal("the held call never reached the target")
	}
	sampler := newCapsHost(t, cp, false, `{"sampling":{}}`)
	if s := sampler.seen(""); s != `{"sampling":{}}` {
		t.Fatalf("the second host's call: the target saw %s", s)
	}
	select {
	case s := <-retired:
		t.Fatalf("a connection was retired while a call ran on it (the first: %v)", s == dialedN(0))
	default:
	}
	close(hold)
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("the call running when the target was connected again: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the call running when the target was connected again never ended")
	}
	wantRetired := func(i int, never string) {
		select {
		case s := <-retired:
			if s != dialedN(i) {
				t.Fatal("the connection retired is not the one replaced")
			}
		case <-ctx.Done():
			t.Fatal(never)
		}
	}
	wantRetired(0, "the replaced connection was never retired after its last call")
	newCapsHost(t, cp, false, `{"sampling":{},"elicitation":{}}`)
	wantRetired(1, "a connection no request used was not retired as it was replaced")
	if text, err := first.call("caps", ""); err != nil || !strings.Contains(text, "elicitation") {
		t.Errorf("a call after two connections: %q, %v; want the third's capabilities", text, err)
	}
	select {
	case <-retired:
		t.Error("the current connection was retired")
	default:
	}
}

// TestForwarderBoundsDraining: hosts that each declare something new
// while a call of theirs runs keep at most maxDraining replaced
// connections waiting for their calls; past that the oldest is retired
// at once, its call failing, and the others still answer.
func TestForwarderBoundsDraining(t *testing.T) {
	entered, hold := make(chan struct{}, maxDraining+2), make(chan struct{})
	rp := newRetireProxy(t, entered, hold)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	results := make([]chan error, maxDraining+2)
	for i := range results {
		h := newCapsHost(t, rp.capsProxy, false, fmt.Sprintf(`{"extensions":{"x%d":{}}}`, i))
		results[i] = make(chan error, 1)
		go func(got chan<- error) {
			_, err := h.call("hold", "")
			got <- err
		}(results[i])
		select { // host i's call runs on connection i
		case <-entered:
		case err := <-results[i]:
			t.Fatalf("host %d's call ended before it ran: %v", i, err)
		case <-ctx.Done():
			t.Fatalf("host %d's call never reached the target", i)
		}
	}
	// Connections 0..maxDraining were replaced with calls running: the
	// oldest went past the bound.
	select {
	case s := <-rp.retired:
		if s != rp.dialedN(0) {
			t.Fatal("the connection retired past the bound is not the oldest")
		}
	case <-ctx.Done():
		t.Fatalf("%d replaced connections with calls running, none retired", maxDraining+1)
	}
	select {
	case err := <-results[0]:
		if err == nil {
			t.Error("the call on the connection retired past the bound was answered")
		}
	case <-ctx.Done():
		t.Fatal("the call on the connection retired past the bound never ended")
	}
	close(hold)
	for i := 1; i < len(results); i++ {
		select {
		case err := <-results[i]:
			if err != nil {
				t.Errorf("host %d's call: %v", i, err)
			}
		case <-ctx.Done():
			t.Fatalf("host %d's call never ended", i)
		}
	}
	for n := 0; n < maxDraining; n++ {
		select {
		case <-rp.retired:
		case <-ctx.Done():
			t.Fatalf("%d of the %d connections that drained were retired", n, maxDraining)
		}
	}
	select {
	case <-rp.retired:
		t.Error("the current connection was retired")
	default:
	}
}
