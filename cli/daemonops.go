package cli

// The daemon's answers: connect, mcp, list, disconnect; and the
// (re)start of a session's server.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// failAnswer is the answer of a failed start: its exit code and text.
func failAnswer(err error) wireAnswer {
	f := asFailure(context.Background(), err)
	return wireAnswer{Error: f.message(), Code: f.code, Phase: f.phase, Hints: f.hints}
}

// connect starts the session req names, or keeps the live one of the
// same definition.
func (d *daemon) connect(req *wireRequest) wireAnswer {
	if s := d.lookup(req.Name); s != nil {
		if s.digest != req.Digest {
			why := d.recheck(s)
			if why == "" {
				return wireAnswer{Error: fmt.Sprintf("%s has a session of another definition (connected in %s): disconnect it first", safe.Sanitize(req.Name), safe.Sanitize(s.dir)), Code: ExitUsage}
			}
			d.end(s, why)
		} else if g, err := d.generation(s); err != nil {
			return failAnswer(err)
		} else {
			s.touch(0)
			return wireAnswer{OK: true, Protocol: g.conn.ProtocolVersion(), Sessions: []sessionInfo{s.info()}}
		}
	}
	d.mu.Lock()
	full := len(d.sessions) >= maxSessions
	d.mu.Unlock()
	if full {
		return wireAnswer{Error: fmt.Sprintf("at most %d sessions at once: disconnect one first", maxSessions), Code: ExitUsage}
	}
	d.mu.Lock()
	d.starting++
	d.mu.Unlock()
	defer d.started()
	ctx, end := context.WithCancel(d.ctx)
	now := time.Now()
	s := &liveSession{name: req.Name, dir: req.Dir, digest: req.Digest, environ: req.Environ, idle: req.Idle, startup: req.Startup,
		since: now, last: now, ctx: ctx, end: end}
	g, err := d.generation(s)
	if err != nil {
		end()
		return failAnswer(err)
	}
	d.mu.Lock()
	if d.sessions[s.name] != nil { // connected meanwhile by another connect
		d.mu.Unlock()
		end()
		g.close()
		return d.connect(req)
	}
	d.sessions[s.name] = s
	d.had = true
	d.mu.Unlock()
	d.inv.say("session %s connected (%s, %s)\n", safe.Sanitize(s.name), g.conn.Transport(), g.conn.ProtocolVersion())
	return wireAnswer{OK: true, Protocol: g.conn.ProtocolVersion(), Sessions: []sessionInfo{s.info()}}
}

// started ends a connect: a daemon left with no session and no other
// connect in progress (its first connect failed) ends.
func (d *daemon) started() {
	d.mu.Lock()
	d.starting--
	idle := d.starting == 0 && len(d.sessions) == 0
	d.mu.Unlock()
	if idle {
		d.stop()
	}
}

// serveMCP serves the session's server on the connection.
func (d *daemon) serveMCP(wc *wireConn, req *wireRequest) {
	s := d.lookup(req.Name)
	if s == nil {
		writeWireLine(wc, wireAnswer{Error: "no session of " + safe.Sanitize(req.Name)})
		return
	}
	if s.digest != req.Digest {
		if why := d.recheck(s); why != "" {
			d.end(s, why)
			writeWireLine(wc, wireAnswer{Error: why, Ended: true})
			return
		}
		writeWireLine(wc, wireAnswer{Error: "the session is of another definition of " + safe.Sanitize(req.Name)})
		return
	}
	g, err := d.generation(s)
	if err != nil {
		writeWireLine(wc, failAnswer(err))
		return
	}
	if hasTasks(g.conn.Init().Capabilities) {
		// The forwarder passes no tasks: a command sees them only by
		// starting the server itself.
		writeWireLine(wc, wireAnswer{OK: true, Partial: true})
		return
	}
	s.touch(1)
	defer s.touch(-1)
	gctx, cancel := context.WithTimeout(s.ctx, requestWait)
	line, err := g.answerLine(gctx, req.Pin, req.NewTools)
	cancel()
	if err != nil {
		writeWireLine(wc, wireAnswer{Error: err.Error()})
		return
	}
	if _, err := wc.Write(line); err != nil {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go func() {
		select {
		case <-g.conn.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	g.srv.ServeStdio(ctx, wc, wc)
}

// touch marks a use of s: active changes by delta (a command served
// starts with 1 and ends with -1; 0 is a use of connect).
func (s *liveSession) touch(delta int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active += delta
	if delta > 0 {
		s.calls++
	}
	s.last = time.Now()
}

// generation returns s's live server, started again when it ended (as
// the manager starts a server that died on its next use). One start at
// a time; the others wait for it.
func (d *daemon) generation(s *liveSession) (*generation, error) {
	for {
		s.mu.Lock()
		if g := s.gen; g != nil && g.alive() {
			s.mu.Unlock()
			return g, nil
		}
		if w := s.dialing; w != nil {
			s.mu.Unlock()
			select {
			case <-w:
				continue
			case <-s.ctx.Done():
				return nil, errors.New("the session ended")
			}
		}
		old := s.gen
		s.gen = nil
		w := make(chan struct{})
		s.dialing = w
		if old != nil {
			s.restarts++
		}
		s.mu.Unlock()
		if old != nil {
			d.inv.say("session %s: the server ended (%v); starting it again\n", safe.Sanitize(s.name), old.conn.Err())
			old.close()
		}
		g, err := d.dial(s)
		s.mu.Lock()
		s.dialing = nil
		close(w)
		ended := s.ctx.Err() != nil
		if err == nil && !ended {
			s.gen, s.err = g, ""
		} else if err != nil {
			s.err = err.Error()
		}
		s.mu.Unlock()
		if err == nil && ended {
			g.close()
			return nil, errors.New("the session ended")
		}
		return g, err
	}
}

// dial starts s's server: its definition resolved again where connect
// resolved it, checked against the digest connect recorded.
func (d *daemon) dial(s *liveSession) (*generation, error) {
	inv := d.sessionInv(s)
	t, err := inv.configuredTarget(s.ctx, s.name)
	if err != nil {
		return nil, err
	}
	if digestOf(t) != s.digest {
		t.stop()
		return nil, fail(ExitConfig, manager.PhaseApproval, errors.New("the definition changed since it was resolved"))
	}
	fwd := mcpserver.NewForwarder()
	fwd.CacheTools = true // listed again on list_changed, as the manager does
	var popts protocol.Options
	fwd.ClientOptions(&popts)
	tf := targetFlags{noSession: true, startup: s.startup}
	conn, err := inv.connect(s.ctx, t, &tf, popts)
	if err != nil {
		t.stop()
		return nil, err
	}
	fwd.Attach(conn.Session)
	srv := mcpserver.New(fwd.Options(mcpserver.Options{Log: safe.NewTextWriter(d.inv.env.Stderr), LogPrefix: "mcpwire session " + safe.Sanitize(s.name)}))
	return &generation{t: t, conn: conn, fwd: fwd, srv: srv}, nil
}

// info is s as sessions shows it.
func (s *liveSession) info() sessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := sessionInfo{Name: s.name, Pid: daemonPid(), Since: s.since.UTC().Format(time.RFC3339),
		IdleSeconds: int64(time.Since(s.last) / time.Second), IdleLimitSeconds: int64(s.idle / time.Second),
		Calls: s.calls, Restarts: s.restarts, Error: s.err}
	switch g := s.gen; {
	case s.dialing != nil:
		in.State = "restarting"
	case g != nil && g.alive():
		in.State = "connected"
	case g != nil:
		in.State = "exited" // started again on its next use
	default:
		in.State = "failed"
	}
	if g := s.gen; g != nil {
		in.ServerPid, in.Transport, in.Protocol = g.conn.Pid(), g.conn.Transport(), g.conn.ProtocolVersion()
	}
	if s.active > 0 {
		in.IdleSeconds = 0
	}
	return in
}

// listAnswer rechecks every session, then lists those that remain.
func (d *daemon) listAnswer() wireAnswer {
	a := wireAnswer{OK: true, Sessions: []sessionInfo{}}
	for _, s := range d.list() {
		if why := d.stale(s); why != "" {
			d.end(s, why)
			continue
		}
		a.Sessions = append(a.Sessions, s.info())
	}
	return a
}

// disconnect ends the session req names, or all.
func (d *daemon) disconnect(req *wireRequest) wireAnswer {
	a := wireAnswer{OK: true, Sessions: []sessionInfo{}}
	var ss []*liveSession
	if req.All {
		ss = d.list()
	} else if s := d.lookup(req.Name); s != nil {
		ss = []*liveSession{s}
	} else {
		return wireAnswer{Error: "no session of " + safe.Sanitize(req.Name), Code: ExitUsage}
	}
	for _, s := range ss {
		a.Sessions = append(a.Sessions, s.info())
		d.end(s, "disconnected")
	}
	return a
}

// hasTasks says whether a server declares tasks (the capability, or the
// Tasks extension), which the forwarder does not pass on.
func hasTasks(caps protocol.ServerCapabilities) bool {
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(caps.Extensions, &ext)
	_, ok := ext[protocol.ExtTasks]
	return len(caps.Tasks) > 0 || ok
}
