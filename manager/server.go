package manager

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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
//
// Its fields are guarded by mu. A start, a refresh and the watch of a
// session's end run in the background (Manager.background); callbacks
// go through the Manager's dispatcher, never under mu.
type server struct {
	m    *Manager
	def  *config.Server
	spec *Spec // nil when the definition cannot run

	mu           sync.Mutex
	state        State
	phase        string
	err          error
	conn         *Conn
	tools        []*protocol.Tool
	toolsVer     int               // counts the lists assigned to tools
	offers       []offer           // tools as offered, built from tools (see offered)
	offersVer    int               // the toolsVer offers was built from
	offersDef    *config.Server    // the def it was built with
	names        map[string]string // qualified → original
	named        []string          // the qualified names names was built from, in order
	starting     chan struct{}     // non-nil while a start is under way
	closed       bool              // stopped for good (Close, or Update removed it)
	lastNotice   NoticeKind        // the last notice given; "" = well
	failedInCall bool              // the failure told was of a started session
	instructions string            // the server's, from initialize (the approved ones when they changed)
	surface      *SurfaceCheck     // how tools compares with the surface pinned at approval; nil: not pinned
	reserved     []string          // tools not offered: their names are the agent's (Options.Reserved)
	reloadErr    error             // the definition of the last Update that could not be used
	retiring     *Conn             // a session Restart ends; the start closes it
	subs         map[string]bool   // resource URIs the agent subscribed to (Subscribe), kept across sessions

	// stale says list_changed came since the list was taken; gen counts
	// them, so that a refresh knows whether another one is needed.
	stale, refreshing bool
	gen               int
	// told says a list_changed came since the list was taken: its
	// listing is told (OnChange) even when it gives the same list.
	told       bool
	refreshErr error
	// refreshFails counts the failed refreshes since the list last
	// changed: after one the next use tries again, after two only a new
	// list_changed does (magi-code's rule; no timer).
	refreshFails int
	// freshTill is when the tool list a modern server gave stops being
	// fresh (its ttlMs, missing taken as 0; 2026-07-28 caching): the
	// next use lists again. Zero: fresh until a list_changed (a legacy
	// server, which gives no hint).
	freshTill time.Time
	// cached is the list cache's entry (Options.CachedTools), offered
	// while the server has not connected yet; cachedOffers is built from
	// it once.
	cached       *CachedList
	cachedOffers []offer

	failures int       // consecutive transport failures
	openTill time.Time // breaker open until then
	cooldown time.Duration

	// startFails counts failed starts in a row; startAt is when Tools may
	// start the server again in the background (a call need not wait).
	startFails int
	// retries counts the starts since the last one that worked that
	// followed a failure (a failed start, a session's end): at most
	// maxRetries of the definition, then only Restart starts it.
	retries int
	startAt time.Time
}

// newServer makes the server of def. It may call Options.NeedsLogin, so
// it runs without the Manager's lock.
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
	}
	if s.state == StateIdle {
		spec, err := SpecFromConfig(def)
		if err != nil {
			s.state, s.phase, s.err = StateFailed, PhaseConfig, err
		}
		s.spec, err = WithSandbox(spec, def, m.defaults, m.opts.Environ)
		if err != nil && s.state == StateIdle {
			s.state, s.phase, s.err = StateFailed, PhaseConfig, err
		}
	}
	if s.spec != nil && m.needsLogin(def) {
		s.state, s.phase, s.err = StateNeedsLogin, PhaseAuth, &LoginRequiredError{Reason: "no usable token"}
	}
	return s
}

// announce gives the notice of a server made in the state it starts in.
func (s *server) announce() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateNeedsLogin {
		s.noticeLocked(NoticeNeedsLogin)
	}
}

// needsLogin asks Options.NeedsLogin about an HTTP server.
func (m *Manager) needsLogin(def *config.Server) bool {
	return m.opts.NeedsLogin != nil && def.Type != config.TypeStdio && m.opts.NeedsLogin(def)
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

// startupBudget bounds the server's start.
func (s *server) startupBudget() time.Duration {
	if s.spec == nil {
		return s.m.opts.StartupTimeout
	}
	return s.spec.StartupBudget(s.m.opts.StartupTimeout)
}

// kick starts the server in the background when it is idle or its
// session ended (and the breaker allows; after a failed start, once the
// wait is over), and refreshes a stale list in the background. It
// returns the start under way, if any; it never waits.
func (s *server) kick() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateFailed && s.m.opts.Now().Before(s.startAt) {
		return nil
	}
	return s.kickLocked()
}

// kickLocked starts the server unless it runs, starts, or may not; s.mu
// is held.
func (s *server) kickLocked() <-chan struct{} {
	switch {
	case s.spec == nil, s.closed, s.state == StateNeedsLogin, s.state == StateNeedsApproval:
		return nil
	case s.starting != nil:
		return s.starting
	case s.conn != nil && !s.dead():
		s.expireLocked()
		s.refreshLocked()
		return nil
	case s.breakerOpen():
		return nil
	}
	retry := s.retryLocked()
	if retry && s.retries >= s.spec.retries() {
		return nil // out of retries: Restart
	}
	ch := make(chan struct{})
	if !s.m.background(func() { s.start(ch) }) {
		return nil // the Manager is closing
	}
	if retry {
		s.retries++
	}
	s.starting = ch
	s.state = StateConnecting
	return ch
}

// retryLocked says whether a start now would follow a failure: the
// last start failed, or the session ended; s.mu is held.
func (s *server) retryLocked() bool {
	return s.state == StateFailed || s.conn != nil && s.dead()
}

// outOfRetriesLocked says whether the server failed and may not be
// started again but by Restart (maxRetries); s.mu is held.
func (s *server) outOfRetriesLocked() bool {
	return s.spec != nil && s.retryLocked() && s.retries >= s.spec.retries()
}

// outOfRetriesErrLocked says why the server is not started again; s.mu
// is held.
func (s *server) outOfRetriesErrLocked() error {
	why := s.err
	if why == nil {
		why = errors.New("the session ended")
	}
	note := "maxRetries is 0"
	if n := s.spec.retries(); n > 0 {
		note = fmt.Sprintf("it failed again %d times in a row, maxRetries", n)
	}
	return &ServerError{Server: s.def.Name, Phase: cmp.Or(s.phase, PhaseCall),
		Err: fmt.Errorf("%w (not started again: %s; Restart tries again)", why, note)}
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

// start connects, initializes and lists tools within the startup budget,
// then closes done. It runs in the background, bounded by the Manager's
// life, never by a caller's context.
func (s *server) start(done chan struct{}) {
	once := sync.OnceFunc(func() { close(done) })
	defer once()
	m := s.m
	s.mu.Lock()
	olds := []*Conn{s.conn, s.retiring}
	s.conn, s.retiring = nil, nil
	s.mu.Unlock()
	for _, old := range olds {
		if old != nil {
			old.Close()
		}
	}
	ctx, cancel := context.WithTimeout(m.ctx, s.startupBudget())
	defer cancel()
	name := s.def.Name
	popts := protocol.Options{ClientName: m.opts.ClientName, ClientVersion: m.opts.ClientVersion}
	if len(s.spec.Roots) == 0 && len(m.opts.Roots) > 0 {
		popts.Roots = DirRoots(m.opts.Roots)
	}
	popts.OnToolsChanged = s.toolsChanged
	popts.OnIconDropped = func(what, _ string) {
		m.logf("%s: %s: an icon dropped (its src is neither https: nor data:)", name, what)
	}
	popts.OnRefused = func(_ string, why protocol.Refusal, n int) { m.events.refused(name, why, n) }
	if m.opts.Elicit != nil {
		popts.Elicit = func(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return m.opts.Elicit(ctx, name, p)
		}
	}
	if m.opts.Sample != nil {
		popts.Sample = func(ctx context.Context, p json.RawMessage) (any, error) {
			return m.opts.Sample(ctx, name, m.masks.json(p)) // what a model reads
		}
	}
	if m.opts.ListRoots != nil && len(s.spec.Roots) == 0 {
		popts.Roots = func(ctx context.Context) ([]protocol.Root, error) { return m.opts.ListRoots(ctx, name) }
	}
	popts.OnResourcesChanged = s.changed
	popts.OnResourceUpdated = s.resourceUpdated
	popts.OnPromptsChanged = s.changed
	opts := &DialOptions{Environ: m.opts.Environ, Protocol: popts, EraCache: m.opts.Home.EraCache(), Hurry: m.opts.Hurry, reaper: m.reaper,
		SandboxLauncher: m.opts.SandboxLauncher, Record: m.opts.Record}
	if m.opts.HTTPClient != nil && s.spec.Transport != "stdio" {
		opts.HTTPClient = m.opts.HTTPClient(s.def)
	}
	spec := s.spec
	if spec.ProtocolVersion == "" && m.opts.ProtocolVersion != "" {
		pinned := *spec
		pinned.ProtocolVersion = m.opts.ProtocolVersion
		spec = &pinned
	}
	if m.opts.Via != nil {
		if rwc, version, ok := m.opts.Via(ctx, s.def); ok {
			opts.Via = func(context.Context) (io.ReadWriteCloser, error) { return rwc, nil }
			pinned := *spec
			pinned.ProtocolVersion = version
			spec = &pinned
		}
	}
	m.logf(name, "%s: starting", name)
	m.learnTokens(s.def)
	conn, err := Dial(ctx, spec, opts)
	var tools []*protocol.Tool
	if err == nil && conn.Init().Capabilities.Tools != nil {
		tools, err = conn.ListTools(ctx)
		if err != nil {
			// Told first, as soon as the budget ends; then stopped (a
			// server that answered may take its grace to exit).
			defer conn.Close()
			defer once()
			err = conn.Explain(PhaseList, err)
		}
	}
	var check *SurfaceCheck
	if err == nil {
		check = s.checkSurface(tools, conn.Init().Instructions)
	}
	if err != nil {
		if ctx.Err() != nil && m.ctx.Err() == nil {
			err = withBudget(err, s.startupBudget())
		}
		s.failStart(err)
		return
	}
	if conn.Init().Capabilities.Tools != nil {
		m.opts.Home.storeTools(s.spec, m.opts.ProtocolVersion, conn.Era(), conn.ProtocolVersion(), s.capsKey(), conn.CacheHint("tools/list").Scope, approvedTools(tools, check))
	}
	if !s.started(conn, tools, check) {
		// Closed while starting (Update removed it): nobody would
		// close this session later. Not under s.mu: the close waits
		// for the session's reader, which may be taking a
		// list_changed to s.mu.
		conn.Close()
		return
	}
	m.logf(name, "%s: connected (%d tools)", name, len(tools))
}

// approvedTools are the tools check does not hold back: the list cache
// keeps only those, so that a quarantined tool (its changed description)
// never reaches a model from the cache before the server connects.
func approvedTools(tools []*protocol.Tool, check *SurfaceCheck) []*protocol.Tool {
	out := make([]*protocol.Tool, 0, len(tools))
	for _, t := range tools {
		if check.Held(t.Name) == nil {
			out = append(out, t)
		}
	}
	return out
}

// started makes conn the server's session, with its tools and the check
// of its surface, unless the server was closed meanwhile (false).
func (s *server) started(conn *Conn, tools []*protocol.Tool, check *SurfaceCheck) bool {
	m := s.m
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starting = nil
	if s.closed {
		return false
	}
	s.conn, s.tools, s.stale, s.told, s.refreshErr, s.refreshFails = conn, tools, false, false, nil, 0
	s.freshTill = s.freshUntil(conn)
	s.toolsVer++
	s.state, s.phase, s.err = StateConnected, "", nil
	s.startFails, s.startAt, s.retries = 0, time.Time{}, 0
	s.instructions, s.surface = conn.Init().Instructions, check
	if check != nil {
		s.instructions = check.Instructions
	}
	m.background(func() { s.watch(conn) })
	if len(s.subs) > 0 {
		uris := slices.Sorted(maps.Keys(s.subs))
		m.background(func() { s.resubscribe(conn, uris) })
	}
	s.recoveredLocked(true)
	s.changedLocked()
	return true
}

// withBudget says that the startup budget ran out.
func withBudget(err error, d time.Duration) error {
	var se *ServerError
	if errors.As(err, &se) {
		return &ServerError{Server: se.Server, Phase: se.Phase, Stderr: se.Stderr,
			Err: fmt.Errorf("no answer within the startup budget of %v", d)}
	}
	return fmt.Errorf("no answer within the startup budget of %v: %w", d, err)
}

// failStart records a failed start: needs login for an auth failure
// (which the breaker does not count), else failed.
func (s *server) failStart(err error) {
	phase := PhaseInitialize
	var se *ServerError
	if errors.As(err, &se) {
		phase = se.Phase
	}
	s.m.logf(s.def.Name, "%s: %s failed: %v", s.def.Name, phase, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starting = nil
	if s.closed {
		return
	}
	s.startFails++
	s.startAt = s.m.opts.Now().Add(backoff(s.startFails))
	s.failLocked(phase, err, true)
}

// backoff is the wait after n failures in a row: 15 s, doubling up to 5
// minutes.
func backoff(n int) time.Duration {
	return min(breakerFirst<<min(n-1, 8), breakerMax)
}

// failLocked records a failure of phase: the state, the breaker (when
// counted) and the notice; s.mu is held.
func (s *server) failLocked(phase string, err error, count bool) {
	var se *ServerError
	if errors.As(err, &se) {
		err = se.Err
	}
	s.phase, s.err = phase, err
	if phase == PhaseAuth {
		s.state = StateNeedsLogin
		s.noticeLocked(NoticeNeedsLogin)
		return
	}
	s.state = StateFailed
	if count {
		s.noteFailure()
	}
	s.failureLocked(false)
}

// watch waits for the end of a session; one that ended while it was the
// server's (a crash, a closed connection) makes the server idle until
// the next start, and is told.
func (s *server) watch(conn *Conn) {
	select {
	case <-conn.Done():
	case <-s.m.ctx.Done():
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != conn || s.closed {
		return // replaced or stopped on purpose
	}
	s.state = StateIdle
	s.err = errors.New("the session ended")
	if err := conn.Err(); err != nil {
		s.err = conn.Explain(PhaseCall, err)
		var se *ServerError
		if errors.As(s.err, &se) {
			s.err = se.Err
		}
	}
	s.phase = PhaseCall
	s.failedLocked(true)
	// Its tools stay offered: a call of one reconnects.
}

// changed is told that the server's resources or prompts changed.
func (s *server) changed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changedLocked()
}

// toolsChanged is told of notifications/tools/list_changed (on the
// session's reader goroutine: it only marks and kicks).
func (s *server) toolsChanged() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stale, s.told = true, true
	s.gen++
	s.refreshFails = 0
	s.refreshLocked()
}

// freshUntil is when the tool list conn just gave stops being fresh, by
// its caching hint (2026-07-28 caching.mdx: fresh while now < received +
// ttlMs). A modern server that gave no ttlMs is taken as giving 0, stale
// at once, whether or not it offers list_changed ("clients SHOULD assume
// a default of 0"): the next use lists again. Zero for a legacy server,
// which has no hint: only list_changed makes its list stale.
func (s *server) freshUntil(conn *Conn) time.Time {
	h := conn.CacheHint("tools/list")
	switch {
	case h.Given:
		return s.m.opts.Now().Add(h.TTL)
	case conn.Era() == protocol.EraModern:
		return s.m.opts.Now() // ttlMs missing means 0
	}
	return time.Time{}
}

// expireLocked marks the tool list stale once its caching hint's time is
// over: the list is taken again at its next use, not before (the hint is
// no polling interval); s.mu is held.
func (s *server) expireLocked() {
	if !s.stale && !s.freshTill.IsZero() && !s.m.opts.Now().Before(s.freshTill) {
		s.stale = true
		s.gen++
		s.refreshFails = 0
	}
}

// refreshLocked lists the tools again in the background when the list
// is stale, no refresh runs, and it failed at most once since the list
// changed; s.mu is held.
func (s *server) refreshLocked() {
	if !s.stale || s.refreshing || s.conn == nil || s.closed || s.refreshFails >= maxRefreshTries {
		return
	}
	conn, gen := s.conn, s.gen
	if s.m.background(func() { s.refresh(conn, gen) }) {
		s.refreshing = true
	}
}

// maxRefreshTries bounds the refreshes of one change of the list: the
// one list_changed (or the end of ttlMs) asked for, and one retry at
// the next use.
const maxRefreshTries = 2

// refresh lists the tools of conn again; a failure keeps the previous
// list and says so; the next use tries once more, then only a new
// list_changed.
func (s *server) refresh(conn *Conn, gen int) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.startupBudget())
	defer cancel()
	tools, err := conn.ListTools(ctx)
	var check *SurfaceCheck
	if err == nil {
		check = s.checkSurface(tools, conn.Init().Instructions)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshing = false
	if s.conn != conn || s.closed || s.m.ctx.Err() != nil {
		return
	}
	if err != nil {
		s.refreshFails++
		when := "at the next use"
		if s.refreshFails >= maxRefreshTries {
			when = "after the server's next list_changed"
		}
		s.refreshErr = fmt.Errorf("refreshing the tool list (after list_changed, or once its ttlMs was over): %v (the previous list is kept; tried again %s)", err, when)
		return
	}
	s.refreshErr, s.refreshFails = nil, 0
	s.freshTill = s.freshUntil(conn)
	s.stale = s.gen != gen
	told := s.told
	s.told = s.told && s.stale
	if told || !sameTools(s.tools, tools) {
		// A listing its ttlMs's end asked for is told only when the list
		// differs: a server whose lists are stale at once (ttlMs 0 or
		// none) is listed at each use, and a host told of each listing
		// (serve's list_changed) would list again at once, without end.
		s.tools = tools
		if check != nil {
			s.surface, s.instructions = check, check.Instructions
		}
		s.toolsVer++
		s.changedLocked()
	}
	s.refreshLocked()
}

// An offer is one of a server's tools as Tools offers it (its schema
// normalized), with its name qualified alone: Tools names it so unless
// that name collides with another (qualifyFrom).
type offer struct {
	tool Tool // Name unset
	base string
	// held says why the tool is not offered now (its surface changed
	// since the approval, …); it keeps its name, and a call of it gets
	// this error.
	held error
}

// offered returns the tools the server offers to a model, enabledTools
// and disabledTools applied; withdrawn says its breaker is open, so that
// they are not offered now, but keep their names (a call of one says when
// the server is tried again). A session that ended keeps its list: a call
// reconnects. The offers are made once per list (normalizing a schema is
// the costly part of Tools) and shared: the caller must not change them.
func (s *server) offered() (offers []offer, withdrawn bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil && s.state != StateConnected {
		if s.cached != nil && (s.state == StateIdle || s.state == StateConnecting) {
			return s.cachedOffersLocked(), false
		}
		return nil, false
	}
	if s.offersVer != s.toolsVer || s.offersDef != s.def || s.offers == nil && len(s.tools) > 0 {
		name := s.def.Name
		out := make([]offer, 0, len(s.tools))
		for _, t := range s.tools {
			if toolEnabled(s.def, t.Name) {
				out = append(out, offer{base: qualifyPrefixed(s.def.Prefix, name, t.Name), held: s.surface.Held(t.Name), tool: Tool{Server: name, Original: t.Name, Title: t.DisplayName(),
					Description: t.Description, InputSchema: normalizeSchema(t.InputSchema), RawInputSchema: t.InputSchema, Annotations: t.Annotations}})
			}
		}
		s.offers, s.offersVer, s.offersDef = out, s.toolsVer, s.def
	}
	return s.offers, s.breakerOpen()
}

// session returns the live session, starting one first (and waiting for
// it, within ctx) when the server is idle or its session ended: a call
// reconnects. The error is a *ServerError.
func (s *server) session(ctx context.Context) (*Conn, error) {
	name := s.def.Name
	for waited := false; ; waited = true {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, &ServerError{Server: name, Phase: PhaseCall,
				Err: errors.New("the server was stopped (the manager closed, or its definition changed)")}
		case s.breakerOpen():
			at := s.openTill
			wait := at.Sub(s.m.opts.Now()).Round(time.Second)
			s.mu.Unlock()
			return nil, &ServerError{Server: name, Phase: PhaseCall,
				Err: fmt.Errorf("the server failed %d times in a row; its tools are withdrawn until %s (in %s), then one call is tried",
					breakerAfter, at.Format(time.TimeOnly), wait)}
		case s.conn != nil && !s.dead():
			conn := s.conn
			s.mu.Unlock()
			return conn, nil
		case s.spec == nil || s.state == StateNeedsApproval:
			err := &ServerError{Server: name, Phase: s.phase, Err: s.err}
			s.mu.Unlock()
			return nil, err
		case waited:
			// The start we waited for failed.
			err := &ServerError{Server: name, Phase: s.phase, Err: s.err}
			if err.Err == nil {
				err.Phase, err.Err = PhaseConnect, errors.New("not connected")
			}
			s.mu.Unlock()
			return nil, err
		case s.state == StateNeedsLogin:
			s.mu.Unlock()
			// A login may have happened since: ask again.
			if s.m.needsLogin(s.def) {
				return nil, &ServerError{Server: name, Phase: PhaseAuth, Err: &LoginRequiredError{Reason: "no usable token"}}
			}
			s.mu.Lock()
			if s.state == StateNeedsLogin {
				s.state = StateIdle
			}
		}
		if s.outOfRetriesLocked() {
			err := s.outOfRetriesErrLocked()
			s.mu.Unlock()
			return nil, err
		}
		ch := s.kickLocked()
		s.mu.Unlock()
		if ch == nil {
			return nil, &ServerError{Server: name, Phase: PhaseCall, Err: errors.New("the manager is closing")}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, &ServerError{Server: name, Phase: PhaseConnect, Err: ctx.Err()}
		}
	}
}

// use runs op on the server's session (started first when needed) and
// keeps the books: a transport failure counts for the breaker and is
// told; a needed login changes the state; a success after failures
// closes the breaker and tells that the server recovered. The error is a
// *ServerError of phase.
func (s *server) use(ctx context.Context, phase string, op func(*Conn) error) error {
	return s.m.masks.err(s.use1(ctx, phase, op))
}

// use1 is use, its errors not masked.
func (s *server) use1(ctx context.Context, phase string, op func(*Conn) error) error {
	conn, err := s.session(ctx)
	if err != nil {
		return err
	}
	err = op(conn)
	if err != nil {
		err = conn.Explain(phase, err)
		var se *ServerError
		switch {
		case errors.As(err, &se) && se.Phase == PhaseAuth:
			s.mu.Lock()
			if s.conn == conn {
				s.failLocked(PhaseAuth, err, false)
			}
			s.mu.Unlock()
		case transportFailure(err) && ctx.Err() == nil:
			s.mu.Lock()
			if s.conn == conn || s.conn == nil {
				s.noteFailure()
				s.failureLocked(true)
			}
			s.mu.Unlock()
		}
		return err
	}
	s.mu.Lock()
	s.failures, s.cooldown = 0, 0
	if s.conn == conn {
		s.recoveredLocked(false)
	}
	s.mu.Unlock()
	return nil
}

// toolTimeout bounds a tool call of the server: the definition's
// toolTimeout, else Options.ToolTimeout, else its request timeout.
func (s *server) toolTimeout() time.Duration {
	switch {
	case s.spec.ToolTimeout > 0:
		return s.spec.ToolTimeout
	case s.m.opts.ToolTimeout > 0:
		return s.m.opts.ToolTimeout
	}
	return s.spec.Timeout
}

// call runs one tool call, reconnecting first when the session ended.
func (s *server) call(ctx context.Context, tool string, args any, opts *CallOptions) (*Result, error) {
	s.mu.Lock()
	held := s.surface.Held(tool)
	s.mu.Unlock()
	if held != nil {
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseApproval, Err: held}
	}
	var res *protocol.CallToolResult
	var task *protocol.Task
	if opts != nil && opts.Trace != nil {
		if err := opts.Trace.Check(); err != nil {
			return nil, &ServerError{Server: s.def.Name, Phase: PhaseCall, Err: err}
		}
	}
	var heldNow error
	err := s.use(ctx, PhaseCall, func(conn *Conn) error {
		// The surface is checked when the session starts: a call that
		// started it (a tool offered from the list cache, say) is
		// checked again now. A protocol error: no transport failure.
		s.mu.Lock()
		heldNow = s.surface.Held(tool)
		s.mu.Unlock()
		if heldNow != nil {
			return &protocol.Error{Code: -32602, Message: heldNow.Error()}
		}
		if s.m.opts.CachedTools {
			s.mu.Lock()
			gone := !s.hasToolLocked(tool)
			s.mu.Unlock()
			if gone { // offered from the list cache, not by the server now
				return &protocol.Error{Code: -32602, Message: fmt.Sprintf("the server no longer offers the tool %q (it was offered from the list cache); list the tools again", tool)}
			}
		}
		copts := &protocol.CallOptions{Timeout: s.toolTimeout()}
		var own func(protocol.ProgressParams)
		if opts != nil {
			own = opts.OnProgress
			copts.Meta, copts.Trace = opts.Meta, opts.Trace
			if opts.Timeout > 0 {
				copts.Timeout = opts.Timeout
			}
		}
		if all := s.m.opts.OnProgress; own != nil || all != nil {
			name := s.def.Name
			copts.Progress = func(p protocol.ProgressParams) {
				p.Message = s.m.masks.text(p.Message)
				if own != nil {
					own(p)
				}
				if all != nil {
					s.m.events.post(name, "", func() { all(name, p) })
				}
			}
		}
		var err error
		if opts != nil && opts.Task {
			res, task, err = conn.CallToolTask(ctx, tool, args, copts)
			return err
		}
		res, err = conn.CallTool(ctx, tool, args, copts)
		return ToolTimeout(s.def.Name, tool, err)
	})
	if heldNow != nil {
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseApproval, Err: heldNow}
	}
	if err != nil {
		return nil, err
	}
	if task != nil {
		return &Result{Task: s.newTask(tool, task)}, nil
	}
	return s.m.masks.result(mapResult(res, s.m.opts.MaxText)), nil
}

// transportFailure says whether err is a broken connection or a timeout,
// rather than the server's answer.
func transportFailure(err error) bool {
	var je *protocol.Error
	if errors.As(err, &je) {
		return false
	}
	var ce *protocol.CapabilityError
	return !errors.As(err, &ce)
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
	return s.snapshotLocked()
}

// snapshotLocked is the server's state; s.mu is held.
func (s *server) snapshotLocked() ServerState {
	st := ServerState{Name: s.def.Name, State: s.state, Phase: s.phase, Err: s.err,
		Tools: len(s.tools), Stale: s.stale, RefreshErr: s.refreshErr, ReloadErr: s.reloadErr,
		Instructions: s.instructions, Drops: s.m.events.drops(s.def.Name),
		Surface: s.surface, Reserved: slices.Clone(s.reserved), Sandboxed: s.spec != nil && len(s.spec.Sandbox) > 0}
	switch {
	case s.breakerOpen():
		st.RetryAt = s.openTill
	case s.state == StateFailed && s.m.opts.Now().Before(s.startAt) && !s.outOfRetriesLocked():
		st.RetryAt = s.startAt
	}
	if s.conn != nil {
		st.ProtocolVersion, st.Era = s.conn.ProtocolVersion(), s.conn.Era()
		st.Transport = s.conn.Transport()
		st.ServerInfo = s.conn.ServerInfo()
		st.Pid = s.conn.Pid()
		st.Startup = s.conn.Spawn + s.conn.Initialize
		if s.dead() && s.state == StateConnected {
			st.State = StateIdle
		}
	}
	return s.m.masks.state(st)
}

// restart ends the session, if any, forgets failures and the breaker,
// asks again whether a login is needed, and starts the server in the
// background; it returns the start.
func (s *server) restart() (<-chan struct{}, error) {
	needs := s.m.needsLogin(s.def)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restartLocked(needs)
}

// restartLocked is restart with s.mu held; needs says whether a login is
// needed.
func (s *server) restartLocked(needs bool) (<-chan struct{}, error) {
	switch {
	case s.closed:
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseCall, Err: errors.New("the server was stopped")}
	case s.spec == nil || s.state == StateNeedsApproval:
		return nil, &ServerError{Server: s.def.Name, Phase: s.phase, Err: s.err}
	case s.starting != nil:
		return s.starting, nil
	}
	s.failures, s.cooldown, s.openTill = 0, 0, time.Time{}
	s.refreshFails = 0
	s.startFails, s.startAt, s.retries = 0, time.Time{}, 0
	if needs {
		s.failLocked(PhaseAuth, &LoginRequiredError{Reason: "no usable token"}, false)
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseAuth, Err: s.err}
	}
	s.state = StateIdle
	if s.conn != nil {
		// The start closes it; it is no longer the server's session, so
		// its end is no crash.
		s.retiring, s.conn = s.conn, nil
	}
	ch := s.kickLocked()
	if ch == nil {
		return nil, &ServerError{Server: s.def.Name, Phase: PhaseCall, Err: errors.New("the manager is closing")}
	}
	return ch, nil
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

// checkSurface compares tools and instructions with the surface pinned
// at the server's approval (CheckSurface); nil when approvals are not
// enforced (TrustAll). It reads and writes the pin file: s.mu is not
// held.
func (s *server) checkSurface(tools []*protocol.Tool, instructions string) *SurfaceCheck {
	if s.m.appr == nil {
		return nil
	}
	pin, newTools := PinPolicy(s.def, s.m.opts.Pin, s.m.opts.NewTools)
	c := CheckSurface(s.m.appr, s.def, pin, newTools, tools, instructions)
	for _, w := range c.Warnings() {
		s.m.logf(s.def.Name, "%s: %s", s.def.Name, w)
	}
	return c
}
