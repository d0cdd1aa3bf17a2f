package manager

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// demoSpec is the demo server over stdio (this test binary) with args.
func demoSpec(t testing.TB, args ...string) *Spec {
	return &Spec{Name: "demo", Transport: "stdio", Command: testExe(t), Args: args, Env: map[string]string{demoEnv: "1"}}
}

// httpDemo serves the demo with o over streamable HTTP on loopback and
// returns its spec.
func httpDemo(t testing.TB, o demo.Options) *Spec {
	h := demo.NewHTTPHandler(o)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &Spec{Name: "demo", Transport: "http", URL: srv.URL + "/mcp"}
}

// eraEvents collects what a session's callbacks saw.
type eraEvents struct {
	mu       sync.Mutex
	requests []string
	changed  chan struct{}
	updated  chan string
}

func (ev *eraEvents) options() protocol.Options {
	return protocol.Options{
		ClientName: "era-test", ClientVersion: "1",
		Elicit: func(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		Roots: func(ctx context.Context) ([]protocol.Root, error) {
			return []protocol.Root{{URI: "file:///era-root", Name: "era-root"}}, nil
		},
		Sample: func(ctx context.Context, p json.RawMessage) (any, error) {
			return map[string]any{"role": "assistant", "model": "canned", "content": map[string]any{"type": "text", "text": "canned"}}, nil
		},
		OnServerRequest: func(method, outcome string) {
			ev.mu.Lock()
			ev.requests = append(ev.requests, method+" "+outcome)
			ev.mu.Unlock()
		},
		OnToolsChanged:    func() { ev.changed <- struct{}{} },
		OnResourceUpdated: func(uri string) { ev.updated <- uri },
	}
}

// TestCompatibilityMatrix runs the 2026-07-28 revision's compatibility
// matrix (basic/versioning.mdx) against the demo, over stdio and HTTP:
// the dual-era client against modern-only, legacy-only and dual-era
// servers (it works, in the right era), and a client pinned to one era
// (what a legacy or a modern-only client does) against each.
func TestCompatibilityMatrix(t *testing.T) {
	proctest.Check(t)
	type cell struct {
		server  string // the demo's --era
		pin     string // the client's pinned revision ("": dual-era)
		wantEra protocol.Era
		fails   string // the start fails with this, when it must
	}
	cells := []cell{
		{server: "dual", wantEra: protocol.EraModern},
		{server: "modern", wantEra: protocol.EraModern},
		{server: "legacy", wantEra: protocol.EraLegacy},
		{server: "dual", pin: "2025-11-25", wantEra: protocol.EraLegacy},
		{server: "legacy", pin: "2025-06-18", wantEra: protocol.EraLegacy},
		{server: "modern", pin: "2025-11-25", fails: "2026-07-28 only"},
		{server: "dual", pin: "2026-07-28", wantEra: protocol.EraModern},
		{server: "modern", pin: "2026-07-28", wantEra: protocol.EraModern},
		{server: "legacy", pin: "2026-07-28", fails: "does not speak 2026-07-28 (pinned)"},
	}
	for _, tr := range []string{"stdio", "http"} {
		for _, c := range cells {
			name := tr + "/server=" + c.server + "/client=" + map[bool]string{true: "dual", false: c.pin}[c.pin == ""]
			t.Run(name, func(t *testing.T) {
				era := c.server
				if era == "dual" {
					era = ""
				}
				var spec *Spec
				if tr == "stdio" {
					spec = demoSpec(t, "--era", c.server)
				} else {
					spec = httpDemo(t, demo.Options{Era: era})
				}
				spec.ProtocolVersion = c.pin
				ev := &eraEvents{changed: make(chan struct{}, 10), updated: make(chan string, 10)}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				conn, err := Dial(ctx, spec, &DialOptions{Environ: os.Environ(), Protocol: ev.options()})
				if c.fails != "" {
					if err == nil || !strings.Contains(err.Error(), c.fails) {
						t.Fatalf("start: %v, want an error saying %q", err, c.fails)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if conn.Era() != c.wantEra {
					t.Fatalf("era %s (%s), want %s", conn.Era(), conn.ProtocolVersion(), c.wantEra)
				}
				if c.pin != "" && conn.ProtocolVersion() != c.pin {
					t.Errorf("revision %s, pinned %s", conn.ProtocolVersion(), c.pin)
				}
				exerciseDemo(t, ctx, conn, ev, tr)
			})
		}
	}
}

// exerciseDemo uses what the demo offers through conn, in whatever era it
// speaks: tools, a call, each kind of question to the client, a
// subscription, a list change, a resource that does not exist.
func exerciseDemo(t *testing.T, ctx context.Context, conn *Conn, ev *eraEvents, tr string) {
	t.Helper()
	tools, err := conn.ListTools(ctx)
	if err != nil || len(tools) != 12 {
		t.Fatalf("tools: %d, %v", len(tools), err)
	}
	res, err := conn.CallTool(ctx, "echo", map[string]string{"text": "hi there"}, nil)
	if err != nil || res.Content[0].Text != "hi there" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	// x-mcp-header (modern HTTP): the demo checks Mcp-Param-Env-Name.
	if res, err := conn.CallTool(ctx, "env", map[string]string{"name": "PATH"}, nil); err != nil {
		t.Errorf("env: %+v, %v", res, err)
	}
	for tool, want := range map[string]string{"ask": `"name":"Ada"`, "roots": "file:///era-root", "sample": "canned"} {
		res, err := conn.CallTool(ctx, tool, nil, nil)
		if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("%s: %+v, %v", tool, res, err)
		}
	}
	ev.mu.Lock()
	got := strings.Join(ev.requests, "|")
	ev.mu.Unlock()
	for _, want := range []string{"elicitation/create accepted", "roots/list answered", "sampling/createMessage answered"} {
		if !strings.Contains(got, want) {
			t.Errorf("the client answered %q, not %q", got, want)
		}
	}
	if err := conn.Subscribe(ctx, "demo://readme"); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if uri := receive(t, ev.updated, "resources/updated"); uri != "demo://readme" {
		t.Errorf("updated %s", uri)
	}
	if _, err := conn.CallTool(ctx, "notify", nil, nil); err != nil {
		t.Fatal(err)
	}
	receive(t, ev.changed, "tools/list_changed")
	_, err = conn.ReadResource(ctx, "demo://nope")
	if !protocol.IsResourceNotFound(err) {
		t.Errorf("reading demo://nope: %v", err)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// demoLog is a writer of the demo's stderr that tests can search.
type demoLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *demoLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *demoLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestEraCache: a legacy server is probed once; the cache remembers it,
// and the next start goes to initialize at once.
func TestEraCache(t *testing.T) {
	proctest.Check(t)
	home := t.TempDir()
	cache := openHome(t, home).EraCache()
	spec := demoSpec(t, "--era", "legacy", "--verbose")
	ctx := context.Background()
	start := func() string {
		log := &demoLog{}
		conn, err := Dial(ctx, spec, &DialOptions{Environ: os.Environ(), EraCache: cache, Stderr: log})
		if err != nil {
			t.Fatal(err)
		}
		if conn.Era() != protocol.EraLegacy {
			t.Errorf("era %s", conn.Era())
		}
		conn.Close()
		return log.String()
	}
	if log := start(); !strings.Contains(log, "server/discover before initialize") {
		t.Errorf("the first start did not probe:\n%s", log)
	}
	if h := cache.Lookup(spec); h == nil || h.Era != protocol.EraLegacy || h.Version != protocol.LatestLegacyVersion {
		t.Fatalf("cached %+v", h)
	}
	if log := start(); strings.Contains(log, "server/discover") {
		t.Errorf("the second start probed again:\n%s", log)
	}
	fi, err := os.Stat(filepath.Join(home, EraCacheFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file: %v %v", fi, err)
	}
	// The cached assumption fails: the server became modern-only. The
	// session detects the era afresh and the cache learns it.
	modern := demoSpec(t, "--era", "modern")
	cache.Store(modern, protocol.EraLegacy, "2025-11-25")
	conn, err := Dial(ctx, modern, &DialOptions{Environ: os.Environ(), EraCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if h := cache.Lookup(modern); h == nil || h.Era != protocol.EraModern {
		t.Errorf("cached after a wrong hint: %+v", h)
	}
	// HTTP servers are also remembered by origin.
	h := httpDemo(t, demo.Options{Era: demo.EraLegacy})
	conn, err = Dial(ctx, h, &DialOptions{EraCache: cache})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	other := &Spec{Name: "other", Transport: "http", URL: strings.TrimSuffix(h.URL, "/mcp") + "/elsewhere"}
	if hint := cache.Lookup(other); hint == nil || hint.Era != protocol.EraLegacy {
		t.Errorf("origin hint %+v", hint)
	}
}

// The faults of first contact, one row each: a legacy server that never
// answers server/discover (it costs the probe overlap, not a timeout:
// BenchmarkFirstContact measures it), one slow to start in either era,
// one that exits on the probe (started again, legacy), and every
// non-modern error to the probe (legacy); a -32022 that names revisions
// is a modern error, and its legacy revision is asked for.
func TestFirstContactFaults(t *testing.T) {
	proctest.Check(t)
	slow := "--start-delay=3s" // as npx on a cold cache
	rows := []struct {
		name    string
		spec    func(t *testing.T) *Spec
		era     protocol.Era
		version string
	}{
		{"silent legacy", stdioRow("--era", "legacy", "--early", "ignore"), protocol.EraLegacy, "2025-11-25"},
		{"silent legacy, slow start", stdioRow("--era", "legacy", "--early", "ignore", slow), protocol.EraLegacy, "2025-11-25"},
		{"modern, slow start", stdioRow("--era", "modern", slow), protocol.EraModern, protocol.ModernVersion},
		{"dual era, slow start", stdioRow(slow), protocol.EraModern, protocol.ModernVersion},
		{"legacy, slow start", stdioRow("--era", "legacy", slow), protocol.EraLegacy, "2025-11-25"},
		{"exits on the probe", stdioRow("--era", "legacy", "--early", "exit"), protocol.EraLegacy, "2025-11-25"},
		{"exits on the probe, slow start", stdioRow("--era", "legacy", "--early", "exit", slow), protocol.EraLegacy, "2025-11-25"},
		{"-32600", stdioRow("--era", "legacy", "--early", "error"), protocol.EraLegacy, "2025-11-25"},
		{"-32602 initialize first", stdioRow("--era", "legacy", "--early", "initialize-first"), protocol.EraLegacy, "2025-11-25"},
		{"-32022 without data", stdioRow("--era", "legacy", "--early", "unsupported"), protocol.EraLegacy, "2025-11-25"},
		// A server that speaks 2025-06-18 alone, as its -32022 says: so
		// an initialize that went out beside the probe (a loaded machine
		// answers in either order) gets 2025-06-18 too.
		{"-32022 naming 2025-06-18", stdioRow("--era", "legacy", "--early", "unsupported-legacy", "--version-answer", "2025-06-18"), protocol.EraLegacy, "2025-06-18"},
		{"HTML page over HTTP", htmlOnDiscover, protocol.EraLegacy, "2025-11-25"},
		// A recognized modern error is a modern server: the client asks
		// again with a revision the error names, never falls back.
		{"-32022 naming 2099-01-01 and 2026-07-28 over HTTP", refusedDiscoverRow(true, "2099-01-01", protocol.ModernVersion), protocol.EraModern, protocol.ModernVersion},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cache := openHome(t, t.TempDir()).EraCache()
			spec := row.spec(t)
			conn, err := Dial(ctx, spec, &DialOptions{Environ: os.Environ(), EraCache: cache})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if conn.Era() != row.era || conn.ProtocolVersion() != row.version {
				t.Errorf("%s %s, want %s %s", conn.Era(), conn.ProtocolVersion(), row.era, row.version)
			}
			if _, err := conn.ListTools(ctx); err != nil {
				t.Error(err)
			}
			if h := cache.Lookup(spec); h == nil || h.Era != row.era {
				t.Errorf("cached %+v", h)
			}
		})
	}
}

// stdioRow is a row's demo over stdio with args.
func stdioRow(args ...string) func(t *testing.T) *Spec {
	return func(t *testing.T) *Spec { return demoSpec(t, args...) }
}

// htmlOnDiscover is a legacy demo over HTTP behind a front that answers
// server/discover with an HTML error page (400), as a proxy would.
func htmlOnDiscover(t *testing.T) *Spec {
	h := demo.NewHTTPHandler(demo.Options{Era: demo.EraLegacy})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "<html><body><h1>400 Bad Request</h1></body></html>")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &Spec{Name: "demo", Transport: "http", URL: srv.URL + "/mcp"}
}

// discoverLog is what a front saw: the method of each request.
type discoverLog struct {
	mu      sync.Mutex
	methods []string
}

func (l *discoverLog) add(m string) {
	l.mu.Lock()
	l.methods = append(l.methods, m)
	l.mu.Unlock()
}

func (l *discoverLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.methods)
}

// refusedDiscover is the demo (both eras) over HTTP behind a front that
// answers server/discover with -32022 (UnsupportedProtocolVersionError,
// 400 Bad Request as the spec asks) naming supported: the first one
// only when once, else every one.
func refusedDiscover(t *testing.T, once bool, supported ...string) (*Spec, *discoverLog) {
	h := demo.NewHTTPHandler(demo.Options{})
	seen := &discoverLog{}
	var refused sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		seen.add(req.Method)
		refuse := false
		if req.Method == "server/discover" {
			refuse = !once
			refused.Do(func() { refuse = true })
		}
		if refuse {
			data, _ := json.Marshal(map[string]any{"supported": supported, "requested": protocol.ModernVersion})
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
				"code": protocol.CodeUnsupportedProtocolVersion, "message": "Unsupported protocol version", "data": json.RawMessage(data)}})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(msg)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &Spec{Name: "demo", Transport: "http", URL: srv.URL + "/mcp"}, seen
}

// refusedDiscoverRow is refusedDiscover as a row of TestFirstContactFaults.
func refusedDiscoverRow(once bool, supported ...string) func(t *testing.T) *Spec {
	return func(t *testing.T) *Spec {
		spec, _ := refusedDiscover(t, once, supported...)
		return spec
	}
}

// A -32022 naming only revisions mcpwire does not speak is a modern
// server all the same: the first contact fails naming them, and no
// initialize is sent (the fallback is not keyed to an error code).
func TestFirstContactModernErrorNoFallback(t *testing.T) {
	proctest.Check(t)
	spec, seen := refusedDiscover(t, false, "2099-01-01")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := Dial(ctx, spec, &DialOptions{Environ: os.Environ(), EraCache: openHome(t, t.TempDir()).EraCache()})
	if err == nil {
		conn.Close()
		t.Fatalf("connected (%s %s) to a server that speaks 2099-01-01 only", conn.Era(), conn.ProtocolVersion())
	}
	var ue *protocol.UnsupportedVersionError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "2099-01-01") {
		t.Errorf("error %v, want an UnsupportedVersionError naming 2099-01-01", err)
	}
	if m := seen.list(); slices.Contains(m, "initialize") || !slices.Contains(m, "server/discover") {
		t.Errorf("the requests: %v; want server/discover and no initialize (no fallback after a modern error)", m)
	}
}

// Pinned, a server that exits on the probe is not started again: the
// error says what happened.
func TestPinnedProbeNotRestarted(t *testing.T) {
	proctest.Check(t)
	spec := demoSpec(t, "--era", "legacy", "--early", "exit")
	spec.ProtocolVersion = protocol.ModernVersion
	_, err := Dial(context.Background(), spec, &DialOptions{Environ: os.Environ()})
	if !errors.Is(err, protocol.ErrClosedByProbe) {
		t.Errorf("pinned: %v", err)
	}
}

// A definition's protocolVersion pins the revision the manager speaks;
// pinned to a legacy revision, it accepts an older legacy answer.
func TestDefinitionPinsRevision(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{},
		demoServer{name: "pinned", extra: map[string]any{"protocolVersion": "2025-06-18"}},
		// A legacy pin accepts an older legacy answer, as magi-code does.
		demoServer{name: "older", args: []string{"--era", "legacy", "--version-answer", "2025-03-26"}, extra: map[string]any{"protocolVersion": "2025-06-18"}},
		demoServer{name: "free"})
	mustTools(t, m)
	for _, st := range m.States() {
		want := map[string]string{"pinned": "2025-06-18", "older": "2025-03-26", "free": protocol.ModernVersion}[st.Name]
		if st.ProtocolVersion != want {
			t.Errorf("%s speaks %s (%s), want %s", st.Name, st.ProtocolVersion, st.Era, want)
		}
	}
}

// Options.ProtocolVersion pins every server whose definition pins none;
// a legacy pin accepts an older legacy answer there too.
func TestOptionsPinRevision(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{ProtocolVersion: "2025-11-25"},
		demoServer{name: "pinned", extra: map[string]any{"protocolVersion": "2025-06-18"}},
		demoServer{name: "older", args: []string{"--era", "legacy", "--version-answer", "2025-03-26"}},
		demoServer{name: "free"})
	mustTools(t, m)
	for _, st := range m.States() {
		want := map[string]string{"pinned": "2025-06-18", "older": "2025-03-26", "free": "2025-11-25"}[st.Name]
		if st.ProtocolVersion != want {
			t.Errorf("%s speaks %s (%s), want %s", st.Name, st.ProtocolVersion, st.Era, want)
		}
	}
	if _, err := New(Options{Config: &config.Config{}, ProtocolVersion: "2024-01-01"}); err == nil {
		t.Error("an unknown revision was accepted")
	}
}

// The list of revisions a definition may pin is the one protocol speaks.
func TestPinnableVersions(t *testing.T) {
	if strings.Join(protocol.SupportedVersions(), " ") != strings.Join(configProtocolVersions(), " ") {
		t.Errorf("config pins %v, protocol speaks %v", configProtocolVersions(), protocol.SupportedVersions())
	}
}

func configProtocolVersions() []string { return config.ProtocolVersions }

// A modern server's tool list is kept for its ttlMs (the demo gives
// 30 s) and not listed again before then unless list_changed says so; at
// the first use after, it is listed again.
func TestToolListFreshness(t *testing.T) {
	proctest.Check(t)
	clock := newFakeClock()
	changed := make(chan string, 10)
	desc := describeFile(t, `{}`)
	m, _ := newManager(t, Options{Now: clock.Now, OnChange: func(server string) { changed <- server }},
		demoServer{name: "m", args: []string{"--descriptions", desc}})
	mustTools(t, m)
	receive(t, changed, "the first OnChange")
	describe(t, desc, `{"echo": "echoes, listed again"}`) // seen once listed again
	for range 3 {
		clock.Advance(9 * time.Second)
		if _, err := m.Tools(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st := state(t, m, "m"); st.Stale {
			t.Fatalf("stale %s after the start, within the ttlMs", clock.Now().Format(time.TimeOnly))
		}
	}
	select {
	case s := <-changed:
		t.Fatalf("OnChange(%s) within the ttlMs: listed again too soon", s)
	default:
	}
	clock.Advance(4 * time.Second) // 31 s: over
	if _, err := m.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Listed again: OnChange says so. (Stale itself is true only until that
	// listing ends, which may be before a look at the state: not asserted.)
	if s := receive(t, changed, "OnChange after the listing again"); s != "m" {
		t.Errorf("OnChange(%s)", s)
	}
	waitFor(t, "the list to be fresh again", func() bool { return !state(t, m, "m").Stale })
}

// TestToolListNoTTL: a modern server whose tools/list carries no ttlMs
// has its list taken as stale at once (caching.mdx: "clients SHOULD
// assume a default of 0"), list_changed offered or not: the next use
// lists again, with no clock moved and no list_changed. Only a use does
// (no polling), and a listing that gives the same list tells nobody.
func TestToolListNoTTL(t *testing.T) {
	proctest.Check(t)
	clock := newFakeClock()
	changed := make(chan string, 10)
	desc := describeFile(t, `{}`)
	m, _ := newManager(t, Options{Now: clock.Now, OnChange: func(server string) { changed <- server }},
		demoServer{name: "m", args: []string{"--list-cache", "none", "--descriptions", desc}})
	mustTools(t, m)
	receive(t, changed, "the first OnChange")
	if st := state(t, m, "m"); st.Era != protocol.EraModern {
		t.Fatalf("era %q: the test needs the modern era", st.Era)
	}
	for i := range 2 {
		// A use while a listing is under way is answered by that listing.
		waitFor(t, "no listing under way", func() bool { return !state(t, m, "m").Stale })
		d := fmt.Sprintf("echoes, listing %d", i)
		describe(t, desc, `{"echo": "`+d+`"}`)
		if _, err := m.Tools(context.Background()); err != nil {
			t.Fatal(err)
		}
		receive(t, changed, "OnChange after the listing again")
		waitFor(t, "the new description", func() bool {
			tools, _ := m.Tools(context.Background())
			return slices.ContainsFunc(tools, func(tl Tool) bool { return tl.Original == "echo" && tl.Description == d })
		})
	}
	// Listed again at each use above; the same list told nobody.
	waitFor(t, "no listing under way", func() bool { return !state(t, m, "m").Stale })
	select {
	case s := <-changed:
		t.Fatalf("OnChange(%s) for a listing that gave the same list", s)
	default:
	}
}

// describeFile writes a demo descriptions file (see --descriptions) and
// returns its path.
func describeFile(t *testing.T, desc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "descriptions.json")
	describe(t, p, desc)
	return p
}

// describe writes the descriptions file p: the next tools/list sees it.
func describe(t *testing.T, p, desc string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(desc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEraCacheLockHeld: a cache whose lock another process keeps is not
// waited for: Store gives up (the cache is a hint) and returns.
func TestEraCacheLockHeld(t *testing.T) {
	home := t.TempDir()
	cache := openHome(t, home).EraCache()
	l, err := safe.Lock(filepath.Join(home, EraCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	spec := demoSpec(t)
	done := make(chan struct{})
	go func() {
		cache.Store(spec, protocol.EraLegacy, protocol.LatestLegacyVersion)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Store still waits for a lock another holds")
	}
	if h := cache.Lookup(spec); h != nil {
		t.Errorf("cached %+v without the lock", h)
	}
}

// TestEraCacheKeyedByHome: the cache's definition digest is an HMAC by the
// home's approval key, so the file holds nothing a short secret in the
// definition's env could be guessed back from by hashing candidates: the
// same definition has another key in another home, and neither is the
// plain sha256 of what it runs.
func TestEraCacheKeyedByHome(t *testing.T) {
	spec := &Spec{Name: "s", Transport: "stdio", Command: "srv", Env: map[string]string{"TOKEN": "1234"}}
	keys := func(home string) string {
		cache := openHome(t, home).EraCache()
		cache.Store(spec, protocol.EraLegacy, "2025-11-25")
		if h := cache.Lookup(spec); h == nil || h.Era != protocol.EraLegacy {
			t.Fatalf("not cached: %+v", h)
		}
		data, err := os.ReadFile(filepath.Join(home, EraCacheFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	a, b := keys(t.TempDir()), keys(t.TempDir())
	plain := sha256.New()
	_ = json.NewEncoder(plain).Encode([]any{spec.Transport, spec.Command, spec.Args, spec.Env, spec.Dir, spec.URL, []string{}})
	guess := hex.EncodeToString(plain.Sum(nil))
	if strings.Contains(a, guess) || strings.Contains(b, guess) {
		t.Errorf("the cache holds the plain digest of the definition:\n%s", a)
	}
	ka, kb := a[strings.Index(a, "def:"):][:68], b[strings.Index(b, "def:"):][:68]
	if ka == kb {
		t.Errorf("two homes key the same definition alike: %s", ka)
	}
}
