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
	end    context.CancelCauseFunc // ends the stream, unanswered
}

type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs are the tasks whose notifications/tasks the client wants
	// (the Tasks extension, io.modelcontextprotocol/tasks).
	TaskIDs []string `json:"taskIds,omitempty"`
}

// A TaskStater is a Handler that keeps tasks (the Tasks extension): a
// subscriptions/listen that names taskIds is acknowledged for the tasks
// it knows, each followed by one notifications/tasks with the task's
// state, and a Broadcast of notifications/tasks reaches the streams
// that named its taskId.
type TaskStater interface {
	// TaskState is the task's current DetailedTask (what tasks/get
	// answers, without resultType); false when id is no task it knows.
	TaskState(id string) (state any, ok bool)
}

// ExtTasks is the Tasks extension's identifier.
const ExtTasks = "io.modelcontextprotocol/tasks"

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
	case "notifications/tasks":
		return slices.Contains(f.TaskIDs, uri)
	}
	return false
}

// hub holds the open subscriptions of a session.
type hub struct {
	mu   sync.Mutex
	subs map[*subscription]bool
}

// endAll ends every open stream, unanswered: the client closed its
// input, so no notification is owed and no stream must hold the stop.
func (h *hub) endAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for sub := range h.subs {
		sub.end(ErrCancelled)
	}
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
		URI    string `json:"uri"`
		TaskID string `json:"taskId"`
	}
	if raw, err := json.Marshal(params); err == nil {
		_ = json.Unmarshal(raw, &in)
	}
	about := in.URI
	if method == "notifications/tasks" {
		about = in.TaskID
	}
	s.hub.mu.Lock()
	var to []*subscription
	for sub := range s.hub.subs {
		if sub.wants(method, about) {
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
	tasks, err := s.listenTasks(ctx, ack.TaskIDs)
	if err != nil {
		return nil, err
	}
	ack.TaskIDs = nil
	for _, t := range tasks {
		ack.TaskIDs = append(ack.TaskIDs, t.id)
	}
	ctx, end := context.WithCancelCause(ctx)
	defer end(nil)
	sub := &subscription{id: req.ID, filter: ack, p: p, end: end}
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
	if f := s.srv.opts.Listened; f != nil && len(ack.ResourceSubscriptions) > 0 {
		if ended := f(slices.Clone(ack.ResourceSubscriptions)); ended != nil {
			defer ended()
		}
	}
	if err := p.Notify(ctx, "notifications/subscriptions/acknowledged", withSubscription(map[string]any{"notifications": ack}, req.ID)); err != nil {
		return nil, err
	}
	for _, u := range ack.ResourceSubscriptions {
		// A subscription starts with the resource's state: one update.
		_ = p.Notify(ctx, "notifications/resources/updated", withSubscription(map[string]any{"uri": u}, req.ID))
	}
	for _, t := range tasks {
		// And with each task's state, so that a change that came before
		// the subscription is not missed.
		_ = p.Notify(ctx, "notifications/tasks", withSubscription(t.state, req.ID))
	}
	<-ctx.Done()
	if errors.Is(context.Cause(ctx), ErrCancelled) {
		return nil, ErrCancelled
	}
	return nil, ctx.Err()
}

// A listenTask is a task a subscription acknowledges, and its state.
type listenTask struct {
	_ [0]func() // not comparable: no equality function in the binary

	id    string
	state any
}

// maxListenTasks bounds the taskIds one subscription acknowledges.
const maxListenTasks = 256

// listenTasks are the tasks of ids the handler knows, with their states.
// Asking for any without the Tasks extension declared is -32021, as the
// extension says.
func (s *Session) listenTasks(ctx context.Context, ids []string) ([]listenTask, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if mr := Modern(ctx); mr == nil || mr.Caps.Extensions[ExtTasks] == nil {
		e := jsonrpc.NewError(CodeMissingCapability, "Missing required client capability")
		e.Data = json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + ExtTasks + `":{}}}}`)
		return nil, e
	}
	ts, ok := s.h.(TaskStater)
	if !ok {
		return nil, nil
	}
	var out []listenTask
	for _, id := range ids {
		if len(out) == maxListenTasks || slices.ContainsFunc(out, func(t listenTask) bool { return t.id == id }) {
			continue
		}
		if state, ok := ts.TaskState(id); ok {
			out = append(out, listenTask{id: id, state: state})
		}
	}
	return out, nil
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
