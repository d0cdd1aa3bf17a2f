package server

// A legacy target connected again (forward_caps.go) replaces the one
// before for each request from then on, but a request that took the one
// before (a tool call still running, a server request it is waiting on)
// keeps it: the one before is retired, handed to the function of
// SetRetire, when the last request using it ends, never while one runs.
// A request's use ends with the request, whose own timeout or the host's
// cancellation bounds it.

import (
	"context"

	"github.com/mcpwire/mcpwire/protocol"
)

// SetRetire has retire called, once, with each target session that was
// replaced (a Dial's) and that no request uses any longer: its owner
// closes it then. retire is called with no lock held, on the goroutine
// of the request that ended last or of the dial that replaced it; it
// should not block long. Set it before serving.
func (f *Forwarder) SetRetire(retire func(*protocol.Session)) {
	f.retire = retire
}

// acquire is the target a request is served by (once there is one),
// kept from being retired until f.release(t) is called, once.
func (f *Forwarder) acquire(ctx context.Context) (*protocol.Session, error) {
	select {
	case <-f.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.uses[f.target]++
	return f.target, nil
}

// release ends one request's use of t, and retires t when that was the
// last use of a replaced target.
func (f *Forwarder) release(t *protocol.Session) {
	f.mu.Lock()
	f.uses[t]--
	idle := f.uses[t] == 0
	if idle {
		delete(f.uses, t)
	}
	replaced := t != f.target
	f.mu.Unlock()
	if idle && replaced {
		f.retired(t)
	}
}

// retired hands t, replaced and unused, to its owner.
func (f *Forwarder) retired(t *protocol.Session) {
	if f.retire != nil && t != nil {
		f.retire(t)
	}
}
