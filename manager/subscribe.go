package manager

import (
	"context"
	"maps"
	"slices"
)

// Subscribe asks the server named server to tell when the resource uri
// changes; Options.OnResourceUpdated hears of it. In the legacy era this
// is resources/subscribe, in the 2026-07-28 era a member of the session's
// subscriptions/listen request. The subscription is the Manager's, not
// the session's: when the server reconnects (a crash, Restart, an expired
// session) it is made again on the new session. The server must declare
// resources.subscribe. Like ReadResource, it starts the server first when
// needed (within ctx); the error is a *ServerError.
func (m *Manager) Subscribe(ctx context.Context, server, uri string) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	s.mu.Lock()
	had := s.subs[uri]
	if s.subs == nil {
		s.subs = make(map[string]bool)
	}
	s.subs[uri] = true
	s.mu.Unlock()
	err = s.use(ctx, PhaseCall, func(c *Conn) error { return c.Subscribe(ctx, uri) })
	if err != nil && !had {
		s.mu.Lock()
		delete(s.subs, uri)
		s.mu.Unlock()
	}
	return err
}

// Unsubscribe ends a subscription made with Subscribe. The Manager forgets
// it at once; the server is told when it is connected (an error telling
// it is returned, the subscription is gone either way).
func (m *Manager) Unsubscribe(ctx context.Context, server, uri string) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	s.mu.Lock()
	had := s.subs[uri]
	delete(s.subs, uri)
	conn := s.conn
	s.mu.Unlock()
	if !had || conn == nil {
		return nil
	}
	return s.use(ctx, PhaseCall, func(c *Conn) error { return c.Unsubscribe(ctx, uri) })
}

// Subscriptions returns the resource URIs subscribed to on the server
// named server, sorted.
func (m *Manager) Subscriptions(server string) []string {
	s, err := m.server(server)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.subs))
}

// resourceUpdated is the session's OnResourceUpdated: a change of a
// resource the agent subscribed to goes to Options.OnResourceUpdated,
// through the dispatcher. It runs on the session's reader goroutine.
func (s *server) resourceUpdated(uri string) {
	f := s.m.opts.OnResourceUpdated
	if f == nil {
		return
	}
	s.mu.Lock()
	want := s.subs[uri]
	s.mu.Unlock()
	if !want {
		return
	}
	name := s.def.Name
	s.m.events.post(name, "updated "+uri, func() { f(name, uri) })
}

// resubscribe makes the Manager's subscriptions again on a new session,
// within the server's startup budget. A failure is logged; the
// subscription is kept for the next session.
func (s *server) resubscribe(conn *Conn, uris []string) {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.startupBudget())
	defer cancel()
	for _, uri := range uris {
		if err := conn.Subscribe(ctx, uri); err != nil {
			s.m.logf(s.def.Name, "%s: subscribing again to %s: %v", s.def.Name, uri, conn.Explain(PhaseCall, err))
		}
	}
}
