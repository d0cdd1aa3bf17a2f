package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// subscriptions/listen (2026-07-28/basic/patterns/subscriptions.mdx): in
// the modern era the change notifications a client wants (list changes,
// updates of subscribed resources) come on the answer stream of one
// long-lived subscriptions/listen request, which replaces the GET stream
// and resources/subscribe. The session opens it for the list changes its
// Options have callbacks for (and the server announces), adds the
// resources subscribed to, and opens it again, with the new filter, when
// that set changes. A stream that breaks is opened again with a backoff; a
// subscription the server ends with its response is not.

// A listenFilter is the notifications member of subscriptions/listen and
// of its acknowledgment.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	TaskIDs               []string `json:"taskIds,omitempty"` // the Tasks extension's notifications/tasks
}

func (f *listenFilter) empty() bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0 && len(f.TaskIDs) == 0
}

// The backoff of a listen stream opened again after it broke.
const (
	minListenBackoff = time.Second
	maxListenBackoff = 30 * time.Second
)

// A listener is one subscriptions/listen request and the goroutine that
// keeps it open.
type listener struct {
	filter listenFilter
	cancel context.CancelFunc
	done   chan struct{} // closed when its goroutine ends

	// guarded by Session.mu
	id    jsonrpc.ID    // of the request now open
	acked chan struct{} // closed once the request now open is acknowledged
	ack   *listenFilter // what the server agreed to
}

// ackLocked takes the acknowledgment of the request now open; only the
// first one counts. Called with Session.mu held.
func (l *listener) ackLocked(ack *listenFilter) {
	if l.ack == nil {
		l.ack = ack
		close(l.acked)
	}
}

// listenFilter returns the filter the session wants now: the list changes
// it has callbacks for and the server announces, and the subscribed
// resources. Called with s.mu held.
func (s *Session) wantedFilter() listenFilter {
	var f listenFilter
	c := &s.init.Capabilities
	o := &s.opts
	f.ToolsListChanged = o.OnToolsChanged != nil && c.Tools != nil && c.Tools.ListChanged
	f.PromptsListChanged = o.OnPromptsChanged != nil && c.Prompts != nil && c.Prompts.ListChanged
	f.ResourcesListChanged = o.OnResourcesChanged != nil && c.Resources != nil && c.Resources.ListChanged
	for uri := range s.mod.subs {
		f.ResourceSubscriptions = append(f.ResourceSubscriptions, uri)
	}
	sort.Strings(f.ResourceSubscriptions)
	for id := range s.mod.taskWatch {
		f.TaskIDs = append(f.TaskIDs, id)
	}
	sort.Strings(f.TaskIDs)
	return f
}

// startListening opens the listen stream when the session wants one, and
// waits (at most the session's timeout, or until ctx ends) for the
// server's acknowledgment, so that no change after Connect returns is
// missed. A stream not acknowledged by then goes on trying.
func (s *Session) startListening(ctx context.Context) {
	s.mu.Lock()
	l := s.relistenLocked()
	var acked chan struct{}
	if l != nil {
		acked = l.acked
	}
	s.mu.Unlock()
	if l == nil {
		return
	}
	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case <-acked:
	case <-l.done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// relistenLocked replaces the listen stream with one for the filter the
// session wants now (none when it wants nothing), and returns it. Called
// with s.mu held.
func (s *Session) relistenLocked() *listener {
	if old := s.mod.listen; old != nil {
		old.cancel()
		s.mod.listen = nil
	}
	f := s.wantedFilter()
	if f.empty() || s.life == nil || s.life.Err() != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(s.life)
	l := &listener{filter: f, cancel: cancel, done: make(chan struct{}), acked: make(chan struct{})}
	s.mod.listen = l
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		defer close(l.done)
		s.listenLoop(ctx, l)
	}()
	return l
}

// listenLoop keeps l's subscriptions/listen request open until ctx ends,
// the session closes, or the server ends the subscription.
func (s *Session) listenLoop(ctx context.Context, l *listener) {
	backoff := minListenBackoff
	params := map[string]any{"notifications": l.filter}
	for ctx.Err() == nil {
		sc, err := s.startCall(ctx, &request{method: "subscriptions/listen", params: params, endless: true})
		if err == nil {
			s.mu.Lock()
			if l.ack != nil {
				// An earlier request was acknowledged after it failed:
				// this one starts unacknowledged.
				l.ack, l.acked = nil, make(chan struct{})
			}
			l.id = sc.pending.ID()
			if ack, ok := s.mod.earlyAcks[l.id]; ok {
				l.ackLocked(ack)
			}
			clear(s.mod.earlyAcks)
			s.mu.Unlock()
			_, err = sc.wait()
			if err == nil {
				return // the server ended the subscription
			}
		}
		if ctx.Err() != nil || s.conn.Err() != nil {
			return
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeMethodNotFound {
			return // no subscriptions on this server
		}
		s.mu.Lock()
		acked := l.ack != nil
		if acked {
			l.ack = nil
			l.acked = make(chan struct{})
		}
		s.mu.Unlock()
		if acked {
			backoff = minListenBackoff
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		backoff = min(2*backoff, maxListenBackoff)
	}
}

// acknowledged takes notifications/subscriptions/acknowledged, on the
// reader goroutine.
func (s *Session) acknowledged(params json.RawMessage) {
	var p struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications listenFilter               `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var id jsonrpc.ID
	if json.Unmarshal(p.Meta[metaSubscriptionID], &id) != nil || !id.IsValid() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.mod.listen; l != nil && l.id == id {
		ack := p.Notifications
		l.ackLocked(&ack)
		return
	}
	// The request may not be known as sent yet: keep it for a moment.
	if s.mod.earlyAcks == nil {
		s.mod.earlyAcks = map[jsonrpc.ID]*listenFilter{}
	}
	if len(s.mod.earlyAcks) < 16 {
		ack := p.Notifications
		s.mod.earlyAcks[id] = &ack
	}
}

// subscribeModern adds (or with add false removes) a resource
// subscription and waits until the server acknowledged the new filter.
func (s *Session) subscribeModern(ctx context.Context, method, uri string, add bool) error {
	s.mu.Lock()
	if s.mod.subs == nil {
		s.mod.subs = map[string]bool{}
	}
	if add == s.mod.subs[uri] {
		s.mu.Unlock()
		return nil
	}
	if add {
		s.mod.subs[uri] = true
	} else {
		delete(s.mod.subs, uri)
	}
	l := s.relistenLocked()
	if l == nil {
		s.mu.Unlock()
		return nil // nothing to listen for any more
	}
	acked := l.acked
	s.mu.Unlock()
	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case <-acked:
	case <-l.done:
		return &MethodError{Method: method, Err: errors.New("the subscriptions/listen stream ended before the server acknowledged it")}
	case <-ctx.Done():
		return &MethodError{Method: method, Err: ctx.Err()}
	case <-t.C:
		return &TimeoutError{Method: method, Timeout: s.timeout}
	}
	s.mu.Lock()
	ack := l.ack
	s.mu.Unlock()
	if add && (ack == nil || !slices.Contains(ack.ResourceSubscriptions, uri)) {
		return &MethodError{Method: method, Err: fmt.Errorf("the server did not accept the subscription to %s", quoteShort(uri))}
	}
	return nil
}
