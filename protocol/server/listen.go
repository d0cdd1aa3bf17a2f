package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A subscription is an open subscriptions/listen request.
type subscription struct {
	id     jsonrpc.ID
	filter listenFilter
	p      Peer
}

type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// wants reports whether the subscription asked for method about uri.
func (sub *subscription) wants(method, uri string) bool {
	f := &sub.filter
	switch method {
	case "notifications/tools/list_changed":
		return f.ToolsListChanged
	case "notifications/prompts/list_changed":
		return f.PromptsListChanged
	case "notifications/resources/list_changed":
		return f.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(f.ResourceSubscriptions, uri)
	}
	return false
}

// hub holds the open subscriptions of a session.
type hub struct {
	mu   sync.Mutex
	subs map[*subscription]bool
}

// withSubscription adds the subscription id to params' _meta.
func withSubscription(params any, id jsonrpc.ID) map[string]any {
	var m map[string]any
	if raw, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(raw, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	meta, _ := m["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[MetaSubscriptionID] = id
	m["_meta"] = meta
	return m
}

// Broadcast sends a change notification (list_changed, resources/updated)
// to every modern subscription that asked for it.
func (s *Session) Broadcast(ctx context.Context, method string, params any) {
	s.broadcast(ctx, method, params)
}

func (s *Session) broadcast(ctx context.Context, method string, params any) {
	var in struct {
		URI string `json:"uri"`
	}
	if raw, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(raw, &in)
	}
	s.hub.mu.Lock()
	var to []*subscription
	for sub := range s.hub.subs {
		if sub.wants(method, in.URI) {
			to = append(to, sub)
		}
	}
	s.hub.mu.Unlock()
	sort.Slice(to, func(i, j int) bool { return to[i].id.String() < to[j].id.String() })
	for _, sub := range to {
		_ = sub.p.Notify(context.WithoutCancel(ctx), method, withSubscription(params, sub.id))
	}
}

// listen serves subscriptions/listen: the acknowledgment with what is
// honoured, then the notifications asked for, until the client cancels
// (stdio) or closes the stream (HTTP).
func (s *Session) listen(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	var in struct {
		Notifications listenFilter `json:"notifications"`
	}
	if err := Decode(req.Params, &in); err != nil {
		return nil, err
	}
	ack := in.Notifications
	known := s.srv.opts.KnownResource
	ack.ResourceSubscriptions = slices.DeleteFunc(slices.Clone(ack.ResourceSubscriptions), func(u string) bool { return known == nil || !known(u) })
	sub := &subscription{id: req.ID, filter: ack, p: p}
	s.hub.mu.Lock()
	if s.hub.subs == nil {
		s.hub.subs = map[*subscription]bool{}
	}
	s.hub.subs[sub] = true
	s.hub.mu.Unlock()
	defer func() {
		s.hub.mu.Lock()
		delete(s.hub.subs, sub)
		s.hub.mu.Unlock()
	}()
	if err := p.Notify(ctx, "notifications/subscriptions/acknowledged", withSubscription(map[string]any{"notifications": ack}, req.ID)); err != nil {
		return nil, err
	}
	for _, u := range ack.ResourceSubscriptions {
		// A subscription starts with the resource's state: one update.
		_ = p.Notify(ctx, "notifications/resources/updated", withSubscription(map[string]any{"uri": u}, req.ID))
	}
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), ErrCancelled) {
		return nil, ErrCancelled
	}
	return nil, ctx.Err()
}

// listening reports whether id is an open subscription's request.
func (s *Session) listening(id jsonrpc.ID) bool {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	for sub := range s.hub.subs {
		if sub.id == id {
			return true
		}
	}
	return false
}

// Listening counts the open subscriptions.
func (s *Session) Listening() int {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return len(s.hub.subs)
}
