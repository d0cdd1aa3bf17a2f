package protocol

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// notify delivers one server notification; it runs on the reader
// goroutine.
func (s *Session) notify(req *jsonrpc.Request) {
	o := &s.opts
	if req.Method == "notifications/subscriptions/acknowledged" {
		// The session's own subscription machinery, not news for the
		// caller.
		s.acknowledged(req.Params)
		return
	}
	if o.OnNotification != nil {
		o.OnNotification(req.Method, req.Params)
	}
	switch req.Method {
	case "notifications/tools/list_changed":
		s.stale("tools/list")
		if o.OnToolsChanged != nil {
			o.OnToolsChanged()
		}
	case "notifications/resources/list_changed":
		s.stale("resources/list", "resources/templates/list")
		if o.OnResourcesChanged != nil {
			o.OnResourcesChanged()
		}
	case "notifications/prompts/list_changed":
		s.stale("prompts/list")
		if o.OnPromptsChanged != nil {
			o.OnPromptsChanged()
		}
	case "notifications/tasks":
		s.taskNotice(req.Params)
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(req.Params, &p) == nil && o.OnResourceUpdated != nil {
			o.OnResourceUpdated(p.URI)
		}
	case "notifications/progress":
		var p ProgressParams
		if json.Unmarshal(req.Params, &p) != nil {
			return // malformed: ignored
		}
		if e := s.progressFor(p.ProgressToken); e != nil {
			e.deliver(p)
		}
		if o.OnProgress != nil {
			o.OnProgress(p)
		}
	case "notifications/message":
		var p LogParams
		if json.Unmarshal(req.Params, &p) == nil && o.OnLog != nil {
			o.OnLog(p)
		}
	case "notifications/cancelled":
		// The server gave up one of its requests: stop asking the user
		// (the answer that may still go out is harmless).
		s.cancelServing(req.Params)
	}
}

// stale forgets the caching hints of the listings of methods: a change
// notification makes them stale at once.
func (s *Session) stale(methods ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range methods {
		delete(s.hints, m)
	}
}

// progressFor finds the call that asked for progress with token (our
// tokens are strings).
func (s *Session) progressFor(token json.RawMessage) *progressEntry {
	var t string
	if json.Unmarshal(token, &t) != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.progress[t]
}
