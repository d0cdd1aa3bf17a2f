package server

// A legacy target connected again (forward_caps.go) replaces the one
// before for each request from then on, but a request that took the one
// before (a tool call still running, a server request it is waiting on)
// keeps it: the one before is retired, handed to the function of
// SetRetire, when the last request using it ends, never while one runs.
// A request's use ends with the request, whose own timeout or the host's
// cancellation bounds it. Hosts that keep declaring more could keep
// replacing targets whose requests run on: at most maxDraining replaced
// targets wait for their requests, and past that the oldest is retired
// at once (its requests fail, as a target that ends does).

import (
	"context"
	"slices"

	"github.com/mcpwire/mcpwire/protocol"
)

// maxDraining bounds the replaced targets kept for the requests still
// using them.
const maxDraining = 4

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
// last use of a replaced target still draining.
func (f *Forwarder) release(t *protocol.Session) {
	f.mu.Lock()
	f.uses[t]--
	drained := false
	if f.uses[t] == 0 {
		delete(f.uses, t)
		if i := slices.Index(f.draining, t); i >= 0 {
			f.draining = slices.Delete(f.draining, i, i+1)
			drained = true
		}
	}
	f.mu.Unlock()
	if drained {
		f.retired(t)
	}
}

// replacedLocked notes, f.mu held, that old is no longer the target, and
// returns what to retire at once: old when no request uses it, else the
// oldest replaced target still in use once more than maxDraining are.
func (f *Forwarder) replacedLocked(old *protocol.Session) *protocol.Session {
	if f.uses[old] == 0 {
		return old
	}
	f.draining = append(f.draining, old)
	if len(f.draining) <= maxDraining {
		return nil
	}
	first := f.draining[0]
	f.draining = slices.Delete(f.draining, 0, 1)
	return first
}

// retired hands t, replaced and unused (or the oldest past the bound),
// to its owner.
func (f *Forwarder) retired(t *protocol.Session) {
	if f.retire != nil && t != nil {
		f.retire(t)
	}
}
