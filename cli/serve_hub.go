package cli

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// A serveHub holds the host sessions of serve, to tell them of changes
// and to ask them what the servers behind ask.
type serveHub struct {
	relay *mcpserver.InputRelay // modern hosts' requests the servers ask input of

	subs *mcpserver.Subscriptions // who holds which resource subscription

	mu    sync.Mutex
	hosts map[*mcpserver.Session]*serveHost
}

// A serveHost is one host session: the peer of its last legacy request
// (nil for the modern era, whose notices go to its subscriptions).
type serveHost struct {
	peer mcpserver.Peer
}

func (h *serveHub) add(s *mcpserver.Session) { h.peer(s, nil, context.Background()) }

// remove forgets s, a session that ended.
func (h *serveHub) remove(s *mcpserver.Session) {
	h.mu.Lock()
	delete(h.hosts, s)
	h.mu.Unlock()
}

// sessions returns the host sessions there are.
func (h *serveHub) sessions() []*mcpserver.Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*mcpserver.Session, 0, len(h.hosts))
	for s := range h.hosts {
		out = append(out, s)
	}
	return out
}

// host is s's entry; h.mu is held.
func (h *serveHub) host(s *mcpserver.Session) *serveHost {
	if h.hosts == nil {
		h.hosts = map[*mcpserver.Session]*serveHost{}
	}
	e := h.hosts[s]
	if e == nil {
		e = &serveHost{}
		h.hosts[s] = e
	}
	return e
}

// peer records p, the peer of a legacy request of s.
func (h *serveHub) peer(s *mcpserver.Session, p mcpserver.Peer, ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.host(s)
	if p != nil && mcpserver.Modern(ctx) == nil {
		e.peer = p
	}
}

// snapshot copies the hosts, to send to them without the lock.
func (h *serveHub) snapshot() map[*mcpserver.Session]serveHost {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[*mcpserver.Session]serveHost, len(h.hosts))
	for s, e := range h.hosts {
		out[s] = *e
	}
	return out
}

// serveLists are the list_changed notifications serve sends when what a
// server offers changed (the manager does not say which list: a host
// lists each again, which costs it a request and gives it the truth).
var serveLists = [...]string{"notifications/tools/list_changed", "notifications/resources/list_changed", "notifications/prompts/list_changed"}

// changed sends each list_changed to every host session.
func (h *serveHub) changed() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for s, e := range h.snapshot() {
		for _, method := range serveLists {
			s.Broadcast(ctx, method, nil)
			if e.peer != nil {
				_ = e.peer.Notify(ctx, method, nil)
			}
		}
	}
}

// updated tells the host sessions subscribed to uri that it changed.
func (h *serveHub) updated(uri string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params := map[string]any{"uri": uri}
	for s, e := range h.snapshot() {
		s.Broadcast(ctx, "notifications/resources/updated", params)
		if e.peer != nil && h.subs.Holds(s, uri) {
			_ = e.peer.Notify(ctx, "notifications/resources/updated", params)
		}
	}
}

// hostKey is the context key of the host session that made a request.
type hostKey struct{}

type hostOf struct {
	_ [0]func() // not comparable: no equality function in the binary

	s *mcpserver.Session
	p mcpserver.Peer
}

// withHost notes in ctx the host session s (and p) that sent a request.
func withHost(ctx context.Context, s *mcpserver.Session, p mcpserver.Peer) context.Context {
	return context.WithValue(ctx, hostKey{}, hostOf{s: s, p: p})
}

// ask sends a server's request (elicitation, sampling, roots) to a host that can
// answer it: the one whose request it serves when ctx says so (a modern
// host gets it as an input request; a legacy session that declared the
// capability as a request), else the one modern request running, else
// the first legacy session that declared it.
func (h *serveHub) ask(ctx context.Context, method string, params, out any) error {
	if raw, asked, err := h.relay.Ask(ctx, method, params); asked {
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, out)
	}
	declared := func(c mcpserver.ClientCaps) bool {
		switch method {
		case "sampling/createMessage":
			return c.Sampling != nil
		case "roots/list":
			return c.Roots != nil
		}
		return c.Elicitation != nil
	}
	var peer mcpserver.Peer
	if at, ok := ctx.Value(hostKey{}).(hostOf); ok && mcpserver.Modern(ctx) == nil && at.s.Version() != "" && at.s.Declared(ctx, declared) {
		peer = at.p
	}
	for s, e := range h.snapshot() {
		if peer == nil && e.peer != nil && s.Version() != "" && s.Declared(context.Background(), declared) {
			peer = e.peer
		}
	}
	if peer == nil {
		return mcpserver.Errorf(mcpserver.CodeMethodNotFound, "%s: no host of mcpwire serve can answer it (none declared the capability in a legacy session)", method)
	}
	raw, err := peer.Call(ctx, method, params)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
