// Package manager is the composition root of mcpwire: from a loaded
// configuration to live sessions with many servers at once, for an agent
// that offers MCP tools beside its own.
//
// Servers connect in parallel when tools are first asked for, each within
// its own startup budget, so that one slow or broken server never delays
// or breaks another. Tools are offered under qualified names
// (mcp__<server>__<tool>); calls reach the server under the tool's
// original name.
package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/protocol"
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

// Options configure a Manager. Only Config is required.
type Options struct {
	// Config is the loaded configuration (config.Load).
	Config *config.Config
	// Home is the home folder, for approvals and token files.
	Home string
	// Environ is the host environment that stdio servers' environments
	// are chosen from, by the policy of transport.ChildEnv (PATH, HOME,
	// USER, the locale, TMPDIR, proxy and CA variables, and on Windows
	// the system's own; then the definition's env; no other variable of
	// the host). nil means this process's environment (os.Environ); an
	// empty, non-nil slice means none of it.
	Environ []string
	// Logf, when set, is told about servers starting, failing and
	// reconnecting. It is never given a secret.
	Logf func(format string, args ...any)
	// Elicit answers a server's elicitation requests; nil declines them
	// (the capability is not declared).
	Elicit func(ctx context.Context, server string, p *protocol.ElicitParams) (*protocol.ElicitResult, error)
	// OnLoginNeeded, when set, is told that a server needs a login (no
	// usable token, or the server answered 401): the agent can ask the
	// person to run `mcpwire login NAME`. It never opens a browser itself.
	// It may be called from any goroutine, once per server and start.
	OnLoginNeeded func(server string)
	// Roots are directories offered to servers as their roots
	// (roots/list), to each server whose definition gives none ("roots").
	// None means no roots: the roots capability is not declared, so a
	// server works on what its own configuration names (the agent's
	// working directory is never offered unless it is listed here).
	Roots []string
	// OnProgress receives progress notifications of calls.
	OnProgress func(server string, p protocol.ProgressParams)
	// HTTPClient returns the client for an HTTP server. nil means
	// AuthClientFor(Home): the OAuth token store of Home, whose tokens
	// are sent to their server only and refreshed before they expire;
	// without a Home, a client that sends no token. Redirects are
	// refused either way.
	HTTPClient func(s *config.Server) *http.Client
	// NeedsLogin says whether an HTTP server needs a login before it can
	// be used; it is then not started, and its state says so. nil means
	// NeedsLogin(Home, s) when Home is set (an oauth section or a token
	// file, and no token that is valid or can be refreshed), else never.
	NeedsLogin func(s *config.Server) bool
	// StartupTimeout bounds each server's start: connect, initialize and
	// the first full tool list (default DefaultStartup).
	StartupTimeout time.Duration
	// MaxText caps the text of a tool result (default DefaultMaxText).
	MaxText int
	// TrustAll runs every definition of Config whether or not it was
	// approved. It is for programs that vet definitions themselves (they
	// wrote them, or showed them to the person); never set it for files
	// someone else wrote, such as a project's .mcp.json. Without it,
	// approvals are enforced: a definition runs only when the approvals
	// of Home say it was approved, and when they cannot be read (no Home,
	// a key or settings.json that cannot be read or created) nothing runs
	// and the state says why.
	TrustAll bool
	// SkipApproval is the old name of TrustAll.
	//
	// Deprecated: use TrustAll.
	SkipApproval bool
	// Now is the clock of the circuit breaker (default time.Now).
	Now func() time.Time
}

// A Manager holds sessions with many servers. Its methods may be called
// from many goroutines at once.
type Manager struct {
	opts Options

	// ctx ends when the Manager closes; starts under way give up then.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers []*server // in configuration order
	closed  bool
}

// New returns a Manager for the servers of opts.Config. Nothing starts
// until tools are asked for.
func New(opts Options) (*Manager, error) {
	if opts.Config == nil {
		return nil, errors.New("manager: no configuration")
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
	if opts.HTTPClient == nil && opts.Home != "" {
		opts.HTTPClient = AuthClientFor(opts.Home)
	}
	if opts.NeedsLogin == nil && opts.Home != "" {
		home := opts.Home
		opts.NeedsLogin = func(s *config.Server) bool { return NeedsLogin(home, s) }
	}
	m := &Manager{opts: opts}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	approvals := m.approvals()
	for _, def := range opts.Config.Servers {
		m.servers = append(m.servers, m.newServer(def, approvals))
	}
	return m, nil
}

// approvals returns the approvals of Home, which fail closed when they
// cannot be read; nil only with TrustAll.
func (m *Manager) approvals() *config.Approvals {
	if m.opts.TrustAll || m.opts.SkipApproval {
		return nil
	}
	a, _ := config.OpenApprovals(m.opts.Home)
	return a
}

func (m *Manager) logf(format string, args ...any) {
	if m.opts.Logf != nil {
		m.opts.Logf(format, args...)
	}
}

// A Tool is a server's tool as offered to a model.
type Tool struct {
	// Name is the qualified name: mcp__<server>__<tool>.
	Name        string
	Server      string
	Original    string // the tool's name on its server
	Title       string
	Description string
	// InputSchema has an object root without top-level oneOf/anyOf/allOf.
	InputSchema json.RawMessage
	Annotations *protocol.ToolAnnotations
}

// Tools starts the servers that are not running (in parallel, each within
// its budget), lists again the stale tool lists, and returns the tools of
// every connected server. It fails only when a server marked required
// failed; other failures show in States.
func (m *Manager) Tools(ctx context.Context) ([]Tool, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("manager: closed")
	}
	servers := slices.Clone(m.servers)
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { s.ensure(ctx) })
	}
	wg.Wait()

	var required []error
	var pairs [][2]string
	var all []Tool
	var withdrawn []bool
	for _, s := range servers {
		st := s.snapshot()
		if st.State == StateFailed && s.def.Required {
			required = append(required, fmt.Errorf("required server %s failed: %v", s.def.Name, st.Err))
		}
		offered, out := s.offered()
		for _, t := range offered {
			pairs = append(pairs, [2]string{s.def.Name, t.Name})
			all = append(all, Tool{Server: s.def.Name, Original: t.Name, Title: t.DisplayName(), Description: t.Description,
				InputSchema: normalizeSchema(t.InputSchema), Annotations: t.Annotations})
			withdrawn = append(withdrawn, out)
		}
	}
	// Tools withdrawn by a breaker are named too, so that names do not
	// depend on which servers are open, and a call of one says when the
	// server is tried again.
	names := qualifyAll(pairs)
	var tools []Tool
	for i := range all {
		all[i].Name = names[i]
		if !withdrawn[i] {
			tools = append(tools, all[i])
		}
	}
	m.mu.Lock()
	m.index(all)
	m.mu.Unlock()
	if len(required) > 0 {
		return tools, errors.Join(required...)
	}
	return tools, nil
}

// index remembers which server and tool each qualified name stands for.
// m.mu is held.
func (m *Manager) index(tools []Tool) {
	for _, s := range m.servers {
		s.mu.Lock()
		s.names = map[string]string{}
		s.mu.Unlock()
	}
	for _, t := range tools {
		if s := m.find(t.Server); s != nil {
			s.mu.Lock()
			s.names[t.Name] = t.Original
			s.mu.Unlock()
		}
	}
}

// find returns the server named name; m.mu is held.
func (m *Manager) find(name string) *server {
	for _, s := range m.servers {
		if s.def.Name == name {
			return s
		}
	}
	return nil
}

// Call calls the tool of qualified name (as Tools gave it) with args.
// Calls to one server may overlap. When ctx ends or the request times out,
// notifications/cancelled is sent and the connection stays up. A tool
// error is a Result with IsError, not an error.
func (m *Manager) Call(ctx context.Context, qualified string, args any) (*Result, error) {
	m.mu.Lock()
	var target *server
	var original string
	for _, s := range m.servers {
		s.mu.Lock()
		o, ok := s.names[qualified]
		s.mu.Unlock()
		if ok {
			target, original = s, o
			break
		}
	}
	m.mu.Unlock()
	if target == nil {
		return nil, fmt.Errorf("manager: no tool %q (list the tools again)", qualified)
	}
	return target.call(ctx, original, args)
}

// A ServerState is one server's state, for people and agents.
type ServerState struct {
	Name            string
	State           State
	Phase           string // of the last failure
	Err             error  // the last failure, or a failed refresh
	ProtocolVersion string
	ServerInfo      protocol.Implementation
	Tools           int
	// Stale says the tool list changed on the server and is listed again
	// before the next use; RefreshErr says the last refresh failed (the
	// previous list is kept).
	Stale      bool
	RefreshErr error
	// RetryAt is when an open circuit breaker lets a call through again.
	RetryAt time.Time
	Pid     int
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

// Update takes a new configuration: a server whose definition did not
// change keeps running; a changed one is stopped and starts again when
// tools are next asked for; a removed or disabled one stops; a new one
// starts when tools are next asked for.
func (m *Manager) Update(cfg *config.Config) {
	approvals := m.approvals()
	m.mu.Lock()
	old := map[string]*server{}
	for _, s := range m.servers {
		old[s.def.Name] = s
	}
	var next []*server
	var stop []*server
	for _, def := range cfg.Servers {
		fresh := m.newServer(def, approvals)
		if s, ok := old[def.Name]; ok {
			delete(old, def.Name)
			if s.sameAs(fresh) {
				// s.def stays: whatever differs (the position in the
				// file) does not matter, and others read it unlocked.
				next = append(next, s)
				continue
			}
			stop = append(stop, s)
		}
		next = append(next, fresh)
	}
	for _, s := range old {
		stop = append(stop, s)
	}
	m.servers = next
	m.opts.Config = cfg
	m.mu.Unlock()
	closeAll(stop)
}

// Close stops every server in parallel, as its transport says (HTTP:
// DELETE; stdio: stdin closed, SIGTERM, SIGKILL), and waits for them.
func (m *Manager) Close() error {
	m.cancel()
	m.mu.Lock()
	m.closed = true
	servers := m.servers
	m.servers = nil
	m.mu.Unlock()
	closeAll(servers)
	return nil
}

func closeAll(servers []*server) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.close)
	}
	wg.Wait()
}
