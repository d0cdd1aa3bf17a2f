package server

// The subscriptions of a bridge (serve, proxy): which hosts hold a
// subscription to each resource, so that the one upstream is made while
// any host holds it and ended when the last one lets it go.

import (
	"context"
	"slices"
	"sync"
	"time"
)

// ReleaseTimeout bounds the unsubscriptions upstream of a host session
// or a listen stream that ended.
const ReleaseTimeout = 5 * time.Second

// Upstream is where a bridge's subscriptions go: its server(s). An
// error of Subscribe is the host's answer; one of Unsubscribe is
// dropped (the host's subscription ended either way).
type Upstream struct {
	Subscribe   func(ctx context.Context, uri string) error
	Unsubscribe func(ctx context.Context, uri string) error
}

// Subscriptions counts the holders of each resource subscription: the
// legacy host sessions that sent resources/subscribe, and the modern
// subscriptions/listen streams open. The zero value is not usable: make
// it with NewSubscriptions.
type Subscriptions struct {
	up Upstream

	mu       sync.Mutex
	sessions map[*Session]map[string]bool
	listens  map[*listenHold]bool
}

// A listenHold is what one modern subscriptions/listen stream holds.
type listenHold struct{ uris []string }

// NewSubscriptions returns the bookkeeping of subscriptions made on up.
func NewSubscriptions(up Upstream) *Subscriptions {
	return &Subscriptions{up: up, sessions: map[*Session]map[string]bool{}, listens: map[*listenHold]bool{}}
}

// Subscribe is s's resources/subscribe of uri: noted first (the server
// may say the resource changed before its answer comes), then made
// upstream; forgotten again when that fails.
func (t *Subscriptions) Subscribe(ctx context.Context, s *Session, uri string) error {
	t.set(s, uri, true)
	if err := t.up.Subscribe(ctx, uri); err != nil {
		t.set(s, uri, false)
		return err
	}
	return nil
}

// Unsubscribe is s's resources/unsubscribe of uri: ended upstream only
// when no other host holds it.
func (t *Subscriptions) Unsubscribe(ctx context.Context, s *Session, uri string) {
	if t.set(s, uri, false) == 0 {
		t.drop(ctx, uri)
	}
}

// Holds reports whether s subscribed to uri (a legacy host is told of
// updates of what it holds).
func (t *Subscriptions) Holds(s *Session, uri string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[s][uri]
}

// Release forgets s, a host session that ended (stdio EOF, an HTTP
// session's DELETE or expiry), and ends upstream the subscriptions it
// held that no other host holds.
func (t *Subscriptions) Release(s *Session) {
	t.mu.Lock()
	subs := t.sessions[s]
	delete(t.sessions, s)
	var last []string
	for uri := range subs {
		if t.holders(uri) == 0 {
			last = append(last, uri)
		}
	}
	t.mu.Unlock()
	t.dropAll(last)
}

// Listened is an Options.Listened: it subscribes upstream to the
// resources a modern host's subscriptions/listen asks for (an error,
// such as a resource no server offers, leaves that one alone) and
// returns what ends them when the stream ends, unless another host
// holds them.
func (t *Subscriptions) Listened(uris []string) func() {
	l := &listenHold{uris: uris}
	t.mu.Lock()
	t.listens[l] = true
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ReleaseTimeout)
	defer cancel()
	for _, uri := range uris {
		_ = t.up.Subscribe(ctx, uri)
	}
	return func() {
		t.mu.Lock()
		delete(t.listens, l)
		var last []string
		for _, uri := range l.uris {
			if t.holders(uri) == 0 {
				last = append(last, uri)
			}
		}
		t.mu.Unlock()
		t.dropAll(last)
	}
}

// set adds or removes uri from s's subscriptions and returns how many
// holders uri has now.
func (t *Subscriptions) set(s *Session, uri string, on bool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	subs := t.sessions[s]
	if subs == nil {
		subs = map[string]bool{}
		t.sessions[s] = subs
	}
	if on {
		subs[uri] = true
	} else {
		delete(subs, uri)
	}
	return t.holders(uri)
}

// holders counts the host sessions and listen streams that hold uri;
// t.mu is held.
func (t *Subscriptions) holders(uri string) int {
	n := 0
	for _, subs := range t.sessions {
		if subs[uri] {
			n++
		}
	}
	for l := range t.listens {
		if slices.Contains(l.uris, uri) {
			n++
		}
	}
	return n
}

// dropAll ends upstream each of uris, bounded by ReleaseTimeout.
func (t *Subscriptions) dropAll(uris []string) {
	if len(uris) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), ReleaseTimeout)
	defer cancel()
	for _, uri := range uris {
		t.drop(ctx, uri)
	}
}

// drop ends the subscription to uri upstream, one no host holds any
// more. A host that subscribed to it in the meantime (its answer may
// have come before this one's) gets it again.
func (t *Subscriptions) drop(ctx context.Context, uri string) {
	_ = t.up.Unsubscribe(ctx, uri)
	t.mu.Lock()
	n := t.holders(uri)
	t.mu.Unlock()
	if n > 0 {
		_ = t.up.Subscribe(ctx, uri)
	}
}

// Held lists the resources some host holds (a bridge that connected to
// its server again subscribes to them there).
func (t *Subscriptions) Held() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var uris []string
	for _, subs := range t.sessions {
		for uri := range subs {
			if !slices.Contains(uris, uri) {
				uris = append(uris, uri)
			}
		}
	}
	for l := range t.listens {
		for _, uri := range l.uris {
			if !slices.Contains(uris, uri) {
				uris = append(uris, uri)
			}
		}
	}
	return uris
}
