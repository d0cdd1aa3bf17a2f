// This file holds Dial, the one connection to one server that the
// Manager makes for each of its servers and that the single-server
// commands (call, test, doctor, probe, login's check) make directly.

package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// DefaultStartup bounds connecting to a server: spawn or connect,
// initialize and the first full tool list.
const DefaultStartup = 30 * time.Second

// A Spec is a server definition ready to connect: variables expanded,
// validated.
type Spec struct {
	Name      string
	Transport string // "stdio", "http" or "sse" (the 2024-11-05 HTTP+SSE transport)

	Command string
	Args    []string
	Env     map[string]string
	Dir     string

	URL    string
	Header map[string]string
	// AllowHTTP allows plain http to a host that is not loopback
	// ("allowHttp"); no OAuth token is ever sent over it.
	AllowHTTP bool

	// Timeout bounds each request (0: protocol.DefaultTimeout).
	Timeout time.Duration
	// Roots are the directories offered to the server as its roots
	// (absolute); none means no roots capability, unless
	// DialOptions.Protocol.Roots says otherwise.
	Roots []string
	// ProtocolVersion pins the MCP revision (a definition's
	// "protocolVersion", the CLI's --protocol); "" speaks both eras and
	// detects the server's.
	ProtocolVersion string
	// StartupTimeout bounds the start (the definition's startupTimeout;
	// 0: the caller's budget); ToolTimeout each tool call (its
	// toolTimeout; 0: the caller's choice, else Timeout).
	StartupTimeout, ToolTimeout time.Duration
	// ShutdownTimeout is each wait of a stdio server's stop: after closing
	// its stdin, and after SIGTERM (0: 2s each); for an HTTP server, the
	// bound of the DELETE that ends its session.
	ShutdownTimeout time.Duration
	// MaxMessageBytes bounds each message read from the server (0: 256 MiB).
	MaxMessageBytes int64
	// Sandbox contains a stdio server (WithSandbox): each narrows the
	// ones before; none means uncontained.
	Sandbox []*transport.Sandbox
	// SandboxFrom says where each of Sandbox comes from, in its order:
	// "defaults.sandbox", "defaults.projectSandbox" (settings.json) or
	// "definition".
	SandboxFrom []string
	// MaxRetries bounds the Manager's reconnects in a row after a failure
	// and the resumptions of a broken HTTP stream (0:
	// config.DefaultMaxRetries; less than 0: none, fail fast).
	MaxRetries int
}

// retries is MaxRetries with its default: 0 means none.
func (s *Spec) retries() int {
	switch {
	case s.MaxRetries < 0:
		return 0
	case s.MaxRetries == 0:
		return config.DefaultMaxRetries
	}
	return s.MaxRetries
}

// StartupBudget bounds the whole start of the server (spawn or connect,
// the era probe, initialize and the first full list together): its
// startupTimeout, else its request timeout, and never more than max
// (the caller's budget, 0: none) unless startupTimeout says so.
func (s *Spec) StartupBudget(max time.Duration) time.Duration {
	if s.StartupTimeout > 0 {
		return s.StartupTimeout
	}
	if s.Timeout > 0 && (max <= 0 || s.Timeout < max) {
		return s.Timeout
	}
	return max
}

// DirRoots returns the roots/list answer that offers dirs.
func DirRoots(dirs []string) func(context.Context) ([]protocol.Root, error) {
	roots := make([]protocol.Root, len(dirs))
	for i, d := range dirs {
		roots[i] = protocol.DirRoot(d)
	}
	return func(context.Context) ([]protocol.Root, error) { return roots, nil }
}

// Target describes where the server is, for people: the command line, or
// the URL reduced to scheme, host, port and path.
func (s *Spec) Target() string {
	if s.Transport == "stdio" {
		t := s.Command
		for _, a := range s.Args {
			t += " " + a
		}
		return t
	}
	return safe.RedactURL(s.URL)
}

// DialOptions are what a connection needs besides its Spec. A nil
// *DialOptions means the defaults.
type DialOptions struct {
	// Record, when set, records every message of the session (--record).
	Record *Recorder
	// Environ is the host environment a stdio server's environment is
	// chosen from (transport.ChildEnv); nil means none of it.
	Environ []string
	// Stderr, when set, gets a live copy of a stdio server's stderr.
	Stderr io.Writer
	// HTTPClient is the client for HTTP servers (its transport adds the
	// bearer token when the server needs OAuth); nil means a plain one.
	HTTPClient *http.Client
	// Protocol holds the session's callbacks and client identity.
	Protocol protocol.Options
	// EraCache, when set, says which era the server spoke last (the
	// session then skips what it need not detect again) and learns the
	// era of this connection. A nil EraCache detects every time.
	EraCache *EraCache
	// ReapOrphans makes the stop of a stdio server also stop its
	// descendants that left its process group (a child started with
	// setsid, a daemon, a child in a process group of its own). On Linux
	// this makes the whole process a child subreaper, for good: every
	// orphan below it comes to it, and a stop stops every orphan it finds
	// that os/exec does not wait for (see transport.Reaper). Off by
	// default; the mcpwire command sets it. Elsewhere it changes nothing.
	ReapOrphans bool
	// Hurry, when closed, cuts the stop of a stdio server short: what is
	// left of it is killed at once (a second Ctrl-C, say).
	Hurry <-chan struct{}
	// SandboxLauncher is the program that applies a stdio server's
	// sandbox on Linux ("" = this program: see RunSandboxLauncher).
	SandboxLauncher string
	// Via, when set, is a connection to the server already made (a
	// session's socket, past its handshake): the session is spoken over
	// it, newline-framed, instead of starting or reaching spec's server.
	// The Conn still names spec's transport.
	Via func(ctx context.Context) (io.ReadWriteCloser, error)

	reaper *transport.Reaper // shared by a Manager's servers
}

// A Conn is a live, initialized session with one server.
type Conn struct {
	*protocol.Session
	Spec *Spec
	// Spawn is how long the spawn (stdio) or the first connection took;
	// Initialize how long the initialize handshake took.
	Spawn, Initialize time.Duration

	stdio *transport.StdioConn
	http  *transport.HTTPConn
	via   bool // spoken over DialOptions.Via
}

// Transport names the transport in use: "stdio", "http", or "sse" for
// the 2024-11-05 HTTP+SSE transport (asked for, or fallen back to when
// the server refused streamable HTTP).
func (c *Conn) Transport() string {
	switch {
	case c.via:
		return c.Spec.Transport
	case c.stdio != nil:
		return "stdio"
	case c.http != nil && c.http.Legacy():
		return "sse"
	}
	return "http"
}

// Pid returns the process id of a stdio server, else 0.
func (c *Conn) Pid() int {
	if c.stdio == nil {
		return 0
	}
	return c.stdio.Pid()
}

// StderrTail returns the last lines a stdio server wrote to stderr.
func (c *Conn) StderrTail() string {
	if c.stdio == nil {
		return ""
	}
	return c.stdio.StderrTail()
}

// Explain wraps an error of this connection as a *ServerError, with the
// phase it happened in and the server's last stderr lines.
func (c *Conn) Explain(phase string, err error) error {
	return explain(c.Spec.Name, phase, err, c.stdio)
}

// Dial connects to the server of spec and starts a session: the era and
// revision pinned by spec or opts.Protocol, else what the era cache
// remembers, else detected. A stdio server that exits on the
// server/discover probe (some legacy servers do) is started again and
// spoken to in the legacy era. ctx bounds the whole start.
func Dial(ctx context.Context, spec *Spec, opts *DialOptions) (*Conn, error) {
	if opts == nil {
		opts = &DialOptions{}
	}
	popts := opts.Protocol
	if popts.Timeout == 0 {
		popts.Timeout = spec.Timeout
	}
	if popts.Roots == nil && len(spec.Roots) > 0 {
		popts.Roots = DirRoots(spec.Roots)
	}
	if popts.ProtocolVersion == "" {
		popts.ProtocolVersion = spec.ProtocolVersion
	}
	pinned := popts.ProtocolVersion != ""
	if !pinned && popts.Hint == nil {
		popts.Hint = opts.EraCache.Lookup(spec)
	}
	if dl, ok := ctx.Deadline(); ok && !pinned {
		// The probe may take half of what is left of the budget at
		// most: a legacy server that never answers it still gets its
		// initialize within the budget.
		probe := popts.ProbeTimeout
		if probe <= 0 {
			probe = protocol.DefaultProbeTimeout
		}
		popts.ProbeTimeout = max(min(probe, time.Until(dl)/2), time.Millisecond)
	}
	if dl, ok := ctx.Deadline(); ok && popts.StartTimeout == 0 {
		// The start's budget (a startupTimeout, --startup-timeout)
		// bounds initialize too, when it is longer than a request's
		// timeout: a server that downloads itself first may take that.
		request := popts.Timeout
		if request <= 0 {
			request = protocol.DefaultTimeout
		}
		if left := time.Until(dl); left > request {
			popts.StartTimeout = left
		}
	}
	c := &Conn{Spec: spec}
	start := time.Now()
	switch {
	case opts.Via != nil:
		if err := c.dialVia(ctx, opts, &popts); err != nil {
			return nil, err
		}
	case spec.Transport == "stdio":
		st := &transport.Stdio{
			Command:         spec.Command,
			Args:            spec.Args,
			Env:             transport.ChildEnv(opts.Environ, spec.Env),
			Dir:             spec.Dir,
			Stderr:          opts.Stderr,
			CloseWait:       spec.ShutdownTimeout,
			MaxMessageBytes: spec.MaxMessageBytes,
			TermWait:        spec.ShutdownTimeout,
			Hurry:           opts.Hurry,
			Reaper:          opts.reaper,
			Sandbox:         spec.Sandbox,
			Launcher:        opts.SandboxLauncher,
		}
		if st.Reaper == nil && opts.ReapOrphans {
			// Without a subreaper the group alone is stopped, as before.
			st.Reaper, _ = transport.NewReaper()
		}
		conn, err := st.Connect(ctx)
		if err != nil {
			return nil, &ServerError{Server: spec.Name, Phase: PhaseSpawn, Err: err}
		}
		c.Spawn = time.Since(start)
		start = time.Now()
		sess, err := protocol.Connect(ctx, protocol.RecordStream(conn, opts.recorder(spec)), &popts)
		if errors.Is(err, protocol.ErrClosedByProbe) && !pinned {
			// The server ended on the probe, as some legacy servers do
			// on a request before initialize: start it again, legacy. When
			// that one ends too, the first failure is what to report.
			first := explain(spec.Name, PhaseInitialize, err, conn)
			again, serr := st.Connect(ctx)
			if serr != nil {
				return nil, first
			}
			popts.Hint = &protocol.EraHint{Era: protocol.EraLegacy}
			if sess, err = protocol.Connect(ctx, protocol.RecordStream(again, opts.recorder(spec)), &popts); err != nil && ended(err, again) {
				return nil, first
			}
			conn = again
		}
		c.stdio = conn
		if err != nil {
			return nil, explain(spec.Name, PhaseInitialize, err, conn)
		}
		c.Session = sess
	case spec.Transport == "http" || spec.Transport == "sse":
		client := opts.HTTPClient
		if opts.Record != nil {
			client = opts.Record.httpClient(spec.Name, client)
		}
		h := &transport.HTTP{URL: spec.URL, Client: client, Legacy: spec.Transport == "sse", Header: http.Header{}, AllowHTTP: spec.AllowHTTP,
			MaxMessageBytes: spec.MaxMessageBytes, ShutdownTimeout: spec.ShutdownTimeout, MaxResumes: spec.MaxRetries}
		for k, v := range spec.Header {
			h.Header.Set(k, v)
		}
		conn, err := h.Connect(ctx)
		if err != nil {
			return nil, &ServerError{Server: spec.Name, Phase: PhaseConnect, Err: err}
		}
		c.http = conn
		c.Spawn = time.Since(start)
		start = time.Now()
		sess, err := protocol.Connect(ctx, protocol.RecordStream(conn, opts.recorder(spec)), &popts)
		if err != nil {
			return nil, explain(spec.Name, PhaseInitialize, err, nil)
		}
		c.Session = sess
	default:
		return nil, &ServerError{Server: spec.Name, Phase: PhaseConfig, Err: fmt.Errorf("unknown transport %q", spec.Transport)}
	}
	c.Initialize = time.Since(start)
	if opts.Record != nil {
		opts.Record.session(spec.Name, c)
	}
	if !pinned && !c.via {
		opts.EraCache.Store(spec, c.Era(), c.ProtocolVersion())
	}
	return c, nil
}

// dialVia starts the session over opts.Via's connection.
func (c *Conn) dialVia(ctx context.Context, opts *DialOptions, popts *protocol.Options) error {
	start := time.Now()
	rwc, err := opts.Via(ctx)
	if err != nil {
		return &ServerError{Server: c.Spec.Name, Phase: PhaseConnect, Err: err}
	}
	c.via = true
	c.Spawn = time.Since(start)
	sess, err := protocol.Connect(ctx, protocol.RecordStream(transport.LineConn(rwc), opts.recorder(c.Spec)), popts)
	if err != nil {
		return explain(c.Spec.Name, PhaseInitialize, err, nil)
	}
	c.Session = sess
	return nil
}

// recorder is what records the messages of spec's session: nil
// without opts.Record.
func (opts *DialOptions) recorder(spec *Spec) func(dir string, msg []byte) {
	if opts.Record == nil {
		return nil
	}
	opts.Record.addSecrets(spec)
	rec := opts.Record
	return func(dir string, msg []byte) { rec.message(spec.Name, dir, msg) }
}

// ended reports whether a start failed because the stdio server ended.
func ended(err error, conn *transport.StdioConn) bool {
	if errors.Is(err, io.EOF) {
		return true
	}
	select {
	case <-conn.Exited():
		return true
	default:
		return false
	}
}

// explain classifies err: a refused or failed HTTP connection is the
// connect phase; a 401, a 403 and a needed login the auth phase (a 401
// is explained as a *LoginRequiredError, a 403 insufficient_scope as a
// *StepUpError, beside the HTTP error); a stdio server that died leaves
// its stderr tail.
func explain(server, phase string, err error, stdio *transport.StdioConn) error {
	var se *ServerError
	if errors.As(err, &se) {
		return err
	}
	out := &ServerError{Server: server, Phase: phase, Err: err}
	var he *transport.HTTPError
	var lr *oauth.LoginRequiredError
	var su *oauth.StepUpError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &he) && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden):
		out.Phase = PhaseAuth
		if ae := oauth.AuthError(he.StatusCode, he.Header, nil); ae != nil {
			out.Err = fmt.Errorf("%w: %w", ae, err)
		}
	case errors.As(err, &lr), errors.As(err, &su):
		out.Phase = PhaseAuth
	case errors.As(err, &oe) && oe.Op == "dial", errors.Is(err, syscall.ECONNREFUSED):
		out.Phase = PhaseConnect
	case errors.As(err, &ne) && phase == PhaseInitialize && !ne.Timeout():
		out.Phase = PhaseConnect
	}
	// The server's last words on stderr explain a death or a failed
	// start; for a slow answer of a running server they are noise.
	if stdio != nil {
		var ee *transport.ExitError
		if errors.As(err, &ee) {
			out.Stderr = ee.StderrTail
		} else if phase == PhaseInitialize || phase == PhaseSpawn {
			out.Stderr = stdio.StderrTail()
		}
	}
	out.Err = ownAuthErrors(out.Err)
	return out
}

// SpecFromConfig returns the Spec of a configured server, from its
// expanded definition. The server must be valid and enabled, with its
// variables set.
func SpecFromConfig(s *config.Server) (*Spec, error) {
	if s.Err != nil {
		return nil, s.Err
	}
	x := s.Expanded
	if x == nil {
		return nil, fmt.Errorf("server %q has no expanded definition (disabled?)", s.Name)
	}
	return &Spec{
		Name: s.Name, Transport: s.Type,
		Command: x.Command, Args: x.Args, Env: x.Env, Dir: x.Cwd,
		URL: x.URL, Header: x.Headers, AllowHTTP: s.AllowHTTP, Timeout: s.Timeout, Roots: x.Roots,
		StartupTimeout: s.StartupTimeout, ToolTimeout: s.ToolTimeout, ProtocolVersion: s.ProtocolVersion,
		ShutdownTimeout: s.ShutdownTimeout, MaxMessageBytes: s.MaxMessageBytes, MaxRetries: s.MaxRetries,
	}, nil
}

// BadLines returns how many lines a stdio server wrote to stdout that
// were not JSON-RPC.
func (c *Conn) BadLines() int {
	if c.stdio == nil {
		return 0
	}
	return c.stdio.BadLines()
}
