package server

// What the forwarder declares to its target: the capabilities its hosts
// declared (2025-11-25/basic/lifecycle.mdx, "Capability Negotiation":
// both parties only use capabilities that were negotiated), never more.
// With a Dial, the target is connected when the first host says what it
// declares (its initialize, its server/discover or its first modern
// request), declaring that; a legacy target is connected again,
// declaring the union, when a later host declares more. A modern target
// gets each request's host's capabilities in that request's _meta
// (2026-07-28/basic/index.mdx, per-request protocol fields).

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/protocol"
)

// A Dial connects the forwarder's target declaring caps (a capabilities
// object, for protocol.Options.Declare). Its session replaces the one
// before for every request from then on; the one before keeps serving
// the requests that took it, and the Dial's owner closes it when the
// forwarder hands it to the function of SetRetire.
type Dial func(ctx context.Context, caps json.RawMessage) (*protocol.Session, error)

// SetDial has the forwarder connect its target itself, lazily, declaring
// what its hosts declared: instead of Attach. Set it before serving.
func (f *Forwarder) SetDial(d Dial) {
	f.dial = d
	f.dialing = make(chan struct{}, 1)
}

// hello is told what a host declared: the target is connected (or
// connected again, a legacy one, declaring the union) unless what it
// was declared covers caps.
func (f *Forwarder) hello(ctx context.Context, caps ClientCaps) error {
	if f.dial == nil || f.covered(caps) {
		return nil
	}
	caps = objectCaps(caps)
	select {
	case f.dialing <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-f.dialing }()
	if f.covered(caps) { // another host's dial declared it meanwhile
		return nil
	}
	f.mu.Lock()
	want, old := caps, f.target
	if old != nil {
		want = unionCaps(f.declared, caps)
	}
	f.mu.Unlock()
	t, err := f.dial(ctx, MustJSON(want))
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.target, f.declared = t, want
	f.tools = nil
	f.toolsGen++
	var retire *protocol.Session
	if old != nil {
		retire = f.replacedLocked(old)
	}
	f.mu.Unlock()
	if old == nil {
		close(f.ready)
		return nil
	}
	f.retired(retire)
	f.reconnected(t)
	return nil
}

// covered reports whether the target was connected declaring caps: a
// modern target is told each request's (carry).
func (f *Forwarder) covered(caps ClientCaps) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.target
	return t != nil && (t.Era() == protocol.EraModern || coversCaps(f.declared, caps))
}

// reconnected tells the hosts that the target (connected again) may
// list otherwise, and makes the hosts' subscriptions on it.
func (f *Forwarder) reconnected(t *protocol.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), ReleaseTimeout)
	defer cancel()
	for _, uri := range f.subs.Held() {
		_ = t.Subscribe(ctx, uri)
	}
	go func() {
		for _, kind := range []string{"tools", "prompts", "resources"} {
			f.notifyAll("notifications/"+kind+"/list_changed", nil)
		}
	}()
}

// carry is ctx declaring, to a modern target, the capabilities of the
// host whose request it serves, when they are not what the target's
// session declares.
func (f *Forwarder) carry(ctx context.Context, t *protocol.Session, s *Session) context.Context {
	if f.dial == nil || t.Era() != protocol.EraModern {
		return ctx
	}
	var caps ClientCaps
	if mr := Modern(ctx); mr != nil {
		caps = mr.Caps
	} else {
		caps = s.Capabilities()
	}
	f.mu.Lock()
	same := sameCaps(f.declared, caps)
	f.mu.Unlock()
	if same {
		return ctx
	}
	return protocol.WithDeclared(ctx, MustJSON(caps))
}

// sameCaps reports whether a and b declare the same.
func sameCaps(a, b ClientCaps) bool {
	if !sameRaw(a.Roots, b.Roots) || !sameRaw(a.Sampling, b.Sampling) || !sameRaw(a.Elicitation, b.Elicitation) || len(a.Extensions) != len(b.Extensions) {
		return false
	}
	for k, v := range a.Extensions {
		if w, ok := b.Extensions[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func sameRaw(a, b *json.RawMessage) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(*a, *b)
}

// coversCaps reports whether declaring have declares all of caps.
func coversCaps(have, caps ClientCaps) bool {
	if sameCaps(have, caps) {
		return true
	}
	if !coversRaw(have.Roots, caps.Roots) || !coversRaw(have.Sampling, caps.Sampling) || !coversRaw(have.Elicitation, caps.Elicitation) {
		return false
	}
	for k := range caps.Extensions {
		if _, ok := have.Extensions[k]; !ok {
			return false
		}
	}
	return true
}

// coversRaw reports whether the capability object have declares all
// that c does (nil: undeclared): each of its members (a sub-capability,
// or a flag such as listChanged), whatever its value, so that hosts
// that differ in a value do not have the target connected again and
// again.
func coversRaw(have, c *json.RawMessage) bool {
	if c == nil {
		return true
	}
	if have == nil {
		return false
	}
	var hm, cm map[string]json.RawMessage
	_ = json.Unmarshal(*c, &cm)
	_ = json.Unmarshal(*have, &hm)
	for k := range cm {
		if _, ok := hm[k]; !ok {
			return false
		}
	}
	return true
}

// objectCaps is caps without the capabilities that are not objects
// (what no client may declare, and no Dial declares).
func objectCaps(caps ClientCaps) ClientCaps {
	obj := func(r *json.RawMessage) *json.RawMessage {
		if r == nil || len(bytes.TrimLeft(*r, " \t\r\n")) == 0 || bytes.TrimLeft(*r, " \t\r\n")[0] != '{' {
			return nil
		}
		return r
	}
	out := ClientCaps{Roots: obj(caps.Roots), Sampling: obj(caps.Sampling), Elicitation: obj(caps.Elicitation)}
	for k, v := range caps.Extensions {
		if o := obj(&v); o != nil {
			if out.Extensions == nil {
				out.Extensions = map[string]json.RawMessage{}
			}
			out.Extensions[k] = v
		}
	}
	return out
}

// unionCaps is what a and b declare: each capability of either, with the
// members of both where both declare it (a member of both, a's: what
// was declared stays).
func unionCaps(a, b ClientCaps) ClientCaps {
	u := ClientCaps{Roots: unionRaw(a.Roots, b.Roots), Sampling: unionRaw(a.Sampling, b.Sampling), Elicitation: unionRaw(a.Elicitation, b.Elicitation)}
	if len(a.Extensions)+len(b.Extensions) > 0 {
		u.Extensions = map[string]json.RawMessage{}
		for k, v := range a.Extensions {
			u.Extensions[k] = v
		}
		for k, v := range b.Extensions {
			if _, ok := u.Extensions[k]; !ok {
				u.Extensions[k] = v
			}
		}
	}
	return u
}

// unionRaw merges two capability objects' members (nil: undeclared).
func unionRaw(a, b *json.RawMessage) *json.RawMessage {
	if a == nil || b == nil {
		if a == nil {
			return b
		}
		return a
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(*a, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var n map[string]json.RawMessage
	_ = json.Unmarshal(*b, &n)
	for k, v := range n {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	raw := MustJSON(m)
	return &raw
}

// RootsChanged passes a host's notifications/roots/list_changed on to
// the target (declared roots.listChanged when the host did).
func (fs *forwardSession) RootsChanged() { fs.f.rootsChanged() }

// rootsChanged tells the target that the roots changed, off the host's
// reader: notifications that come while one is sent are told once more,
// together, so that what waits is bounded (a flag, not a queue).
func (f *Forwarder) rootsChanged() {
	f.rootsAgain.Store(true)
	if !f.rootsBusy.CompareAndSwap(false, true) {
		return
	}
	go func() {
		for {
			for f.rootsAgain.Swap(false) {
				f.notifyRoots()
			}
			f.rootsBusy.Store(false)
			if !f.rootsAgain.Load() || !f.rootsBusy.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// notifyRoots sends notifications/roots/list_changed to the target, if
// it is connected (a modern one has no such notification).
func (f *Forwarder) notifyRoots() {
	f.mu.Lock()
	t := f.target
	f.mu.Unlock()
	if t == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), ReleaseTimeout)
	defer cancel()
	_ = t.NotifyRootsChanged(ctx)
}
