package cli

// The session daemon (the hidden session-daemon command): one a user and
// home, detached, that keeps the servers `connect` started and serves
// each to the commands that name it, over a Unix socket, as an MCP
// server in front of the live manager.Conn (protocol/server's
// Forwarder). It ends when its last session does.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// Bounds of the daemon.
const (
	// daemonTick is how often idle sessions and trust are checked.
	daemonTick = time.Second
	// firstSessionWait ends a daemon that never got a session.
	firstSessionWait = time.Minute
	// maxSessions bounds the sessions of one daemon; maxClients the
	// connections it serves at once.
	maxSessions = 64
	maxClients  = 256
	// requestWait bounds a client's request line.
	requestWait = 10 * time.Second
)

// A daemon is the running session daemon.
type daemon struct {
	inv   *invocation
	home  string
	ctx   context.Context
	stop  context.CancelFunc
	slots chan struct{} // one per connection served

	mu       sync.Mutex
	sessions map[string]*liveSession
	had      bool // a session was ever made
	starting int  // connects in progress
}

// A liveSession is one connected server.
type liveSession struct {
	name, dir, digest string
	environ           []string
	idle, startup     time.Duration
	since             time.Time
	ctx               context.Context // ends with the session
	end               context.CancelFunc

	mu       sync.Mutex // never held across I/O
	gen      *generation
	last     time.Time
	active   int
	calls    int64
	restarts int
	err      string
	dialing  chan struct{} // closed when the start in progress ends
}

// A generation is one start of a session's server.
type generation struct {
	t    *target
	conn *manager.Conn
	fwd  *mcpserver.Forwarder
	srv  *mcpserver.Server

	mu       sync.Mutex      // never held across I/O
	state    *toolState      // what was handed over last
	discover json.RawMessage // the server/discover answer handed over
}

func (g *generation) close() {
	g.conn.Close()
	g.t.stop()
}

// alive says whether g's server still runs: its session did not end,
// nor fail (a call that failed because the server died fails after the
// session's error is set, before Done is closed).
func (g *generation) alive() bool {
	select {
	case <-g.conn.Done():
		return false
	default:
		return g.conn.Err() == nil
	}
}

// runSessionDaemon is the daemon's main: listen, tell the starter, serve.
func runSessionDaemon(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("session-daemon")
	readyFD := fs.Int("ready-fd", 0, "write ready to this descriptor once listening")
	if _, _, _, err := parseArgs(fs, args); err != nil {
		return err
	}
	home := inv.authHome(&target{})
	p := inv.sessionPathsOf(home)
	ln, err := listenPrivate(p)
	if err != nil {
		return sessionFailure(err)
	}
	signalReady(*readyFD)
	ctx, cancel := context.WithCancel(ctx)
	d := &daemon{inv: inv, home: home, ctx: ctx, stop: cancel, slots: make(chan struct{}, maxClients), sessions: map[string]*liveSession{}}
	inv.say("session daemon %d listening on %s\n", os.Getpid(), p.sock)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.watch()
	}()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		select {
		case d.slots <- struct{}{}:
		default:
			c.Close() // at the bound: refused, counted in the log
			inv.say("refused a connection: %d served at once already\n", maxClients)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-d.slots }()
			d.serve(c)
		}()
	}
	cancel()
	wg.Wait()
	d.endAll("the daemon stopped")
	dropSocket(p.sock)
	inv.say("session daemon %d stopped\n", os.Getpid())
	return nil
}

// watch ends idle sessions and sessions no longer trusted, and the
// daemon once it has none.
func (d *daemon) watch() {
	tick := time.NewTicker(daemonTick)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-tick.C:
		}
		for _, s := range d.list() {
			if why := d.stale(s); why != "" {
				d.end(s, why)
			}
		}
		d.mu.Lock()
		done := len(d.sessions) == 0 && d.starting == 0 && (d.had || time.Since(start) > firstSessionWait)
		d.mu.Unlock()
		if done {
			d.stop()
			return
		}
	}
}

// stale says why s should end now ("" to keep it): idle past its bound,
// or its definition changed or lost its approval.
func (d *daemon) stale(s *liveSession) string {
	s.mu.Lock()
	idle := s.active == 0 && time.Since(s.last) > s.idle
	s.mu.Unlock()
	if idle {
		return fmt.Sprintf("idle for more than %v", s.idle)
	}
	return d.recheck(s)
}

// recheck resolves s's definition again, where connect resolved it: ""
// when it is the one approved then and still approved.
func (d *daemon) recheck(s *liveSession) string {
	inv := d.sessionInv(s)
	t, err := inv.configuredTarget(d.ctx, s.name)
	if err != nil {
		return "its definition is no longer usable: " + err.Error()
	}
	if digestOf(t) != s.digest {
		return "its definition changed since connect"
	}
	return ""
}

// list returns the sessions, by name.
func (d *daemon) list() []*liveSession {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*liveSession, 0, len(d.sessions))
	for _, s := range d.sessions {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// end ends s (its server stopped) and says why in the log.
func (d *daemon) end(s *liveSession, why string) {
	d.mu.Lock()
	if d.sessions[s.name] == s {
		delete(d.sessions, s.name)
	}
	last := len(d.sessions) == 0 && d.had && d.starting == 0
	d.mu.Unlock()
	s.end()
	if last {
		defer d.stop() // the user's last session: the daemon goes too
	}
	s.mu.Lock()
	g := s.gen
	s.gen = nil
	s.mu.Unlock()
	if g != nil {
		g.close()
	}
	d.inv.say("session %s ended: %s\n", safe.Sanitize(s.name), safe.Sanitize(why))
}

// endAll ends every session.
func (d *daemon) endAll(why string) {
	for _, s := range d.list() {
		d.end(s, why)
	}
}

// sessionInv is an invocation in s's directory and environment: what
// the command that connected it would have resolved and started.
func (d *daemon) sessionInv(s *liveSession) *invocation {
	env := d.inv.env
	vars := map[string]string{}
	for _, kv := range s.environ {
		if k, v, ok := cutEnv(kv); ok {
			vars[k] = v
		}
	}
	env.Dir = s.dir
	env.Getenv = func(k string) string { return vars[k] }
	env.LookupEnv = func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	env.Environ = func() []string { return s.environ }
	env.Stdin, env.Stdout = nil, io.Discard
	env.StdinIsTerminal, env.StdoutIsTerminal, env.StderrIsTerminal = false, false, false
	env.Home = d.home
	return newInvocation(env, d.inv.cmd)
}

// cutEnv splits KEY=VALUE.
func cutEnv(kv string) (string, string, bool) {
	for i := 1; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return "", "", false
}

// serve answers one connection: hello, one request, its answer, and for
// mcp the MCP stream until either side ends it.
func (d *daemon) serve(c net.Conn) {
	defer c.Close()
	if err := checkPeer(c); err != nil {
		d.inv.say("refused a connection: %s\n", safe.Sanitize(err.Error()))
		return
	}
	wc := newWireConn(c)
	c.SetDeadline(time.Now().Add(requestWait))
	if writeWireLine(c, wireHello{Daemon: os.Getpid()}) != nil {
		return
	}
	var req wireRequest
	if err := readWireLine(wc.r, &req); err != nil {
		writeWireLine(c, wireAnswer{Error: err.Error()})
		return
	}
	c.SetDeadline(time.Time{})
	switch req.Op {
	case opMCP:
		d.serveMCP(wc, &req)
	case opConnect:
		writeWireLine(c, d.connect(&req))
	case opList:
		writeWireLine(c, d.listAnswer())
	case opDisconnect:
		writeWireLine(c, d.disconnect(&req))
	default:
		writeWireLine(c, wireAnswer{Error: fmt.Sprintf("unknown op %q", safe.Sanitize(req.Op))})
	}
}

// lookup is the live session of name, or nil.
func (d *daemon) lookup(name string) *liveSession {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sessions[name]
}
