package cli

import (
	"context"
	"strings"

	"github.com/mcpwire/mcpwire/manager"
)

// A sessionRun is one command's session with its server.
type sessionRun struct {
	t    *target
	conn *manager.Conn
	rest []string // the positionals after the target
	tf   targetFlags
	ev   *events
	// decl is how the session answers what a person or a model would:
	// recorded in a snapshot with the capabilities declared.
	decl clientDecl
}

// close ends the session and what resolving the target started.
func (r *sessionRun) close() {
	r.conn.Close()
	r.t.stop()
}

// openSession is the common start of the commands that talk to one
// server: flags (the target's, the interaction ones, and extra), the
// target, a check of the positionals that remain (before anything
// starts), and the connection.
func (inv *invocation) openSession(ctx context.Context, name string, args []string, extra func(*flagSetT), check func(rest []string) error) (*sessionRun, error) {
	fs := newFlagSet(name)
	r := &sessionRun{}
	var xf interactionFlags
	r.tf.register(fs)
	xf.register(fs)
	if extra != nil {
		extra(fs)
	}
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	r.t, r.rest, err = inv.resolveTarget(ctx, &r.tf, pos, tail, hasTail)
	if err != nil {
		return nil, err
	}
	if err := check(r.rest); err != nil {
		r.t.stop()
		return nil, err
	}
	if name == "snapshot" && xf.elicit == "" {
		// A snapshot declares the same on a terminal as in a pipe: a
		// server may offer more tools to a client that can elicit.
		xf.elicit = "none"
	}
	r.ev = inv.newEvents(xf.events)
	popts, err := inv.interactions(&xf, r.ev)
	r.decl = declOf(&xf, &popts)
	if err == nil {
		r.conn, err = inv.connect(ctx, r.t, &r.tf, popts)
	}
	if err != nil {
		r.t.stop()
		return nil, err
	}
	return r, nil
}

// noMoreArgs refuses positionals after the TARGET.
func noMoreArgs(rest []string) error {
	if len(rest) > 0 {
		return usageErr("unexpected arguments: %s", strings.Join(rest, " "))
	}
	return nil
}

// nArgs checks that exactly n positionals follow the target.
func nArgs(n int, what string) func([]string) error {
	return func(rest []string) error {
		if len(rest) != n {
			return usageErr("%s after the TARGET", what)
		}
		return nil
	}
}

// kvPairs reads k=v words into a map.
func kvPairs(words []string, what string) (map[string]string, error) {
	out := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, usageErr("%s %q is not k=v", what, w)
		}
		out[k] = v
	}
	return out, nil
}
