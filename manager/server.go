package manager

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/protocol"
)

// Circuit breaker settings: after breakerAfter consecutive transport
// failures a server's tools are withdrawn for a cooldown that starts at
// breakerFirst and doubles up to breakerMax; then one trial call.
const (
	breakerAfter = 2
	breakerFirst = 15 * time.Second
	breakerMax   = 5 * time.Minute
)

// A server is one configured server and its session, if any.
type server struct {
	m    *Manager
	def  *config.Server
	spec *Spec // nil when the definition cannot run

	mu         sync.Mutex
	state      State
	phase      string
	err        error
	conn       *Conn
	tools      []*protocol.Tool
	stale      bool
	refreshErr error
	names      map[string]string // qualified → original
	starting   chan struct{}     // non-nil while a start is under way
	closed     bool              // stopped for good (Close, or Update removed it)

	failures int       // consecutive transport failures
	openTill time.Time // breaker open until then
	cooldown time.Duration
}

func (m *Manager) newServer(def *config.Server, approvals *config.Approvals) *server {
	s := &server{m: m, def: def, state: StateIdle, names: map[string]string{}}
	switch {
	case def.Err != nil:
		s.state, s.phase, s.err = StateFailed, PhaseConfig, def.Err
	case !def.Enabled:
		s.state = StateDisabled
	case approvals != nil && approvals.State(def) != config.Approved:
		s.state, s.phase = StateNeedsApproval, PhaseApproval
		st := approvals.State(def)
		s.err = fmt.Errorf("not approved (%s)", st)
		if cause := approvals.Err(); st == config.Unavailable && cause != nil {
			s.err = &ApprovalError{Cause: cause}
		}
	case m.opts.NeedsLogin != nil && def.Type != config.TypeStdio && m.opts.NeedsLogin(def):
		s.state, s.phase, s.err = StateNeedsLogin, PhaseAuth, errors.New("login needed")
		if m.opts.OnLoginNeeded != nil {
			m.opts.OnLoginNeeded(def.Name)
		}
	}
	if s.state == StateIdle {
		spec, err := SpecFromConfig(def)
		if err != nil {
			s.state, s.phase, s.err = StateFailed, PhaseConfig, err
		}
		s.spec = spec
	}
	return s
}

// sameAs says whether two servers have the same runnable definition.
func (s *server) sameAs(o *server) bool {
	s.mu.Lock()
	disabled := s.state == StateDisabled
	s.mu.Unlock()
	return !disabled && o.state != StateDisabled &&
		s.def.Source == o.def.Source && reflect.DeepEqual(s.spec, o.spec) &&
		s.spec != nil && slices.Equal(s.def.EnabledTools, o.def.EnabledTools) &&
		slices.Equal(s.def.DisabledTools, o.def.DisabledTools) &&
		s.def.Required == o.def.Required && reflect.DeepEqual(s.def.OAuth, o.def.OAuth)
}

// ensure starts the server when it is idle or its session ended, and
// relists a stale tool list. It returns when that is done or failed.
func (s *server) ensure(ctx context.Context) {
	s.mu.Lock()
	switch {
	case s.spec == nil, s.closed:
		s.mu.Unlock()
		return
	case s.starting != nil:
		ch := s.starting
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		return
	case s.conn != nil && !s.dead():
		stale := s.stale
		conn := s.conn
		s.mu.Unlock()
		if stale {
			s.refresh(ctx, conn)
		}
		return
	case s.breakerOpen():
		s.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	s.starting = ch
	s.state = StateConnecting
	old := s.conn
	s.conn = nil
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	s.start(ctx)
	s.mu.Lock()
	s.starting = nil
	s.mu.Unlock()
	close(ch)
}

// dead says whether the session ended; s.mu is held.
func (s *server) dead() bool {
	select {
	case <-s.conn.Done():
		return true
	default:
		// The reader records why the connection ended, and wakes the
		// calls, before Done closes: a call that just failed must not
		// leave its successor on the dead connection.
		return s.conn.Err() != nil
	}
}

// start connects, initializes and lists tools within the startup budget.
func (s *server) start(ctx context.Context) {
	m := s.m
	sctx, cancel := context.WithTimeout(ctx, m.opts.StartupTimeout)
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()
	name := s.def.Name
	popts := protocol.Options{ClientName: "mcpwire", ClientVersion: "manager"}
	if len(s.spec.Roots) == 0 && len(m.opts.Roots) > 0 {
		popts.Roots = DirRoots(m.opts.Roots)
	}
	popts.OnToolsChanged = func() {
		s.mu.Lock()
		s.stale = true
		s.mu.Unlock()
	}
	if m.opts.Elicit != nil {
		popts.Elicit = func(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return m.opts.Elicit(ctx, name, p)
		}
	}
	opts := &DialOptions{Environ: m.opts.Environ, Protocol: popts}
	if m.opts.HTTPClient != nil && s.spec.Transport != "stdio" {
		opts.HTTPClient = m.opts.HTTPClient(s.def)
	}
	m.logf("%s: starting", name)
	conn, err := Dial(sctx, s.spec, opts)
	if err != nil {
		s.failStart(err, PhaseInitialize, ctx)
		return
	}
	tools, err := conn.ListTools(sctx)
	if err != nil {
		conn.Close()
		s.failStart(conn.Explain(PhaseList, err), PhaseList, ctx)
		return
	}
	s.mu.Lock()
	if s.closed {
		// Closed while starting (Update removed it): nobody would
		// close this session later.
		s.mu.Unlock()
		conn.Close()
		return
	}
	s.conn, s.tools, s.stale, s.refreshErr = conn, tools, false, nil
	s.state, s.phase, s.err = StateConnected, "", nil
	s.mu.Unlock()
	m.logf("%s: connected (%d tools)", name, len(tools))
}

// failStart records a failed start.
func (s *server) failStart(err error, phase string, ctx context.Context) {
	var se *ServerError
	if errors.As(err, &se) {
		phase = se.Phase
		err = errors.New(se.Reason())
	}
	s.mu.Lock()
	s.state, s.phase, s.err = StateFailed, phase, err
	if phase == PhaseAuth {
		s.state = StateNeedsLogin
	}
	s.noteFailure()
	s.mu.Unlock()
	if phase == PhaseAuth && s.m.opts.OnLoginNeeded != nil {
		s.m.opts.OnLoginNeeded(s.def.Name)
	}
	s.m.logf("%s: %s failed: %v", s.def.Name, phase, err)
}

// refresh lists the tools again after list_changed; a failure keeps the
// previous list and says so.
func (s *server) refresh(ctx context.Context, conn *Conn) {
	sctx, cancel := context.WithTimeout(ctx, s.m.opts.StartupTimeout)
	defer cancel()
	tools, err := conn.ListTools(sctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && ctx.Err() != nil {
		return // the caller gave up: still stale, nothing learnt of the server
	}
	if err != nil {
		s.refreshErr = fmt.Errorf("refreshing the tool list after list_changed: %v (the previous list is kept)", err)
		return
	}
	s.tools, s.stale, s.refreshErr = tools, false, nil
}

// offered returns the tools the server offers to a model, enabledTools
// and disabledTools applied; withdrawn says its breaker is open, so that
// they are not offered now, but keep their names (a call of one says when
// the server is tried again).
func (s *server) offered() (tools []*protocol.Tool, withdrawn bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateConnected {
		return nil, false
	}
	var out []*protocol.Tool
	for _, t := range s.tools {
		if len(s.def.EnabledTools) > 0 && !slices.Contains(s.def.EnabledTools, t.Name) {
			continue
		}
		if slices.Contains(s.def.DisabledTools, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out, s.breakerOpen()
}

// call runs one tool call, reconnecting first when the session ended.
func (s *server) call(ctx context.Context, tool string, args any) (*Result, error) {
	s.mu.Lock()
	if s.breakerOpen() {
		at := s.openTill
		wait := at.Sub(s.m.opts.Now()).Round(time.Second)
		s.mu.Unlock()
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseCall,
			Err: fmt.Errorf("the server failed %d times in a row; its tools are withdrawn until %s (in %s), then one call is tried",
				breakerAfter, at.Format(time.TimeOnly), wait)}
	}
	needStart := s.conn == nil || s.dead()
	s.mu.Unlock()
	if needStart {
		s.ensure(ctx)
	}
	s.mu.Lock()
	conn := s.conn
	err, phase := s.err, s.phase
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseCall,
			Err: errors.New("the server was stopped (the manager closed, or its definition changed)")}
	}
	if conn == nil {
		if err == nil {
			err, phase = errors.New("not connected"), PhaseConnect
		}
		return nil, &ServerError{Server: s.def.Name, Phase: phase, Err: err}
	}
	var copts *protocol.CallOptions
	if s.m.opts.OnProgress != nil {
		name := s.def.Name
		copts = &protocol.CallOptions{Progress: func(p protocol.ProgressParams) { s.m.opts.OnProgress(name, p) }}
	}
	res, err := conn.CallTool(ctx, tool, args, copts)
	if err != nil {
		if transportFailure(err) && ctx.Err() == nil {
			s.mu.Lock()
			s.noteFailure()
			s.mu.Unlock()
		}
		return nil, conn.Explain(PhaseCall, err)
	}
	s.mu.Lock()
	s.failures, s.cooldown = 0, 0
	s.mu.Unlock()
	return mapResult(res, s.m.opts.MaxText), nil
}

// transportFailure says whether err is a broken connection or a timeout,
// rather than the server's answer.
func transportFailure(err error) bool {
	var je *protocol.Error
	if errors.As(err, &je) {
		return false
	}
	var ce *protocol.CapabilityError
	if errors.As(err, &ce) {
		return false
	}
	return true
}

// noteFailure counts a transport failure and opens the breaker after
// breakerAfter in a row; s.mu is held.
func (s *server) noteFailure() {
	s.failures++
	if s.failures < breakerAfter {
		return
	}
	if s.cooldown == 0 {
		s.cooldown = breakerFirst
	} else {
		s.cooldown = min(2*s.cooldown, breakerMax)
	}
	s.openTill = s.m.opts.Now().Add(s.cooldown)
	s.failures = breakerAfter - 1 // after the cooldown, one trial
}

// breakerOpen says whether calls fail at once; s.mu is held.
func (s *server) breakerOpen() bool {
	return !s.openTill.IsZero() && s.m.opts.Now().Before(s.openTill)
}

func (s *server) snapshot() ServerState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerState{Name: s.def.Name, State: s.state, Phase: s.phase, Err: s.err,
		Tools: len(s.tools), Stale: s.stale, RefreshErr: s.refreshErr}
	if s.breakerOpen() {
		st.RetryAt = s.openTill
	}
	if s.conn != nil {
		st.ProtocolVersion = s.conn.Init().ProtocolVersion
		st.ServerInfo = s.conn.Init().ServerInfo
		st.Pid = s.conn.Pid()
		if s.dead() && s.state == StateConnected {
			st.State = StateIdle
		}
	}
	return st
}

// close ends the session, if any, waiting for a start under way; the
// server does not start again.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	ch := s.starting
	s.mu.Unlock()
	if ch != nil {
		<-ch
	}
	s.mu.Lock()
	conn := s.conn
	s.conn = nil
	if s.state == StateConnected || s.state == StateConnecting {
		s.state = StateIdle
	}
	s.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}
