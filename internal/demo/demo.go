// Package demo is mcpwire's built-in demo MCP server: the default a
// newcomer sees (`mcpwire test --demo` runs `mcpwire serve-demo`) and the
// fixture of the project's tests, with a switch for every misbehaviour a
// test needs.
//
// It serves MCP over stdio (newline-delimited JSON-RPC on stdin and stdout,
// logs on stderr) or, with --http ADDR, over streamable HTTP at /mcp. It
// keeps its own small wire structs and does not import github.com/mcpwire/mcpwire/protocol, so
// that it is an independent peer of the client.
//
// # Tools
//
// echo {text}; add {a, b} (structured output {sum}); sleep {ms} (honours
// notifications/cancelled); fail (isError); big {bytes, pattern}; crash
// (exit 3 mid-call; drops the connection over HTTP); notify (list_changed,
// three progress notifications when a progressToken came, a log message);
// env {name}; roots (asks roots/list); ask (elicitation/create, form mode);
// sample (sampling/createMessage); image (image, audio, resource link and
// embedded resource contents). --tools N adds tool-0001… tool-N.
//
// # Resources and prompts
//
// demo://readme, demo://config.json, demo://status (the session's state,
// including the request IDs cancelled so far), demo://logo.png (binary);
// the template demo://item/{id}; the prompts greet {name, style?} and plain.
package demo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// Options configures the demo server. The zero value is a well-behaved
// server.
type Options struct {
	_ [0]func() // not comparable: no equality function in the binary

	Era string // EraDual (""), EraModern or EraLegacy: the eras spoken
	// Early says what a legacy session does with a request before
	// initialize (a dual-era client's server/discover probe): "" answers
	// -32600, "ignore" never answers (over stdio it drops the request at
	// once, as a server that ignores an unknown method does, rather than
	// holding it pending), "exit" exits 3 (stdio) or drops the
	// connection (HTTP), as some legacy servers do; "initialize-first"
	// answers -32602, "unsupported" -32022 without data, and
	// "unsupported-legacy" -32022 with data.supported naming 2025-06-18.
	Early       string
	PageSize    int  // items per page of every list; 0 = all in one page
	ExtraTools  int  // extra tools tool-0001… to add
	NextRelease bool // serve the surface of a pretend next release (see nextRelease), for diff tests
	// Tasks adds three task tools and serves the Tasks extension
	// (io.modelcontextprotocol/tasks) in the modern era: see tasks.go.
	Tasks bool
	// Skills serves the Skills extension (io.modelcontextprotocol/skills):
	// "on", or "tampered" (see skills.go); "" none.
	Skills string
	// Apps adds an MCP App (io.modelcontextprotocol/ui): see apps.go.
	Apps bool
	// DescriptionsFile names a JSON object of tool name → description,
	// read at each tools/list: a test edits it between connections to
	// play a server whose next release rewrites a description.
	DescriptionsFile string
	VersionAnswer    string // forces the protocolVersion answered to initialize
	// Hostile makes every string the demo says hostile (see hostile.go).
	Hostile bool
	// Union adds the tool "either", whose input schema is a root anyOf
	// (which clients normalize: the raw and the normalized differ).
	Union bool
	// Icons adds the tool "pictured", whose icons are of every scheme: an
	// https: URL and a data: URI (kept), javascript: and file: (dropped).
	Icons bool
	// Conformance serves the fixtures of the conformance suite's server
	// scenarios instead of the demo's surface (see conformance.go).
	Conformance bool

	HangInitialize   bool // never answer initialize (nor server/discover)
	CrashOnFirstCall bool // exit 3 (stdio) or drop the connection (HTTP) on the first tools/call
	Verbose          bool // log every request method to stderr

	// For soaks of a client: a slow list, list_changed storms, floods
	// of resource updates.
	ListDelay   time.Duration // tools/list waits this long before answering (a cancel ends the wait)
	ListChanged int           // each tools/list sends this many tools/list_changed first
	// ListCache is the caching hint of the modern lists: "" the server
	// package's (30 s, public), "none" no ttlMs nor cacheScope (as a
	// server that omits them), "private" 30 s private.
	ListCache   string
	UpdateFlood int // each resources/subscribe (legacy) sends this many resources/updated after the first

	// Stdio only.
	ExitAtStart bool          // print an error to stderr and exit 1 before reading anything
	Banner      bool          // print a non-JSON line on stdout before serving
	Garbage     bool          // print a non-JSON line on stdout after each answer
	StartDelay  time.Duration // sleep before serving
	PrintEnv    bool          // print the whole environment to stderr at start

	// HTTP only.
	SSE              bool   // answer requests with text/event-stream
	Stateless        bool   // no sessions; GET and DELETE answer 405
	ExpireAfter      int    // forget a session after this many requests (0 = never)
	DropAfterPriming bool   // close each SSE answer after its priming event; resume by GET
	RequireAuth      string // the bearer token every request must carry

	// Stderr receives the logs; nil discards them.
	Stderr io.Writer

	// onSession, when set, is given each session's server (tests).
	onSession func(*server)
	// stdio is set by Main when it serves stdio (see early).
	stdio bool
}

// Main runs the demo server with command-line args until ctx ends, stdin
// closes (stdio), or a crash is asked for, and returns the exit status.
// It closes stdout (when it is an io.Closer) before returning, as a
// process exit would, so that an in-process client sees the end.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if c, ok := stdout.(io.Closer); ok {
		defer c.Close()
	}
	stderr = &lockedWriter{w: stderr}
	opts, addr, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	opts.Stderr = stderr
	if opts.ExitAtStart {
		fmt.Fprintln(stderr, "demo: error: exiting at start as asked (--exit-at-start)")
		return 1
	}
	if opts.PrintEnv {
		for _, kv := range os.Environ() {
			fmt.Fprintln(stderr, kv)
		}
	}
	if opts.StartDelay > 0 {
		t := time.NewTimer(opts.StartDelay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0
		}
	}
	if addr != "" {
		return serveHTTP(ctx, addr, opts, stdout, stderr)
	}
	if opts.Banner {
		io.WriteString(stdout, "mcpwire demo server starting (this banner is not JSON-RPC)\n")
	}
	opts.stdio = true
	if newMCPServer(&opts).ServeStdio(ctx, stdin, stdout) != nil {
		return 3
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (Options, string, error) {
	var o Options
	var addr string
	fs := flag.NewFlagSet("serve-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&addr, "http", "", "serve streamable HTTP at `ADDR` (e.g. 127.0.0.1:0) instead of stdio")
	fs.StringVar(&o.Era, "era", "", "the eras spoken: dual (the default: 2026-07-28 and the legacy revisions), modern (2026-07-28 only) or legacy (no 2026-07-28)")
	fs.StringVar(&o.Early, "early", "", "a request before initialize (legacy): error (the default, -32600), initialize-first (-32602), unsupported (-32022 without data), unsupported-legacy (-32022 naming 2025-06-18 only), ignore (never answered) or exit")
	fs.IntVar(&o.PageSize, "page-size", 0, "items per page of each list (0 = one page)")
	fs.IntVar(&o.ExtraTools, "tools", 0, "add `N` extra tools tool-0001…")
	fs.StringVar(&o.Skills, "skills", "", "serve the Skills extension: on (two skills), or tampered (a SKILL.md that fails its digest)")
	fs.BoolVar(&o.Apps, "apps", false, "add an MCP App: the tool dashboard, whose _meta.ui.resourceUri names the resource "+dashboardURI)
	fs.BoolVar(&o.Tasks, "tasks", false, "add the task tools slow-task, ask-task and fail-task and serve the Tasks extension (modern era), with notifications/tasks on subscriptions/listen")
	fs.BoolVar(&o.NextRelease, "next-release", false, "serve the surface of a pretend next release (version 0.2.0), for mcpwire diff")
	fs.BoolVar(&o.Union, "union", false, "add the tool either, whose input schema is a root anyOf of two objects")
	fs.BoolVar(&o.Icons, "icons", false, "add the tool pictured, whose icons are an https: URL, a data: URI, a javascript: and a file: URI")
	fs.BoolVar(&o.Conformance, "conformance", false, "serve the fixtures of the MCP conformance suite's server scenarios (test_simple_text …) instead of the demo's tools")
	fs.BoolVar(&o.Hostile, "hostile", false, "say hostile strings: name, instructions and one more tool per string of internal/hostile's table (tests)")
	fs.StringVar(&o.DescriptionsFile, "descriptions", "", "read tool descriptions from `FILE` (a JSON object of name → description) at each tools/list")
	fs.StringVar(&o.VersionAnswer, "version-answer", "", "answer initialize with protocol `VERSION`")
	fs.BoolVar(&o.HangInitialize, "hang-initialize", false, "never answer initialize nor server/discover")
	fs.BoolVar(&o.ExitAtStart, "exit-at-start", false, "print an error and exit 1 before reading anything")
	fs.BoolVar(&o.Banner, "banner", false, "print a non-JSON banner on stdout before serving")
	fs.BoolVar(&o.Garbage, "garbage", false, "print a non-JSON line on stdout after each answer")
	fs.BoolVar(&o.CrashOnFirstCall, "crash-on-first-call", false, "exit 3 on the first tools/call")
	fs.DurationVar(&o.StartDelay, "start-delay", 0, "sleep `DURATION` before serving")
	fs.BoolVar(&o.PrintEnv, "print-env", false, "print the environment to stderr at start")
	fs.BoolVar(&o.Verbose, "verbose", false, "log every request method to stderr")
	fs.DurationVar(&o.ListDelay, "list-delay", 0, "tools/list waits `DURATION` before answering")
	fs.StringVar(&o.ListCache, "list-cache", "", "the caching hint of the modern lists: none (no ttlMs nor cacheScope) or private (30 s, private); default 30 s public")
	fs.IntVar(&o.ListChanged, "list-changed", 0, "each tools/list sends `N` tools/list_changed first")
	fs.IntVar(&o.UpdateFlood, "update-flood", 0, "each resources/subscribe (legacy) sends `N` more resources/updated")
	fs.BoolVar(&o.SSE, "sse", false, "HTTP: answer requests as text/event-stream")
	fs.BoolVar(&o.Stateless, "stateless", false, "HTTP: no sessions")
	fs.IntVar(&o.ExpireAfter, "expire-after", 0, "HTTP: forget a session after `N` requests")
	fs.BoolVar(&o.DropAfterPriming, "drop-after-priming", false, "HTTP: close SSE answers after the priming event")
	fs.StringVar(&o.RequireAuth, "require-auth", "", "HTTP: require `TOKEN` as a bearer token")
	if err := fs.Parse(args); err != nil {
		return o, "", err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "serve-demo: unexpected argument %q\n", fs.Arg(0))
		return o, "", errors.New("demo: unexpected arguments")
	}
	switch o.Era {
	case "dual":
		o.Era = EraDual
	case EraDual, EraModern, EraLegacy:
	default:
		fmt.Fprintf(stderr, "serve-demo: --era must be dual, modern or legacy, not %q\n", o.Era)
		return o, "", errors.New("demo: bad --era")
	}
	switch o.Skills {
	case "", "on", "tampered":
	default:
		fmt.Fprintf(stderr, "serve-demo: --skills must be on or tampered, not %q\n", o.Skills)
		return o, "", errors.New("demo: bad --skills")
	}
	switch o.Early {
	case "error":
		o.Early = ""
	case "", "ignore", "exit", "initialize-first", "unsupported", "unsupported-legacy":
	default:
		fmt.Fprintf(stderr, "serve-demo: --early must be error, initialize-first, unsupported, unsupported-legacy, ignore or exit, not %q\n", o.Early)
		return o, "", errors.New("demo: bad --early")
	}
	if o.ListCache != "" && o.ListCache != "none" && o.ListCache != "private" {
		fmt.Fprintf(stderr, "serve-demo: --list-cache must be none or private, not %q\n", o.ListCache)
		return o, "", errors.New("demo: bad --list-cache")
	}
	if o.PageSize < 0 || o.ExtraTools < 0 || o.ExpireAfter < 0 {
		fmt.Fprintln(stderr, "serve-demo: --page-size, --tools and --expire-after must not be negative")
		return o, "", errors.New("demo: negative count")
	}
	return o, addr, nil
}

// An HTTPHandler serves the demo over streamable HTTP at /mcp. Close it
// to end its sessions and wait for their work.
type HTTPHandler = mcpserver.HTTPHandler

// NewHTTPHandler returns a handler serving the demo with opts over
// streamable HTTP at /mcp (and, with RequireAuth, the protected resource
// metadata under /.well-known/).
func NewHTTPHandler(opts Options) *HTTPHandler {
	return newMCPServer(&opts).HTTPHandler()
}

func serveHTTP(ctx context.Context, addr string, opts Options, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "demo: error: listening on %s: %v\n", addr, err)
		return 1
	}
	h := NewHTTPHandler(opts)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "listening on http://%s/mcp\n", ln.Addr())
	code := 0
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "demo: error: serving: %v\n", err)
		code = 1
	}
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	return code
}

// A lockedWriter serializes writes to w.
type lockedWriter struct {
	_ [0]func() // not comparable: no equality function in the binary

	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return len(p), nil
	}
	return l.w.Write(p)
}
