package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// A State is where a server stands.
type State string

// The states of a server.
const (
	StateDisabled      State = "disabled"
	StateNeedsApproval State = "needs approval"
	StateNeedsLogin    State = "needs login"
	StateIdle          State = "idle"
	StateConnecting    State = "connecting"
	StateConnected     State = "connected"
	StateFailed        State = "failed"
)

// Options configure a Manager. Config is required; every other field
// has a default, documented with it.
type Options struct {
	// Record, when set, records every message of every server's sessions
	// (the owner writes Record.Bytes out when the Manager is closed).
	Record *Recorder
	// Config is the loaded configuration (config.Load).
	Config *config.Config
	// Home is the home folder: its approvals are enforced, its tokens
	// sent to HTTP servers, its era cache used. nil means DefaultHome
	// (the folder of the mcpwire command: $MCPWIRE_HOME, else
	// $XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire); New fails when
	// there is none.
	Home *Home
	// Environ is the host environment that stdio servers' environments
	// are chosen from, by the policy of transport.ChildEnv (PATH, HOME,
	// USER, the locale, TMPDIR, proxy and CA variables, and on Windows
	// the system's own; then the definition's env; no other variable of
	// the host). nil means this process's environment (os.Environ); an
	// empty, non-nil slice means none of it.
	Environ []string
	// Logf, when set, is told about servers starting, failing and
	// reconnecting. It is never given a secret. It runs as the callbacks
	// below do (one at a time, never under a lock of the Manager), so it
	// may call any method of the Manager.
	Logf func(format string, args ...any)
	// Elicit answers a server's elicitation requests; nil declines them
	// (the capability is not declared). It runs in a goroutine of its
	// own per request (in the 2026-07-28 era, on the goroutine of the
	// call that got the input request), never under a lock of the
	// Manager: it may call any method of the Manager. A Close, Update or
	// Restart that ends its own session waits for it up to 2 s.
	Elicit func(ctx context.Context, server string, p *protocol.ElicitParams) (*protocol.ElicitResult, error)
	// Sample answers a server's sampling/createMessage (its params as
	// sent, the configured secrets in their values masked) with a
	// CreateMessageResult; nil declines them (the
	// capability is not declared). It runs as Elicit does.
	Sample func(ctx context.Context, server string, params json.RawMessage) (any, error)
	// ListRoots, when set, answers the roots/list of each server whose
	// definition gives no roots, instead of Roots (the roots capability
	// is then declared to them). It runs as Elicit does.
	ListRoots func(ctx context.Context, server string) ([]protocol.Root, error)
	// OnChange, when set, is told that what the Manager offers changed
	// because of a server: it connected (its tools joined), its lists
	// changed and were listed again, or its breaker opened. Call Tools
	// again to see the tools now.
	OnChange func(server string)
	// OnNotice, when set, is told of each server's transitions, once
	// each: failed, paused (breaker open), recovered, needs login.
	OnNotice func(Notice)
	// OnLoginNeeded, when set, is told that a server needs a login (no
	// usable token, or the server answered 401), once per transition;
	// the agent can run Login with its own UI, then Restart. Nothing
	// here opens a browser.
	//
	// The callbacks (Logf, OnChange, OnNotice, OnLoginNeeded,
	// OnResourceUpdated, OnProgress) run one at a time, in order, on a
	// goroutine of the Manager, never under its lock: they may call any
	// method of the Manager, Update, Restart and Close included. They
	// should return soon; others wait meanwhile.
	OnLoginNeeded func(server string)
	// OnResourceUpdated, when set, is told that a resource the agent
	// subscribed to (Subscribe) changed: read it again to see how. It
	// runs on the same goroutine as the callbacks above, under the same
	// rules.
	OnResourceUpdated func(server, uri string)
	// Roots are directories offered to servers as their roots
	// (roots/list), to each server whose definition gives none ("roots").
	// None means no roots: the roots capability is not declared, so a
	// server works on what its own configuration names (the agent's
	// working directory is never offered unless it is listed here).
	Roots []string
	// OnProgress receives the progress notifications of every server
	// (CallOptions.OnProgress gets those of one call). It runs as the
	// callbacks above do, so it may be told of a call's progress after
	// the call returned.
	OnProgress func(server string, p protocol.ProgressParams)
	// ClientName and ClientVersion are sent as clientInfo (default
	// "mcpwire" and this module's version).
	ClientName, ClientVersion string
	// HTTPClient returns the client for an HTTP server. nil means
	// Home.HTTPClient: the OAuth token store of Home, whose tokens are
	// sent to their server only and refreshed before they expire.
	// Redirects are refused.
	HTTPClient func(s *config.Server) *http.Client
	// NeedsLogin says whether an HTTP server needs a login before it can
	// be used; it is then not started, and its state says so. nil means
	// Home.NeedsLogin (an oauth section or a token file, and no token
	// that is valid or can be refreshed).
	NeedsLogin func(s *config.Server) bool
	// StartupTimeout bounds each server's start: connect, initialize and
	// the first full tool list (default DefaultStartup); a definition's
	// startupTimeout wins.
	StartupTimeout time.Duration
	// ToolTimeout bounds each tool call (default: each server's timeout,
	// 30 s unless its definition says otherwise); a definition's
	// toolTimeout wins. Progress notifications extend it, up to ten times.
	ToolTimeout time.Duration
	// ResourceTools offers two tools of the Manager's own beside the
	// servers' ones, while a connected server offers resources:
	// list_mcp_resources (the resources of every server, or of one) and
	// read_mcp_resource (a server's resource, text capped like tool
	// results), as Claude Code and zut offer them to their models.
	ResourceTools bool
	// MaxText caps the text of a tool result (default DefaultMaxText).
	MaxText int
	// TrustAll runs every definition of Config whether or not it was
	// approved. It is for programs that vet definitions themselves (they
	// wrote them, or showed them to the person); never set it for files
	// someone else wrote, such as a project's .mcp.json. Without it,
	// approvals are enforced: a definition runs only when the approvals
	// of Home say it was approved, and when they cannot be read (a key
	// or settings.json that cannot be read or created) nothing runs and
	// the state says why.
	TrustAll bool
	// SkipApproval is the old name of TrustAll.
	//
	// Deprecated: use TrustAll.
	SkipApproval bool
	// Pin is the pin policy of definitions that give none ("pin"):
	// config.PinEnforce (the default: a tool whose description, schemas
	// or annotations changed since its server was approved is not
	// offered, and a call of it fails with a *ToolChangedError; changed
	// instructions are held, the approved ones handed out),
	// config.PinWarn (offered, with a warning through Logf and the
	// state) or config.PinOff. The surface is pinned when a server first
	// connects after its approval, in a 0600 file of Home covered by
	// the approval key; the state (ServerState.Surface) shows the
	// comparison. Without approvals (TrustAll) nothing is pinned.
	Pin string
	// NewTools is what happens to a tool the pinned surface does not
	// hold, for definitions that give no "newTools":
	// config.NewToolsOffer (the default: offered, and pinned from then
	// on) or config.NewToolsHold (held until approved).
	NewTools string
	// SandboxLauncher is the program that applies a stdio server's
	// sandbox on Linux: "" is this program, which must then call
	// RunSandboxLauncher first thing in main; the mcpwire binary is one.
	SandboxLauncher string
	// Reserved are the names of the agent's own tools: a server tool
	// whose offered name would be one of them is not offered (nor
	// callable by that name), with a warning through Logf and the
	// server's state (ServerState.Reserved).
	Reserved []string
	// Now is the clock of the circuit breaker (default time.Now).
	Now func() time.Time
	// ReapOrphans makes the stop of a stdio server also stop its
	// descendants that left its process group (setsid, daemons). On Linux
	// it makes this whole process a child subreaper, for good, so it is
	// off by default: see DialOptions.ReapOrphans.
	ReapOrphans bool
	// Hurry, when closed, cuts the stops of Close short: what is left of
	// each stdio server is killed at once.
	Hurry <-chan struct{}
	// CachedTools offers, while a server has not connected yet, the tools
	// it offered last time, from the home's list cache (ListCacheFile;
	// Tool.Cached says which), so that an agent has its tools at once.
	// Off by default: a cached list may be out of date.
	CachedTools bool
	// ProtocolVersion pins the MCP revision of every server whose
	// definition pins none ("protocolVersion"); "" detects each server's
	// era. A legacy pin accepts an older legacy answer.
	ProtocolVersion string
	// Via, when set, is asked before each start of a server: a
	// connection to it already made (a session's socket, past its
	// handshake) and the revision to speak over it, with ok; !ok starts
	// the server as usual. See DialOptions.Via.
	Via func(ctx context.Context, def *config.Server) (conn io.ReadWriteCloser, protocolVersion string, ok bool)
}

// A Manager holds sessions with many servers. Its methods may be called
// from many goroutines at once.
type Manager struct {
	opts   Options
	events *dispatcher
	masks  masker            // the configured secrets, masked in what the Manager hands out
	appr   *config.Approvals // nil with TrustAll
	// defaults are the home's defaults (pin policy, sandboxes).
	defaults config.Defaults

	// ctx ends when the Manager closes; starts and refreshes under way
	// give up then.
	ctx    context.Context
	cancel context.CancelFunc
	reaper *transport.Reaper // with Options.ReapOrphans, on Linux

	// bg counts the goroutines of the Manager (starts, refreshes,
	// watches); bgMu guards bgClosed, and is taken last.
	bgMu     sync.Mutex
	bgClosed bool
	bg       sync.WaitGroup

	mu      sync.Mutex
	servers []*server // in configuration order
	closed  bool

	// The names Tools gave last, and what they were made from: the same
	// tools (the usual case) get them again without qualifying anew.
	namesMu       sync.Mutex
	namedPairs    [][2]string
	namedPrefixes []string // each pair's definition's prefix
	namedAs       []string
}

// New returns a Manager for the servers of opts.Config. Nothing starts
// until tools are asked for (Tools, Wait, Call). It fails without a
// Config, or without a Home when there is no default one either.
func New(opts Options) (*Manager, error) {
	if opts.Config == nil {
		return nil, errors.New("manager: no configuration (Options.Config; see config.Load)")
	}
	if opts.Home == nil {
		h, err := DefaultHome(nil)
		if err != nil {
			return nil, fmt.Errorf("%v (or give Options.Home)", err)
		}
		opts.Home = h
	}
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = DefaultStartup
	}
	if opts.MaxText <= 0 {
		opts.MaxText = DefaultMaxText
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = opts.Home.httpClientFor
	}
	if opts.NeedsLogin == nil {
		opts.NeedsLogin = opts.Home.NeedsLogin
	}
	if opts.ClientName == "" {
		opts.ClientName, opts.ClientVersion = "mcpwire", moduleVersion()
	}
	if v := opts.ProtocolVersion; v != "" && !protocol.IsSupported(v) {
		return nil, fmt.Errorf("manager: cannot pin protocol version %q: mcpwire speaks %s", v, strings.Join(protocol.SupportedVersions(), ", "))
	}
	m := &Manager{opts: opts, events: newDispatcher()}
	m.masks.learnConfig(opts.Config)
	if opts.ReapOrphans {
		m.reaper, _ = transport.NewReaper() // without it, groups alone are stopped
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.appr = m.approvals()
	if a, _ := m.opts.Home.Approvals(); a != nil {
		// The home's defaults ("defaults" of settings.json) where the
		// Options give none.
		d, err := a.Defaults()
		if err != nil {
			m.logf("", "%v", err)
		}
		m.defaults = d
		if m.opts.Pin == "" {
			m.opts.Pin = d.Pin
		}
		if m.opts.NewTools == "" {
			m.opts.NewTools = d.NewTools
		}
	}
	for _, def := range opts.Config.Servers {
		m.servers = append(m.servers, m.newServer(def, m.appr))
	}
	if opts.CachedTools {
		f := opts.Home.readListCache() // one read for all
		for _, s := range m.servers {
			if s.spec != nil && s.state == StateIdle {
				s.cached, _ = f.lookup(opts.Home, s.spec, opts.ProtocolVersion, s.capsKey())
			}
		}
	}
	for _, s := range m.servers {
		s.announce()
	}
	return m, nil
}

// moduleVersion is this module's version as the build knows it.
func moduleVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/mcpwire/mcpwire" {
				return d.Version
			}
		}
		if info.Main.Path == "github.com/mcpwire/mcpwire" && info.Main.Version != "" {
			return info.Main.Version
		}
	}
	return "dev"
}

// background runs f in a goroutine that Close waits for; false when the
// Manager is closing (f does not run).
func (m *Manager) background(f func()) bool {
	m.bgMu.Lock()
	defer m.bgMu.Unlock()
	if m.bgClosed {
		return false
	}
	m.bg.Go(f)
	return true
}

// approvals returns the approvals of Home, which fail closed when they
// cannot be read; nil only with TrustAll.
func (m *Manager) approvals() *config.Approvals {
	if m.opts.TrustAll || m.opts.SkipApproval {
		return nil
	}
	a, _ := m.opts.Home.Approvals()
	return a
}

// Home returns the home folder of the Manager (Options.Home, or the
// default one): for Login, Logout and what else lives there.
func (m *Manager) Home() *Home { return m.opts.Home }

// list returns the servers, or an error when the Manager is closed.
func (m *Manager) list() ([]*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("manager: closed")
	}
	return slices.Clone(m.servers), nil
}

// server returns the server named name.
func (m *Manager) server(name string) (*server, error) {
	servers, err := m.list()
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		if s.def.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("manager: no server %q", name)
}

// A Tool is a server's tool as offered to a model.
type Tool struct {
	// Name is the qualified name: mcp__<server>__<tool>.
	Name        string
	Server      string // "" for the Manager's own tools (ResourceTools)
	Original    string // the tool's name on its server
	Title       string
	Description string
	// InputSchema has an object root without top-level oneOf/anyOf/allOf
	// (normalized, as a model provider takes it: zut's way).
	InputSchema json.RawMessage
	// RawInputSchema is the input schema exactly as the server wrote it
	// (orb's way: passed on unchanged), for a caller that does its own
	// normalizing or validates arguments against the original.
	RawInputSchema json.RawMessage
	Annotations    *protocol.ToolAnnotations
	// Cached says the tool comes from the home's list cache
	// (Options.CachedTools): its server has not connected yet. A call
	// waits for it, and fails cleanly when the server no longer offers
	// the tool.
	Cached bool
}

// Tools returns, at once, the tools of every server that is connected,
// and starts in the background the servers that are not (each within its
// startup budget) and the listing again of lists that changed: they join
// later, and OnChange says so. It never waits for a server. It fails
// only when a server marked required has failed; other failures show in
// States and through OnNotice.
func (m *Manager) Tools(ctx context.Context) ([]Tool, error) {
	servers, err := m.list()
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		s.kick()
	}

	var required []error
	offered := make([][]offer, len(servers))
	out := make([]bool, len(servers))
	n := 0
	resources := false
	for i, s := range servers {
		st := s.snapshot()
		if st.State == StateFailed && s.def.Required {
			required = append(required, fmt.Errorf("required server %s failed: %v", s.def.Name, st.Err))
		}
		offered[i], out[i] = s.offered()
		n += len(offered[i])
		resources = resources || (!out[i] && s.offersResources())
	}
	pairs := make([][2]string, 0, n)
	bases := make([]string, 0, n)
	withdrawn := 0
	prefixes := make([]string, 0, n)
	for i, s := range servers {
		for _, o := range offered[i] {
			pairs = append(pairs, [2]string{s.def.Name, o.tool.Original})
			prefixes = append(prefixes, s.def.Prefix)
			bases = append(bases, o.base)
		}
		if out[i] {
			withdrawn += len(offered[i])
		}
	}
	// Tools withdrawn by a breaker are named too, so that names do not
	// depend on which servers are open, and a call of one says when the
	// server is tried again.
	names := m.qualified(pairs, bases, prefixes)
	tools := make([]Tool, 0, n-withdrawn)
	k := 0
	for i, s := range servers {
		mine := names[k : k+len(offered[i])]
		offers, named := m.unreserved(s, offered[i], mine)
		if !out[i] {
			for j, o := range offers {
				if o.held != nil {
					continue // quarantined or held: named, not offered
				}
				t := o.tool
				t.Name = named[j]
				tools = append(tools, m.masks.tool(t))
			}
		}
		s.index(offers, named)
		k += len(offered[i])
	}
	if m.opts.ResourceTools && resources {
		tools = append(tools, resourceTools()...)
	}
	if len(required) > 0 {
		return tools, errors.Join(required...)
	}
	return tools, nil
}

// qualified is qualifyFrom, remembered: the same pairs as last time get
// the same names at once.
func (m *Manager) qualified(pairs [][2]string, bases, prefixes []string) []string {
	m.namesMu.Lock()
	defer m.namesMu.Unlock()
	if !slices.Equal(pairs, m.namedPairs) || !slices.Equal(prefixes, m.namedPrefixes) {
		m.namedPairs, m.namedPrefixes, m.namedAs = pairs, prefixes, qualifyFrom(pairs, bases, prefixes)
	}
	return m.namedAs
}

// index remembers which of the server's tools each qualified name stands
// for (offers, named as names). A server that offers nothing now keeps
// its names: a call of one of its tools reconnects it, or says why not.
// Names that did not change keep their map.
func (s *server) index(offers []offer, names []string) {
	if len(offers) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Equal(s.named, names) {
		return
	}
	m := make(map[string]string, len(offers))
	for i, o := range offers {
		m[names[i]] = o.tool.Original
	}
	s.names, s.named = m, names
}

// Wait starts the servers that are not running (as Tools does) and
// waits until none is starting: each is connected, failed, or in another
// state that says why not. It returns early, with ctx's error, when ctx
// ends. A one-shot program (a list, a test) calls it before Tools.
func (m *Manager) Wait(ctx context.Context) error {
	servers, err := m.list()
	if err != nil {
		return err
	}
	// Every start first, then the waits: the servers start at once.
	starting := make([]<-chan struct{}, 0, len(servers))
	for _, s := range servers {
		if ch := s.kick(); ch != nil {
			starting = append(starting, ch)
		}
	}
	for _, ch := range starting {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// CallOptions are the options of one call. A nil *CallOptions means
// none.
type CallOptions struct {
	// OnProgress receives the progress notifications of this call (and
	// asks the server for them); each one extends the call's timeout, up
	// to ten times. It runs on the session's reader goroutine, before
	// the call returns, so it must return soon and must not end the
	// session (Close, Restart or Update of its server): Options.OnProgress
	// is the one that may.
	OnProgress func(protocol.ProgressParams)
	// Timeout overrides the tool timeout for this call.
	Timeout time.Duration
	// Meta is sent as the request's _meta.
	Meta map[string]any
	// Trace puts the call in a W3C trace: traceparent, tracestate and
	// baggage in the request's _meta (SEP-414), in both eras.
	Trace *protocol.TraceContext
	// Task asks for the call to run as a task where the server allows it
	// (2025-11-25: a tool whose taskSupport is optional or required; the
	// Tasks extension: the server decides). When the server makes one,
	// the Result has no content and its Task is the handle: Wait for the
	// result. Without Task, a task the server makes anyway is followed to
	// its end within the call.
	Task bool
}

// Call calls the tool of qualified name (as Tools gave it) with args.
func (m *Manager) Call(ctx context.Context, qualified string, args any) (*Result, error) {
	return m.CallWith(ctx, qualified, args, nil)
}

// CallWith calls the tool of qualified name (as Tools gave it) with args.
// A server whose session ended is started again first (a call waits for
// that, within ctx). Calls to one server may overlap. When ctx ends or
// the tool timeout passes, notifications/cancelled is sent and the
// connection stays up. A tool error is a Result with IsError, not an
// error; an error is a *ServerError.
func (m *Manager) CallWith(ctx context.Context, qualified string, args any, opts *CallOptions) (*Result, error) {
	if res, ok, err := m.callOwn(ctx, qualified, args); ok {
		return m.masks.result(res), err
	}
	for again := false; ; again = true {
		s, original, err := m.lookup(qualified)
		switch {
		case err != nil:
			return nil, err
		case s != nil:
			return s.call(ctx, original, args, opts)
		case again:
			return nil, fmt.Errorf("manager: no tool %q (list the tools again)", qualified)
		}
		// Not named yet (no Tools since the server connected): name
		// the tools of the servers connected now, as Tools does.
		_, _ = m.Tools(ctx)
	}
}

// lookup finds the server and original name of the tool that Tools named
// qualified; a nil server when none is named so.
func (m *Manager) lookup(qualified string) (*server, string, error) {
	servers, err := m.list()
	if err != nil {
		return nil, "", err
	}
	for _, s := range servers {
		s.mu.Lock()
		original, ok := s.names[qualified]
		s.mu.Unlock()
		if ok {
			return s, original, nil
		}
	}
	return nil, "", nil
}

// A ServerState is one server's state, for people and agents.
type ServerState struct {
	Name            string
	State           State
	Phase           string       // of the last failure
	Err             error        // the last failure
	ProtocolVersion string       // the revision spoken, when connected
	Transport       string       // stdio, http, or sse (HTTP+SSE, asked for or fallen back to), when connected
	Era             protocol.Era // the era of that revision, when connected
	ServerInfo      protocol.Implementation
	Tools           int
	// Instructions are the server's own words from initialize (see
	// Manager.Instructions before giving them to a model).
	Instructions string
	// Stale says the tool list changed on the server and is being listed
	// again; RefreshErr says the last listing failed (the previous list
	// is kept, and listed again after a wait).
	Stale      bool
	RefreshErr error
	// ReloadErr says why the definition of the last Update could not be
	// used: the server runs as it was.
	ReloadErr error
	// RetryAt is when an open circuit breaker lets a call through again,
	// or when a server whose start failed is started again in the
	// background (a call or Restart starts it at once).
	RetryAt time.Time
	Pid     int
	// Startup is how long the running connection took to start: the
	// spawn (or first connection) and the initialize handshake.
	Startup time.Duration
	// Drops counts what the server sent too much of, since the Manager
	// started: callbacks dropped or merged, server requests and input
	// requests refused.
	Drops Drops
	// Surface is how the server's tools compare with the surface pinned
	// at its approval: quarantined (changed) and held tools, changed
	// instructions; nil when not checked (not connected yet, TrustAll).
	Surface *SurfaceCheck
	// Reserved are the server's tools not offered because their offered
	// name is one of Options.Reserved (by their names on the server).
	Reserved []string
	// Sandboxed says a stdio server runs contained by a sandbox (its
	// definition's, or the home's default).
	Sandboxed bool
}

// States returns every server's state, in configuration order.
func (m *Manager) States() []ServerState {
	m.mu.Lock()
	servers := slices.Clone(m.servers)
	m.mu.Unlock()
	out := make([]ServerState, len(servers))
	for i, s := range servers {
		out[i] = s.snapshot()
	}
	return out
}

// Restart ends the server's session, if any, forgets its failures (the
// breaker closes), asks again whether it needs a login (after Login, it
// does not), starts it and waits for the start, within ctx. It is the
// reconnect a person asks for.
func (m *Manager) Restart(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	ch, err := s.restart()
	if err != nil {
		return err
	}
	select {
	case <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	st := s.snapshot()
	if st.State != StateConnected {
		return &ServerError{Server: name, Phase: st.Phase, Err: st.Err}
	}
	return nil
}

// Update takes a new configuration: a server whose definition did not
// change keeps running; a changed one is stopped and starts again when
// tools are next asked for; a removed or disabled one stops; a new one
// starts when tools are next asked for. A server whose new entry cannot
// be used (it became invalid, or a variable is unset) keeps running as
// it was; its state's ReloadErr says why.
func (m *Manager) Update(cfg *config.Config) {
	m.masks.learnConfig(cfg)
	approvals := m.approvals()
	fresh := make([]*server, len(cfg.Servers))
	for i, def := range cfg.Servers {
		fresh[i] = m.newServer(def, approvals) // may call NeedsLogin: not under m.mu
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	old := map[string]*server{}
	for _, s := range m.servers {
		old[s.def.Name] = s
	}
	var next, stop, started []*server
	for _, f := range fresh {
		name := f.def.Name
		if s, ok := old[name]; ok {
			delete(old, name)
			if s.sameAs(f) {
				// s.def stays: whatever differs (the position in the
				// file) does not matter, and others read it unlocked.
				s.setReloadErr(nil)
				next = append(next, s)
				continue
			}
			if f.def.Err != nil && s.def.Err == nil && s.def.Enabled {
				s.setReloadErr(f.def.Err)
				next = append(next, s)
				continue
			}
			stop = append(stop, s)
		}
		next = append(next, f)
		started = append(started, f)
	}
	for _, s := range old {
		stop = append(stop, s)
	}
	m.servers = next
	m.opts.Config = cfg
	m.mu.Unlock()
	for _, s := range started {
		s.announce()
	}
	closeAll(stop)
}

// setReloadErr records why the last Update could not use the server's
// new entry; it is told once, as a failure notice.
func (s *server) setReloadErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && s.reloadErr == nil {
		m := s.m
		m.logf(s.def.Name, "%s: the new definition cannot be used, the server runs as it was: %v", s.def.Name, err)
	}
	s.reloadErr = err
}

// Close stops every server in parallel, as its transport says (HTTP:
// DELETE; stdio: stdin closed, SIGTERM, SIGKILL), and waits for them and
// for the Manager's goroutines and for the callback running, if any: no
// callback runs after Close returns. A callback may call Close itself;
// then Close does not wait for it (it is the last one). A callback that
// waits for another goroutine's Close deadlocks, as a net/http handler
// that waits for its server's Shutdown does.
func (m *Manager) Close() error {
	m.cancel()
	m.mu.Lock()
	m.closed = true
	servers := m.servers
	m.servers = nil
	m.mu.Unlock()
	m.bgMu.Lock()
	m.bgClosed = true
	m.bgMu.Unlock()
	closeAll(servers)
	m.bg.Wait()
	m.events.close()
	return nil
}

func closeAll(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.close)
	}
	wg.Wait()
}

// unreserved drops the offers of s whose names (as named) are reserved
// by the agent (Options.Reserved), records them in s's state, and tells
// Logf when they change.
func (m *Manager) unreserved(s *server, offers []offer, names []string) ([]offer, []string) {
	if len(m.opts.Reserved) == 0 {
		return offers, names
	}
	var keptO []offer
	var keptN, dropped []string
	for j, o := range offers {
		if slices.Contains(m.opts.Reserved, names[j]) {
			dropped = append(dropped, o.tool.Original)
			continue
		}
		keptO, keptN = append(keptO, o), append(keptN, names[j])
	}
	s.mu.Lock()
	changed := !slices.Equal(s.reserved, dropped)
	s.reserved = dropped
	s.mu.Unlock()
	if changed && len(dropped) > 0 {
		m.logf(s.def.Name, "%s: tools %v are not offered: their names are the agent's own (Options.Reserved)", s.def.Name, dropped)
	}
	return keptO, keptN
}
