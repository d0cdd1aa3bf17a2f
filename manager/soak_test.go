package manager

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// soakFor is how long TestSoak's workers run: short by default (CI), as
// long as asked by hand (go test ./manager -run Soak -soak=10m -v).
var soakFor = flag.Duration("soak", 0, "how long TestSoak runs its workers (default 12s)")

// The soak's bounds. opBound is far above what any operation takes (the
// slowest is a start within a 2 s budget, or a stop): reaching it is a
// hang. stallBound is how long the whole may go without finishing an
// operation. heapBound is the heap left after Close (and a GC) above
// what there was before.
const (
	soakWorkers = 8
	opBound     = 45 * time.Second
	stallBound  = 45 * time.Second
	heapBound   = 32 << 20
)

// A soakEnv is the soak's servers and what its workers share.
type soakEnv struct {
	t       *testing.T
	m       *Manager
	configs []*config.Config // the configurations Update picks from
	names   []string         // every server name of configs[0]
	expired atomic.Bool      // the OAuth-protected server's token has expired
	logins  atomic.Int64     // OnLoginNeeded calls

	mu    sync.Mutex
	lat   map[string][]time.Duration // per operation
	slots [soakWorkers]soakSlot      // what each worker does now
	done  atomic.Int64               // operations finished
}

// A soakSlot is the operation a worker runs, for the watchdog.
type soakSlot struct {
	op    string
	since time.Time
}

// TestSoak runs 30 servers (the demo in its modes, stdio and HTTP, both
// eras: crashing mid-call, hanging in initialize, exiting at start, slow
// lists, list_changed storms, floods of resource updates, garbage on
// stdout, expiring HTTP sessions, dropped streams, a token that expires) under 8
// workers doing random Tools, Call (with cancels and timeouts), Update
// (add, remove, change, invalid entries), Restart, Subscribe and logins,
// then Close. A watchdog ends the binary with every goroutine's stack
// when an operation exceeds opBound or nothing finishes for stallBound.
// At the end no goroutine, process or file descriptor is left, and the
// heap is back within heapBound of where it was.
func TestSoak(t *testing.T) {
	proctest.Check(t)
	d := *soakFor
	if d <= 0 {
		d = 12 * time.Second
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	leaks, fdBefore := proctest.Goroutines(t), openFDs()

	e := &soakEnv{t: t, lat: map[string][]time.Duration{}}
	stopHTTP := e.setUp(t)
	peak := trackPeakHeap()
	stopWatch := e.watchdog()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	var wg sync.WaitGroup
	for i := range soakWorkers {
		wg.Go(func() { e.work(ctx, i) })
	}
	wg.Wait()
	cancel()
	byState := map[State]int{}
	for _, st := range e.m.States() {
		byState[st.State]++
	}
	t.Logf("at Close: %v", byState)
	start := time.Now()
	within(t, opBound, "the soak's Close", func() { e.m.Close() })
	closeTook := time.Since(start)
	stopWatch()
	e.record("close", closeTook)
	stopHTTP()
	peakHeap := peak()

	leaks()
	if fdBefore >= 0 {
		waitFor(t, "the soak's file descriptors to close", func() bool { return openFDs() <= fdBefore })
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if after.HeapAlloc > before.HeapAlloc+heapBound {
		t.Errorf("heap after Close %d MiB, before %d MiB: more than %d MiB left", after.HeapAlloc>>20, before.HeapAlloc>>20, heapBound>>20)
	}
	t.Logf("soak of %v: %d operations, peak heap %d MiB, Close took %v, %d logins needed", d, e.done.Load(), peakHeap>>20,
		closeTook.Round(time.Millisecond), e.logins.Load())
	e.report()
}

// setUp starts the HTTP servers, writes the configurations and makes
// the Manager; the returned func stops the HTTP servers.
func (e *soakEnv) setUp(t *testing.T) func() {
	var stops []func()
	serve := func(o demo.Options, wrap func(http.Handler) http.Handler) string {
		h := demo.NewHTTPHandler(o)
		var hh http.Handler = h
		if wrap != nil {
			hh = wrap(h)
		}
		srv := httptest.NewServer(hh)
		stops = append(stops, func() { srv.Close(); h.Close() })
		return srv.URL + "/mcp"
	}
	exe := testExe(t)
	stdio := func(args ...string) map[string]any {
		return map[string]any{"command": exe, "args": args, "env": map[string]string{demoEnv: "1"}, "startupTimeout": 2}
	}
	remote := func(url string) map[string]any { return map[string]any{"url": url, "startupTimeout": 2} }
	entries := map[string]map[string]any{}
	for i, era := range []string{"legacy", "modern", "dual"} {
		entries[fmt.Sprintf("plain-%d", i)] = stdio("--era", era)
		entries[fmt.Sprintf("crash-%d", i)] = stdio("--era", era, "--crash-on-first-call")
		entries[fmt.Sprintf("slow-%d", i)] = stdio("--era", era, "--list-delay", "300ms")
		entries[fmt.Sprintf("flood-%d", i)] = stdio("--era", era, "--update-flood", "200")
		entries[fmt.Sprintf("page-%d", i)] = stdio("--era", era, "--page-size", "3", "--tools", "20")
	}
	entries["hang-0"] = stdio("--hang-initialize")
	entries["hang-1"] = stdio("--era", "legacy", "--hang-initialize")
	entries["storm-0"] = stdio("--era", "legacy", "--list-changed", "2", "--list-delay", "200ms")
	entries["storm-1"] = stdio("--era", "modern", "--list-changed", "2", "--list-delay", "200ms")
	entries["garbage"] = stdio("--garbage")
	entries["banner"] = stdio("--era", "legacy", "--banner")
	entries["late"] = stdio("--start-delay", "500ms")
	entries["exits"] = stdio("--exit-at-start")
	entries["http-legacy"] = remote(serve(demo.Options{Era: demo.EraLegacy}, nil))
	entries["http-modern"] = remote(serve(demo.Options{Era: demo.EraModern}, nil))
	entries["http-sse"] = remote(serve(demo.Options{SSE: true}, nil))
	entries["http-expire"] = remote(serve(demo.Options{ExpireAfter: 7}, nil))
	entries["http-drop"] = remote(serve(demo.Options{SSE: true, DropAfterPriming: true}, nil))
	entries["http-crash"] = remote(serve(demo.Options{CrashOnFirstCall: true}, nil))
	auth := remote(serve(demo.Options{}, e.tokenExpiry))
	auth["headers"] = map[string]string{"Authorization": "Bearer soak-token"}
	entries["http-auth"] = auth
	if len(entries) != 30 {
		t.Fatalf("%d servers, want 30", len(entries))
	}
	for name := range entries {
		e.names = append(e.names, name)
	}
	slices.Sort(e.names)

	// The configurations Update picks from: all; some removed; some
	// changed; some invalid (their servers keep running as they were).
	variants := []func(string, map[string]any) map[string]any{
		func(_ string, v map[string]any) map[string]any { return v },
		func(n string, v map[string]any) map[string]any {
			if strings.HasSuffix(n, "-1") {
				return nil
			}
			return v
		},
		func(n string, v map[string]any) map[string]any {
			if strings.HasSuffix(n, "-2") || strings.HasPrefix(n, "http-") {
				c := mapsClone(v)
				c["timeout"] = 29
				return c
			}
			return v
		},
		func(n string, v map[string]any) map[string]any {
			if strings.HasSuffix(n, "-0") {
				c := mapsClone(v)
				c["timeout"] = "soon"
				return c
			}
			return v
		},
	}
	home := t.TempDir()
	for i, f := range variants {
		servers := map[string]any{}
		for n, v := range entries {
			if x := f(n, v); x != nil {
				servers[n] = x
			}
		}
		b, err := json.Marshal(map[string]any{"mcpServers": servers})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(home, fmt.Sprint(i))
		if err := os.MkdirAll(filepath.Join(dir, "project"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, config.FileName), b, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(config.LoadOptions{Home: dir, Dir: filepath.Join(dir, "project"), Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		e.configs = append(e.configs, cfg)
	}
	m, err := New(Options{Config: e.configs[0], TrustAll: true, StartupTimeout: 5 * time.Second,
		ToolTimeout:       5 * time.Second,
		Logf:              func(string, ...any) {},
		OnChange:          func(string) {},
		OnNotice:          func(Notice) {},
		OnLoginNeeded:     func(string) { e.logins.Add(1) },
		OnResourceUpdated: func(string, string) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.m = m
	return func() {
		for _, f := range stops {
			f()
		}
	}
}

// tokenExpiry wraps the OAuth-protected server: while its token has
// expired, every request is answered 401 with a bearer challenge, as a
// resource server whose access token expired answers.
func (e *soakEnv) tokenExpiry(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e.expired.Load() || r.Header.Get("Authorization") != "Bearer soak-token" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="the access token expired"`)
			http.Error(w, "token expired", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func mapsClone(v map[string]any) map[string]any {
	c := make(map[string]any, len(v))
	for k, x := range v {
		c[k] = x
	}
	return c
}

// work runs random operations until ctx ends.
func (e *soakEnv) work(ctx context.Context, i int) {
	r := rand.New(rand.NewPCG(uint64(i), 2026))
	for ctx.Err() == nil {
		op, f := e.pick(r)
		e.begin(i, op)
		start := time.Now()
		f()
		e.end(i)
		e.record(op, time.Since(start))
	}
}

// pick chooses an operation.
func (e *soakEnv) pick(r *rand.Rand) (string, func()) {
	m := e.m
	bg := context.Background()
	server := e.names[r.IntN(len(e.names))]
	switch n := r.IntN(100); {
	case n < 25:
		return "tools", func() { _, _ = m.Tools(bg) }
	case n < 55:
		tool, args := "echo", any(map[string]any{"text": "soak"})
		switch r.IntN(4) {
		case 0:
			tool, args = "sleep", map[string]any{"ms": 50 + r.IntN(500)}
		case 1:
			tool, args = "notify", nil
		}
		var copts *CallOptions
		cancelAfter := time.Duration(-1)
		switch r.IntN(4) {
		case 0: // a cancel in the middle
			cancelAfter = time.Duration(r.IntN(200)) * time.Millisecond
		case 1: // a short timeout
			copts = &CallOptions{Timeout: time.Duration(50+r.IntN(300)) * time.Millisecond}
		}
		return "call", func() {
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			if cancelAfter >= 0 {
				defer time.AfterFunc(cancelAfter, cancel).Stop()
			}
			_, _ = m.CallWith(ctx, "mcp__"+server+"__"+tool, args, copts)
		}
	case n < 65:
		cfg := e.configs[r.IntN(len(e.configs))]
		return "update", func() { m.Update(cfg) }
	case n < 75:
		ctx, cancel := context.WithTimeout(bg, 10*time.Second)
		return "restart", func() {
			defer cancel()
			_ = m.Restart(ctx, server)
		}
	case n < 85:
		uri := fmt.Sprintf("demo://item/%d", 1+r.IntN(3))
		ctx, cancel := context.WithTimeout(bg, 5*time.Second)
		return "subscribe", func() {
			defer cancel()
			if m.Subscribe(ctx, server, uri) == nil && r.IntN(2) == 0 {
				_ = m.Unsubscribe(ctx, server, uri)
			}
		}
	case n < 90:
		// The token expires, or a login brings it back (then Restart,
		// as an agent does after Login).
		return "login", func() {
			if e.expired.Load() {
				e.expired.Store(false)
				ctx, cancel := context.WithTimeout(bg, 10*time.Second)
				defer cancel()
				_ = m.Restart(ctx, "http-auth")
				return
			}
			e.expired.Store(true)
		}
	default:
		return "states", func() {
			_ = m.States()
			_ = m.Instructions()
		}
	}
}

func (e *soakEnv) begin(i int, op string) {
	e.mu.Lock()
	e.slots[i] = soakSlot{op: op, since: time.Now()}
	e.mu.Unlock()
}

func (e *soakEnv) end(i int) {
	e.mu.Lock()
	e.slots[i] = soakSlot{}
	e.mu.Unlock()
	e.done.Add(1)
}

func (e *soakEnv) record(op string, d time.Duration) {
	e.mu.Lock()
	e.lat[op] = append(e.lat[op], d)
	e.mu.Unlock()
}

// watchdog ends the binary, with every stack, when an operation runs
// past opBound or none finishes for stallBound; the returned func stops
// it.
func (e *soakEnv) watchdog() func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		last, lastAt := e.done.Load(), time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				var why string
				e.mu.Lock()
				for i, s := range e.slots {
					if s.op != "" && now.Sub(s.since) > opBound {
						why = fmt.Sprintf("worker %d: %s has run for %v", i, s.op, now.Sub(s.since).Round(time.Second))
					}
				}
				e.mu.Unlock()
				if n := e.done.Load(); n != last {
					last, lastAt = n, now
				} else if now.Sub(lastAt) > stallBound {
					why = fmt.Sprintf("no operation finished for %v", now.Sub(lastAt).Round(time.Second))
				}
				if why != "" {
					fmt.Fprintf(os.Stderr, "--- FAIL: TestSoak: %s; every goroutine:\n%s", why, allStacks())
					os.Exit(1)
				}
			}
		}
	}()
	return func() { close(stop); <-done }
}

// report logs the operations run and their p50 and p99.
func (e *soakEnv) report() {
	e.mu.Lock()
	defer e.mu.Unlock()
	ops := make([]string, 0, len(e.lat))
	for op := range e.lat {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, op := range ops {
		l := e.lat[op]
		slices.Sort(l)
		q := func(p float64) time.Duration {
			return l[min(len(l)-1, int(p*float64(len(l))))].Round(10 * time.Microsecond)
		}
		e.t.Logf("%-9s %7d ops  p50 %-10v p99 %-10v max %v", op, len(l), q(0.50), q(0.99), l[len(l)-1].Round(time.Millisecond))
	}
}

// trackPeakHeap samples the heap in use until the returned func is
// called, which returns the largest seen.
func trackPeakHeap() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 { close(stop); <-done; return peak.Load() }
}

// openFDs counts this process's open file descriptors; -1 where it
// cannot tell.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
