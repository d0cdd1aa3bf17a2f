package cli

// connect, sessions and disconnect: the sessions of agents that call the
// command line. connect starts a configured server once and keeps it in
// the home's session daemon; call, read, prompt, test and list of that
// server then go through it (--no-session: not).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// defaultIdle ends a session unused this long.
const defaultIdle = 30 * time.Minute

// sessionsDoc is the --json document of connect, sessions and disconnect.
type sessionsDoc struct {
	docHeader
	Sessions []sessionInfo `json:"sessions"`
}

// runConnect is `connect NAME [--idle D]`.
func runConnect(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("connect")
	var tf targetFlags
	idle := fs.Duration("idle", defaultIdle, "end the session after it was unused this long")
	fs.BoolVar(&tf.json, "json", false, "print one JSON document on stdout")
	fs.DurationVar(&tf.startup, "startup-timeout", 0, "bound the server's start (default: the definition's startupTimeout, else its timeout, 30s)")
	pos, _, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	inv.json = tf.json
	switch {
	case hasTail || len(pos) != 1:
		return usageErr("connect takes one configured server NAME")
	case strings.Contains(pos[0], "://"):
		return usageErr("connect takes a configured server NAME, not a URL: add it first with %s", inv.suggest("add", "NAME", pos[0]))
	case *idle <= 0:
		return usageErr("--idle wants a positive duration (e.g. 30m)")
	}
	t, err := inv.configuredTarget(ctx, pos[0])
	if err != nil {
		return err
	}
	defer t.stop()
	c, err := inv.daemonFor(ctx, t.home)
	if err != nil {
		return sessionFailure(err)
	}
	defer c.Close()
	budget := tf.startupBudget(t.spec) + helloWait
	a, err := c.ask(&wireRequest{Op: opConnect, Name: t.server.Name, Dir: inv.env.Dir, Digest: digestOf(t),
		Environ: inv.env.Environ(), Idle: *idle, Startup: tf.startup}, budget)
	if err != nil {
		return fail(ExitServer, "session", fmt.Errorf("the session daemon: %v", err))
	}
	if !a.OK {
		return answerFailure(t.server.Name, a)
	}
	return inv.printSessions(a.Sessions, "connected")
}

// sessionFailure is the failure of reaching the daemon: with what to do
// when its folder or socket is not trusted.
func sessionFailure(err error) *failure {
	f := fail(ExitServer, "session", err)
	var ue *untrustedError
	if errors.As(err, &ue) {
		f.hints = append(f.hints, ue.hint())
	}
	return f
}

// answerFailure is the failure a daemon's answer reports.
func answerFailure(server string, a *wireAnswer) error {
	code := a.Code
	if code == 0 {
		code = ExitServer
	}
	phase := a.Phase
	if phase == "" {
		phase = "session"
	}
	return &failure{code: code, server: server, phase: phase, err: errors.New(a.Error), hints: a.Hints}
}

// daemonFor returns a connection to home's daemon, started when there is
// none; a stale socket, one that is not trusted or a daemon that does
// not answer is replaced.
func (inv *invocation) daemonFor(ctx context.Context, home string) (*wireConn, error) {
	p := inv.sessionPathsOf(home)
	if err := p.makeDir(); err != nil {
		return nil, err
	}
	lock, err := safe.LockContext(ctx, p.lock)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	c, err := dialDaemon(ctx, p)
	if err == nil {
		if err = c.hello(); err == nil {
			return c, nil
		}
		c.Close()
	}
	if !errors.Is(err, errNoDaemon) {
		inv.say("warning: %s; replacing it\n", safe.Sanitize(err.Error()))
	}
	if err := removeSocket(p.sock); err != nil {
		return nil, err
	}
	if err := inv.startDaemon(home, p); err != nil {
		return nil, err
	}
	return dialDaemon(ctx, p)
}

// runSessions is `sessions [--json]`.
func runSessions(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("sessions")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("sessions takes no arguments")
	}
	a, err := inv.askDaemon(ctx, &wireRequest{Op: opList})
	if err != nil {
		return err
	}
	return inv.printSessions(a.Sessions, "")
}

// runDisconnect is `disconnect NAME | --all`.
func runDisconnect(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("disconnect")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	all := fs.Bool("all", false, "end every session")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	req := &wireRequest{Op: opDisconnect, All: *all}
	switch {
	case *all && len(pos) == 0:
	case !*all && len(pos) == 1:
		req.Name = pos[0]
	default:
		return usageErr("disconnect takes one session NAME, or --all")
	}
	a, err := inv.askDaemon(ctx, req)
	if err != nil {
		if errors.Is(err, errNoDaemon) && *all {
			return inv.printSessions(nil, "disconnected")
		}
		return err
	}
	if !a.OK {
		return answerFailure(req.Name, a)
	}
	return inv.printSessions(a.Sessions, "disconnected")
}

// askDaemon asks the home's daemon, if one runs; without one, the
// answer is an empty list (and errNoDaemon for a named session).
func (inv *invocation) askDaemon(ctx context.Context, req *wireRequest) (*wireAnswer, error) {
	p := inv.sessionPathsOf(inv.authHome(&target{}))
	c, err := dialDaemon(ctx, p)
	if errors.Is(err, errNoDaemon) {
		if req.Op == opDisconnect && !req.All {
			return nil, &failure{code: ExitUsage, server: req.Name, phase: "session", err: errors.New("no session"),
				hints: []string{"see the sessions with: " + inv.suggest("sessions")}}
		}
		if req.Op == opList {
			return &wireAnswer{OK: true}, nil
		}
		return nil, err
	}
	if err != nil {
		return nil, sessionFailure(err)
	}
	defer c.Close()
	a, err := c.ask(req, time.Minute)
	if err != nil {
		return nil, fail(ExitServer, "session", fmt.Errorf("the session daemon: %v", err))
	}
	return a, nil
}

// printSessions prints sessions: a table for people (verb, when given,
// says what was done to them), or the --json document.
func (inv *invocation) printSessions(ss []sessionInfo, verb string) error {
	if ss == nil {
		ss = []sessionInfo{}
	}
	if inv.json {
		inv.writeJSON(sessionsDoc{docHeader: inv.header(true), Sessions: ss})
		return nil
	}
	if verb != "" {
		for _, s := range ss {
			inv.printf("%s %s (%s, %s, session daemon pid %d)\n", verb, safe.Sanitize(s.Name), safe.Sanitize(s.Transport), safe.Sanitize(s.Protocol), s.Pid)
		}
		return nil
	}
	if len(ss) == 0 {
		inv.printf("no sessions\n")
		return nil
	}
	inv.printf("%-20s %-8s %-20s %-8s %-6s %s\n", "NAME", "PID", "SINCE", "IDLE", "CALLS", "STATE")
	for _, s := range ss {
		idle := (time.Duration(s.IdleSeconds) * time.Second).String()
		inv.printf("%-20s %-8d %-20s %-8s %-6d %s\n", safe.Sanitize(s.Name), s.Pid, safe.Sanitize(s.Since), idle, s.Calls, safe.Sanitize(s.State))
	}
	return nil
}
