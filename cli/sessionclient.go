package cli

// The client side of sessions: find the home's daemon, trust it or not,
// and hand a configured server's MCP stream to the command's one path.

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// dialDaemon connects to the daemon at p: the socket and its folder
// checked first, the peer after. Its hello is read by hello or ask.
func dialDaemon(ctx context.Context, p sessionPaths) (*wireConn, error) {
	c, err := dialSocket(ctx, p)
	if err != nil {
		return nil, err
	}
	wc := newWireConn(c)
	wc.path = p.sock
	return wc, nil
}

// hello reads the daemon's first line, once, within helloWait: a
// listener that does not say it is a daemon is not one.
func (c *wireConn) hello() error {
	if c.greeted {
		return nil
	}
	c.SetReadDeadline(time.Now().Add(helloWait))
	defer c.SetReadDeadline(time.Time{})
	var h wireHello
	if err := readWireLine(c.r, &h); err != nil || h.Daemon <= 0 {
		if err == nil {
			err = errors.New("no pid in its hello")
		}
		return &silentError{c.path, err}
	}
	c.greeted = true
	return nil
}

// ask sends req and reads the answer within d (the hello first, within
// its own bound: the request goes out without waiting for it).
func (c *wireConn) ask(req *wireRequest, d time.Duration) (*wireAnswer, error) {
	c.SetWriteDeadline(time.Now().Add(helloWait))
	err := writeWireLine(c, req)
	c.SetWriteDeadline(time.Time{})
	if err != nil {
		return nil, err
	}
	if err := c.hello(); err != nil {
		return nil, err
	}
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	var a wireAnswer
	if err := readWireLine(c.r, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// sessionPathsOf is the session files of the home the command uses.
func (inv *invocation) sessionPathsOf(home string) sessionPaths {
	return pathsOf(home, inv.env.Getenv)
}

// digestOf is the approval digest of a configured target's definition.
func digestOf(t *target) string {
	if t.digest != "" {
		return t.digest
	}
	ap, err := t.openApprovals()
	if err != nil {
		return ""
	}
	return ap.Digest(t.server)
}

// openApprovals returns the approvals of t's home: those read when t
// was resolved, else read now.
func (t *target) openApprovals() (*config.Approvals, error) {
	if t.approvals != nil {
		return t.approvals, nil
	}
	return config.OpenApprovals(t.home)
}

// sessionVia returns the connection to t's session, past its handshake,
// and the revision its server speaks; ok is false when t has no usable
// session (then the command starts the server itself, as without one).
// A session whose definition changed or was revoked ends; a socket that
// is not trusted is said so and left unused.
func (inv *invocation) sessionVia(ctx context.Context, t *target, budget time.Duration) (c *wireConn, version string, ok bool) {
	c, a := inv.sessionAsk(ctx, t, budget, &wireRequest{})
	if a == nil {
		return nil, "", false
	}
	return c, a.Protocol, true
}

// sessionAsk is sessionVia with the request req (its op, name, dir and
// digest set here): the answer, nil when t has no usable session.
func (inv *invocation) sessionAsk(ctx context.Context, t *target, budget time.Duration, req *wireRequest) (*wireConn, *wireAnswer) {
	if t.server == nil || t.home == "" {
		return nil, nil
	}
	p := inv.sessionPathsOf(t.home)
	if !mayListen(p) {
		return nil, nil // the common case: no daemon, nothing to ask
	}
	c, err := dialDaemon(ctx, p)
	if err != nil {
		inv.notTrusted(err)
		return nil, nil
	}
	req.Op, req.Name, req.Dir, req.Digest = opMCP, t.server.Name, inv.env.Dir, digestOf(t)
	a, err := c.ask(req, budget)
	if err == nil && olderDaemon(req, a) {
		// A daemon of an earlier mcpwire refuses the policy members: ask
		// again as it asks, and check the surface here.
		c.Close()
		if c, err = dialDaemon(ctx, p); err != nil {
			inv.notTrusted(err)
			return nil, nil
		}
		req.Pin, req.NewTools = "", ""
		a, err = c.ask(req, budget)
	}
	if err != nil || !a.OK || a.Partial {
		c.Close()
		inv.notTrusted(err)
		if err == nil && a.Ended {
			inv.say("%s: its session ended: %s\n", safe.Sanitize(t.server.Name), safe.Sanitize(a.Error))
		}
		return nil, nil
	}
	return c, a
}

// olderDaemon says whether a, the answer to req, is the refusal of a
// daemon that reads no pin policy (one of an earlier mcpwire, which
// refuses the members it does not know).
func olderDaemon(req *wireRequest, a *wireAnswer) bool {
	return !a.OK && req.Pin != "" && strings.Contains(a.Error, `unknown field "pin"`)
}

// notTrusted says why a daemon's socket was not used (a stale one is
// not news).
func (inv *invocation) notTrusted(err error) {
	var ue *untrustedError
	var se *silentError
	switch {
	case errors.As(err, &ue), errors.As(err, &se):
		inv.say("warning: %s; not used\n", safe.Sanitize(err.Error()))
	}
}

// sessionCommands are the commands that go through a session: those
// whose output a session keeps as a direct start gives it. The others
// (snapshot, diff, verify, probe, doctor, proxy, task, …) record or
// test the server itself, so they start it.
var sessionCommands = [...]string{"call", "read", "prompt", "test", "tool", "complete"}

// viaSession points opts at t's session when it has one: the command's
// path stays the one of a direct start. It returns the daemon's answer,
// with the tools and their check for t's pin policy (nil: no session).
func (inv *invocation) viaSession(ctx context.Context, t *target, tf *targetFlags, opts *manager.DialOptions) *wireAnswer {
	if tf.noSession || tf.verbose || t.server == nil || !slices.Contains(sessionCommands[:], inv.cmd.name) {
		return nil
	}
	req := &wireRequest{}
	if ap, err := t.openApprovals(); err == nil {
		def, _ := ap.Defaults() // said by the check, as without a session
		req.Pin, req.NewTools = manager.PinPolicy(t.server, def.Pin, def.NewTools)
	}
	c, a := inv.sessionAsk(ctx, t, tf.startupBudget(t.spec), req)
	if a == nil {
		return nil
	}
	if tf.protocol != "" && tf.protocol != a.Protocol {
		c.Close() // pinned to another revision than the session's
		return nil
	}
	opts.Via = func(context.Context) (io.ReadWriteCloser, error) { return c, nil }
	opts.Protocol.ProtocolVersion, opts.Protocol.Discovered = a.Protocol, a.Discover
	return a
}

// managerVia is the manager's Via: the session of each configured
// server of home that has one.
func (inv *invocation) managerVia(home string, budget time.Duration) func(context.Context, *config.Server) (io.ReadWriteCloser, string, bool) {
	return func(ctx context.Context, s *config.Server) (io.ReadWriteCloser, string, bool) {
		c, version, ok := inv.sessionVia(ctx, &target{server: s, home: home}, budget)
		if !ok {
			return nil, "", false
		}
		return c, version, true
	}
}
