package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// targetFlags are the flags of every command that talks to a server.
type targetFlags struct {
	demo     demoFlag
	headers  listFlag
	env      listFlag // KEY=VALUE for an ad-hoc command target
	json     bool
	timeout  time.Duration
	startup  time.Duration
	verbose  bool
	roots    listFlag
	logLevel string
	// allowHTTP allows plain http to a URL target off loopback.
	allowHTTP bool
	protocol  string
	// maxMessage overrides the definition's maxMessageBytes.
	maxMessage byteSize
	// traceparent puts every request in a trace (else $TRACEPARENT).
	traceparent string
	// pinned is the client a snapshot declared, which a live side of
	// diff declares too (nil: what the command's flags say).
	pinned *surface.Client
	// record is --record FILE: every message of the session, as JSON Lines.
	record string
	// noSession is --no-session: start the server even when a session
	// (mcpwire connect) keeps it.
	noSession bool
}

func (tf *targetFlags) register(fs *flag.FlagSet) {
	fs.Var(&tf.demo, "demo", "use the built-in demo server (stdio, or =http)")
	fs.Var(&tf.headers, "header", "an HTTP header 'K: V' for a URL target (repeatable)")
	fs.Var(&tf.env, "env", "`KEY=VALUE` in the environment of a command target (-- COMMAND ARGS; repeatable)")
	fs.Var(&tf.env, "e", "short for --env")
	fs.BoolVar(&tf.json, "json", false, "print one JSON document on stdout")
	fs.StringVar(&tf.record, "record", "", "record every message of the session to `FILE` (JSON Lines, secrets redacted, 0600), for mcpwire replay")
	fs.DurationVar(&tf.timeout, "timeout", 0, "bound each request (default: the server's timeout, 30s)")
	fs.DurationVar(&tf.startup, "startup-timeout", 0, "bound the start: spawn or connect, initialize, first list (default: the definition's startupTimeout, else its timeout, 30s)")
	fs.BoolVar(&tf.verbose, "verbose", false, "copy a stdio server's stderr to stderr as it comes")
	fs.Var(&tf.roots, "root", "a directory offered to the server as a root (repeatable; none unless given, or the definition's roots)")
	fs.StringVar(&tf.logLevel, "log-level", "", "ask the server for log messages at this level and above")
	fs.BoolVar(&tf.allowHTTP, "allow-http", false, "allow plain http to a URL target that is not loopback (a CI service container); warns, and never sends a token")
	fs.Var(&tf.maxMessage, "max-message-bytes", "the largest message read from the server (a line, a body, an event), in bytes or with KiB, MiB, GiB (default: the definition's maxMessageBytes, else 256MiB)")
	fs.StringVar(&tf.traceparent, "traceparent", "", "put every request in the W3C trace `TRACEPARENT` (_meta traceparent, with $TRACESTATE and $BAGGAGE; default $TRACEPARENT)")
	fs.BoolVar(&tf.noSession, "no-session", false, "start a configured server for this command even when a session (connect) keeps it")
	fs.StringVar(&tf.protocol, "protocol", "", "pin the MCP revision `VERSION` ("+strings.Join(protocol.SupportedVersions(), ", ")+"); default: detect the server's era")
}

// A target is a server to talk to, resolved from the command line.
type target struct {
	spec *manager.Spec
	// server and home are set for a configured server.
	server *config.Server
	home   string
	// approvals are home's, as read when the server was resolved (its
	// approval checked): its digest and pin policy come from them.
	approvals *config.Approvals
	digest    string // the server's approval digest, as checked then
	// stop releases what resolving started (the in-process HTTP demo).
	stop func()
	// surface is how a configured server's tools compare with the
	// surface pinned at its approval (set by connect; nil when not
	// checked), listed the tools it listed for that.
	surface *manager.SurfaceCheck
	listed  []string
	// tools is the list that check made (nil when none was made): a
	// call looks its tool up in it rather than list again.
	tools []*protocol.Tool
	// login, when set, logs in to the server (proxy's own login): the
	// HTTP client runs it when the server asks for one.
	login func(ctx context.Context) error
}

// resolveTarget finds the server the command line names: --demo, a
// command after --, a URL, or a configured name (the first positional).
// It returns the positionals that remain.
func (inv *invocation) resolveTarget(ctx context.Context, tf *targetFlags, pos, tail []string, hasTail bool) (*target, []string, error) {
	inv.json = tf.json
	for _, h := range tf.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, nil, usageErr("--header wants 'Name: value'")
		}
		inv.addSecrets(config.SecretForms(v)...)
	}
	env, err := inv.envFlags(tf.env)
	if err != nil {
		return nil, nil, err
	}
	if len(env) > 0 && !hasTail {
		return nil, nil, usageErr("--env is for a command target (-- COMMAND ARGS); a configured server's environment is its definition's env and envVars")
	}
	switch {
	case tf.demo.mode != "" && hasTail:
		return nil, nil, usageErr("give --demo or a command after --, not both")
	case tf.demo.mode == "stdio":
		// The program runs itself: a mounted command line ("agent mcp")
		// is reached through the words after the executable's name.
		args := append(strings.Fields(inv.prog)[1:], "serve-demo")
		return &target{spec: &manager.Spec{Name: "demo", Transport: "stdio", Command: inv.env.Executable, Args: args}, stop: func() {}}, pos, nil
	case tf.demo.mode == "http":
		t, err := startHTTPDemo()
		return t, pos, err
	case hasTail:
		if len(tail) == 0 {
			return nil, nil, usageErr("no command after --")
		}
		name := commandName(tail)
		return &target{spec: &manager.Spec{Name: name, Transport: "stdio", Command: tail[0], Args: tail[1:], Env: env}, stop: func() {}}, pos, nil
	case len(pos) == 0:
		return nil, nil, usageErr("no TARGET: give a server name, an http(s):// URL, --demo, or -- COMMAND ARGS")
	case strings.HasPrefix(pos[0], "http://") || strings.HasPrefix(pos[0], "https://"):
		spec := &manager.Spec{Name: manager.URLName(pos[0]), Transport: "http", URL: pos[0], Header: map[string]string{}, AllowHTTP: tf.allowHTTP}
		for _, h := range tf.headers {
			k, v, _ := strings.Cut(h, ":")
			spec.Header[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if err := safe.CheckServerURL(spec.URL, tf.allowHTTP); err != nil {
			f := usageErr("%v", err)
			var ue *safe.URLError
			if errors.As(err, &ue) && ue.PlainHTTP {
				f.hints = []string{"for a server you trust on a network you trust (a CI service container), allow it: --allow-http"}
			}
			return nil, nil, f
		}
		if plainHTTP(spec.URL) {
			for k := range spec.Header {
				if strings.EqualFold(k, "Authorization") {
					return nil, nil, usageErr("--allow-http: a token never crosses plain http to another host; use https, or drop the Authorization header")
				}
			}
		}
		return &target{spec: spec, stop: func() {}}, pos[1:], nil
	}
	t, err := inv.configuredTarget(ctx, pos[0])
	return t, pos[1:], err
}

// startHTTPDemo serves the demo server over streamable HTTP on a loopback
// port of this process.
func startHTTPDemo() (*target, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fail(ExitServer, manager.PhaseSpawn, fmt.Errorf("listening on loopback for the demo server: %v", err))
	}
	h := demo.NewHTTPHandler(demo.Options{})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	url := "http://" + ln.Addr().String() + "/mcp"
	stop := func() {
		h.Close() // ends the sessions' streams, so Shutdown need not wait
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
		<-done
	}
	return &target{spec: &manager.Spec{Name: "demo", Transport: "http", URL: url}, stop: stop}, nil
}

// plainHTTP reports whether raw is a plain http URL to a host that is not
// loopback (allowed only by allowHttp / --allow-http).
func plainHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Scheme, "http") && !safe.IsLoopbackHost(u.Hostname())
}

// warnPlainHTTP prints the warning line of a server reached over plain
// http off loopback, which its definition or --allow-http allowed.
func (inv *invocation) warnPlainHTTP(name, raw string) {
	if plainHTTP(raw) {
		u, _ := url.Parse(raw)
		inv.say("warning: %s: plain http to %s (allowed by allowHttp or --allow-http): anyone on the network between can read and change this traffic; no token is sent\n",
			safe.Sanitize(name), safe.Sanitize(u.Host))
	}
}

// connect starts a session with the target's server, bounded by the
// startup budget, with a spinner for people.
func (inv *invocation) connect(ctx context.Context, t *target, tf *targetFlags, popts protocol.Options) (*manager.Conn, error) {
	spec := t.spec
	opts, err := inv.dialOptions(t, tf, popts)
	if err != nil {
		return nil, err
	}
	if t.login != nil && opts.HTTPClient != nil {
		opts.HTTPClient = inv.reloginClient(ctx, t)
	}
	budget := tf.startupBudget(spec)
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	given := inv.viaSession(sctx, t, tf, opts)
	stop := inv.spinner("connecting to " + spec.Name)
	conn, err := manager.Dial(sctx, spec, opts)
	stop()
	if err != nil {
		if sctx.Err() != nil && ctx.Err() == nil {
			err = withTimeoutNote(err, budget)
		}
		return nil, inv.serverFailure(t, err)
	}
	if err := inv.checkSurface(ctx, t, conn, given); err != nil {
		conn.Close()
		return nil, err
	}
	if tf.logLevel != "" {
		if err := conn.SetLogLevel(ctx, tf.logLevel); err != nil {
			inv.say("warning: %s: logging/setLevel: %v\n", spec.Name, safe.Sanitize(err.Error()))
		}
	}
	return conn, nil
}

// dialOptions prepares the target's spec (its timeout, its pinned
// revision, its secrets) and returns how to dial it.
func (inv *invocation) dialOptions(t *target, tf *targetFlags, popts protocol.Options) (*manager.DialOptions, error) {
	spec := t.spec
	trace, err := inv.trace(tf)
	if err != nil {
		return nil, err
	}
	popts.Trace = trace
	if tf.verbose {
		popts.OnIconDropped = func(what, src string) {
			inv.say("warning: %s: %s: an icon dropped: %s is neither an https: URL nor a data: URI\n", safe.Sanitize(spec.Name), safe.Sanitize(what), safe.Sanitize(oneLine(src, 100)))
		}
	}
	if spec.AllowHTTP {
		inv.warnPlainHTTP(spec.Name, spec.URL)
	}
	if tf.maxMessage > 0 {
		spec.MaxMessageBytes = int64(tf.maxMessage)
	}
	if tf.timeout > 0 {
		spec.Timeout = tf.timeout
	}
	for _, v := range spec.Env {
		inv.addSecrets(v)
	}
	for _, v := range spec.Header {
		inv.addSecrets(v)
	}
	if popts.ClientName == "" {
		popts.ClientName = "mcpwire"
		popts.ClientVersion = clientVersion()
	}
	if tf.pinned != nil {
		pin := pinnedOptions(tf.pinned)
		popts.Elicit, popts.ElicitURL, popts.Sample, popts.Roots = pin.Elicit, pin.ElicitURL, pin.Sample, pin.Roots
	}
	if len(tf.roots) > 0 {
		roots, err := rootsFrom(inv.env.Dir, tf.roots)
		if err != nil {
			return nil, err
		}
		popts.Roots = func(context.Context) ([]protocol.Root, error) { return roots, nil }
	}
	if tf.protocol != "" {
		if !protocol.IsSupported(tf.protocol) {
			return nil, usageErr("--protocol %q: mcpwire speaks %s", tf.protocol, strings.Join(protocol.SupportedVersions(), ", "))
		}
		spec.ProtocolVersion = tf.protocol
	} else if tf.pinned != nil && protocol.IsSupported(tf.pinned.Protocol) {
		spec.ProtocolVersion = tf.pinned.Protocol
	} else if spec.ProtocolVersion == "" {
		pin, err := inv.protocolPin()
		if err != nil {
			return nil, err
		}
		spec.ProtocolVersion = pin
	}
	opts := &manager.DialOptions{Environ: inv.env.Environ(), Protocol: popts, EraCache: eraCache(openHome(inv.authHome(t))),
		ReapOrphans: inv.env.ReapOrphans, Hurry: inv.env.Hurry}
	if tf.verbose {
		opts.Stderr = inv.stderrRelay(spec.Name)
	}
	if spec.Transport != "stdio" {
		opts.HTTPClient = inv.authClient(t)
	}
	if tf.record != "" {
		opts.Record = inv.recordTo(tf.record)
	}
	return opts, nil
}

// startupBudget bounds the start of spec's server: --startup-timeout
// when given, else the definition's startupTimeout, else its timeout
// (as the manager bounds it), at most DefaultStartup.
func (tf *targetFlags) startupBudget(spec *manager.Spec) time.Duration {
	if tf.startup > 0 {
		return tf.startup
	}
	return spec.StartupBudget(manager.DefaultStartup)
}

// withTimeoutNote says that the startup budget ran out.
func withTimeoutNote(err error, d time.Duration) error {
	var se *manager.ServerError
	if errors.As(err, &se) {
		return &manager.ServerError{Server: se.Server, Phase: se.Phase, Stderr: se.Stderr,
			Err: fmt.Errorf("no answer within the startup budget of %v", d)}
	}
	return fmt.Errorf("no answer within the startup budget of %v: %w", d, err)
}

// loginWords is what login takes for a server: a configured server's
// name, or the URL of a server given by URL (shown without its query), so
// that a hint that names it is a command that works.
func loginWords(spec *manager.Spec, configured bool) string {
	if !configured && spec.URL != "" {
		return spec.Target()
	}
	return spec.Name
}

// loginWords is what login takes for the target's server.
func (t *target) loginWords() string { return loginWords(t.spec, t.server != nil) }

// serverFailure turns a manager error into a failure with an exit code
// and a hint for what to do next.
func (inv *invocation) serverFailure(t *target, err error) error {
	spec := t.spec
	f := &failure{code: ExitServer, server: spec.Name, err: err}
	var se *manager.ServerError
	if errors.As(err, &se) {
		f.phase, f.err, f.stderr = se.Phase, errors.New(se.Reason()), se.Stderr
	}
	if errors.Is(err, context.DeadlineExceeded) {
		f.kind = codeTimeout // the reason's text keeps no error chain
	}
	if inv.authFailure(f, t.loginWords(), err) {
		return f
	}
	var sbe *manager.SandboxError
	switch {
	case errors.As(err, &sbe):
		f.code = ExitConfig
		f.hints = append(f.hints, "see what this machine can enforce with: "+inv.suggest("doctor"))
		return f
	case len(spec.Sandbox) > 0 && manager.SandboxDenied(f.stderr+" "+err.Error()):
		f.hints = append(f.hints, manager.SandboxHint(spec))
	}
	switch f.phase {
	case manager.PhaseSpawn:
		f.hints = append(f.hints, "check that the command exists, is executable, and runs by itself: "+spec.Command)
	case manager.PhaseConnect:
		f.hints = append(f.hints, "check that the server is running and the URL is right: "+spec.Target())
	case manager.PhaseAuth:
		f.code = ExitAuth
		f.hints = append(f.hints, "log in first: "+inv.suggest("login", t.loginWords()))
	case manager.PhaseCall, manager.PhaseList:
		if errors.Is(err, context.DeadlineExceeded) {
			f.hints = append(f.hints, "the server did not answer in time; raise --timeout (or the definition's timeout) if it is slow, not stuck")
		}
	case manager.PhaseInitialize:
		var ve *protocol.VersionError
		if errors.As(err, &ve) {
			f.hints = append(f.hints, "the server speaks a protocol version "+inv.prog+" does not; upgrade one of them")
		} else if ee := (*manager.ExitError)(nil); errors.As(err, &ee) {
			f.hints = append(f.hints, exitHint(ee, f.stderr != "" || inv.relaying(), spec.Target()))
			f.stdout = ee.StdoutTail
		} else if spec.Transport == "stdio" {
			f.hints = append(f.hints, "run the command by hand to see what it does: "+spec.Target())
		}
	}
	if h := manager.UnpassedHint(inv.env.Environ(), spec, f.stderr+"\n"+f.stdout+"\n"+f.err.Error()); h != "" {
		f.hints = append([]string{h}, f.hints...)
	}
	return f
}

// A relay copies a server's stderr to ours as it comes (--verbose):
// secrets masked as a stream, so that one split across two reads is still
// masked, then sanitized, each line after the server's name, so that no
// line of the server's can pass for one of ours.
type relay struct {
	lines *linePrefixer
	text  *safe.TextWriter
	red   *safe.Writer
}

func (r *relay) Write(p []byte) (int, error) { return r.red.Write(p) }

// Flush writes what the relay holds back (the start of what may be a
// secret, an incomplete character) and ends an unfinished line.
func (r *relay) Flush() {
	r.red.Flush()
	r.text.Flush()
	r.lines.end()
}

// stderrRelay returns a relay of the server name's stderr to ours, with
// the secrets known now; finish flushes it.
func (inv *invocation) stderrRelay(name string) *relay {
	lines := &linePrefixer{w: inv.env.Stderr, prefix: safe.Sanitize(name) + " | "}
	text := safe.NewTextWriter(lines)
	r := &relay{lines: lines, text: text, red: safe.NewWriter(text, inv.redactor())}
	inv.mu.Lock()
	inv.relays = append(inv.relays, r)
	inv.mu.Unlock()
	return r
}

// A linePrefixer writes prefix at the start of every line.
type linePrefixer struct {
	_ [0]func() // not comparable: no equality function in the binary

	mu     sync.Mutex
	w      io.Writer
	prefix string
	mid    bool // inside a line
}

func (l *linePrefixer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	var b []byte
	for len(p) > 0 {
		if !l.mid {
			b = append(b, l.prefix...)
			l.mid = true
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b = append(b, p...)
			break
		}
		b = append(b, p[:i+1]...)
		p = p[i+1:]
		l.mid = false
	}
	_, err := l.w.Write(b)
	return n, err
}

// end finishes a line the server left open.
func (l *linePrefixer) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mid {
		l.w.Write([]byte("\n"))
		l.mid = false
	}
}

// protocolPin is the revision $MCPWIRE_PROTOCOL pins for every server
// whose definition pins none ("" for none); --protocol wins over both.
func (inv *invocation) protocolPin() (string, error) {
	v := strings.TrimSpace(inv.env.Getenv("MCPWIRE_PROTOCOL"))
	if v != "" && !protocol.IsSupported(v) {
		return "", usageErr("MCPWIRE_PROTOCOL=%s: mcpwire speaks %s", safe.Sanitize(v), strings.Join(protocol.SupportedVersions(), ", "))
	}
	return v, nil
}

// exitHint says what to look at when a stdio server exited during its
// start: what it printed on stdout that was not MCP (shown below the
// error), its stderr (shown, or relayed with --verbose), or, with
// neither, the command to run by hand.
func exitHint(ee *manager.ExitError, sawStderr bool, target string) string {
	switch {
	case ee.StdoutTail != "":
		return "the server printed on stdout what is not MCP (shown above), then exited: a stdio server may write only JSON-RPC there"
	case sawStderr:
		return "the server exited during start-up; its stderr is above"
	}
	return "the server exited during start-up without a word on stderr; run the command by hand to see what it does: " + target
}

// relaying says whether a server's stderr is relayed to ours (--verbose).
func (inv *invocation) relaying() bool {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	return len(inv.relays) > 0
}

// envFlags reads --env KEY=VALUE words; their values are secrets (masked
// in every output).
func (inv *invocation) envFlags(words []string) (map[string]string, error) {
	var env map[string]string
	for _, kv := range words {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, "\x00") {
			return nil, usageErr("--env wants KEY=VALUE, got %q", strings.SplitN(kv, "=", 2)[0])
		}
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
		inv.addSecrets(v)
	}
	return env, nil
}

// trace is the trace context of the command: --traceparent, else
// $TRACEPARENT, with $TRACESTATE and $BAGGAGE; nil when none.
func (inv *invocation) trace(tf *targetFlags) (*protocol.TraceContext, error) {
	tp := tf.traceparent
	if tp == "" {
		tp = strings.TrimSpace(inv.env.Getenv("TRACEPARENT"))
	}
	if tp == "" {
		return nil, nil
	}
	tc := &protocol.TraceContext{Traceparent: tp, Tracestate: inv.env.Getenv("TRACESTATE"), Baggage: inv.env.Getenv("BAGGAGE")}
	if err := tc.Check(); err != nil {
		return nil, usageErr("%s", safe.Sanitize(err.Error()))
	}
	inv.traceID = tc.TraceID()
	return tc, nil
}
