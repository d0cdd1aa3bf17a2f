package server

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Handle answers one request from the client: a modern one (with the
// protocol version in _meta) statelessly, a legacy one within the session
// that initialize opened.
func (s *Session) Handle(ctx context.Context, p Peer, req *jsonrpc.Request) (any, error) {
	o := &s.srv.opts
	if o.Era != EraLegacy && hasModernMeta(req.Params) {
		return s.handleModern(ctx, p, req)
	}
	switch req.Method {
	case "initialize", "ping":
		if o.Verbose {
			s.srv.Logf("<- %s", req.Method)
		}
	}
	if o.Era == EraModern {
		return nil, s.refuseLegacy(req)
	}
	switch req.Method {
	case "initialize":
		return s.initialize(ctx, req)
	case "ping":
		return struct{}{}, nil
	}
	s.mu.Lock()
	ready := s.initialized || s.lenient
	s.mu.Unlock()
	if !ready {
		if o.Early != nil {
			return nil, o.Early(ctx, req)
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%s before initialize", req.Method)
	}
	ctx, untrack := s.track(ctx, req)
	defer untrack()
	if req.Method == "logging/setLevel" {
		return s.setLevel(ctx, p, req.Params)
	}
	res, err := s.h.Serve(ctx, p, req)
	if pr, ok := res.(passed); ok {
		return json.RawMessage(pr), err
	}
	return res, err
}

// track registers req as in flight, so that notifications/cancelled can
// end it; untrack forgets it.
func (s *Session) track(ctx context.Context, req *jsonrpc.Request) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	s.inflight[req.ID] = cancel
	s.mu.Unlock()
	if s.srv.opts.Verbose {
		// Logged once the request can be cancelled, so that a test may
		// wait for this line before cancelling.
		s.srv.Logf("<- %s", req.Method)
	}
	return ctx, func() {
		s.mu.Lock()
		delete(s.inflight, req.ID)
		s.mu.Unlock()
		cancel(nil)
	}
}

// Notification takes a notification from the client. It does not block.
func (s *Session) Notification(req *jsonrpc.Request) {
	if s.srv.opts.Verbose {
		s.srv.Logf("<- %s", req.Method)
	}
	switch req.Method {
	case "notifications/initialized":
		s.mu.Lock()
		s.initialized = true
		s.mu.Unlock()
	case "notifications/roots/list_changed":
		if w, ok := s.h.(RootsWatcher); ok {
			w.RootsChanged()
		}
	case "notifications/cancelled":
		var in struct {
			RequestID jsonrpc.ID `json:"requestId"`
			Reason    string     `json:"reason"`
		}
		if err := Decode(req.Params, &in); err != nil || !in.RequestID.IsValid() {
			s.srv.Logf("bad notifications/cancelled")
			return
		}
		s.mu.Lock()
		cancel := s.inflight[in.RequestID]
		s.mu.Unlock()
		if cancel != nil {
			// Recorded here, when it arrives, so that the handler's state
			// read after it shows it, whenever the request notices (a
			// subscription ended is no cancelled work).
			if !s.listening(in.RequestID) {
				s.recordCancel(in.RequestID)
			}
			cancel(ErrCancelled)
		}
	}
}

// recordCancel tells the handler that the request id was cancelled.
func (s *Session) recordCancel(id jsonrpc.ID) {
	if c, ok := s.h.(Canceller); ok {
		c.Cancelled(id)
	}
	s.srv.logRaw("cancelled %s", id)
}

// InitializeParams are the parts of initialize a server reads.
type InitializeParams struct {
	ProtocolVersion string     `json:"protocolVersion"`
	Capabilities    ClientCaps `json:"capabilities"`
	ClientInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
}

func (s *Session) initialize(ctx context.Context, req *jsonrpc.Request) (any, error) {
	o := &s.srv.opts
	var in InitializeParams
	if err := Decode(req.Params, &in); err != nil {
		return nil, err
	}
	if o.Hello != nil {
		if err := o.Hello(ctx, in.Capabilities); err != nil {
			return nil, err
		}
	}
	if o.Hold != nil {
		if err := o.Hold(ctx); err != nil {
			return nil, err
		}
	}
	version := in.ProtocolVersion
	if !slices.Contains(o.Versions, version) {
		version = o.Versions[0]
	}
	if o.VersionAnswer != "" {
		version = o.VersionAnswer
	}
	s.mu.Lock()
	s.version = version
	s.caps = in.Capabilities
	s.initialized = true // lenient: the initialized notification is not awaited
	s.mu.Unlock()
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    o.Capabilities(),
		"serverInfo":      o.ServerInfo(),
	}
	if ins := o.Instructions(); ins != "" {
		res["instructions"] = ins
	}
	return res, nil
}

func (s *Session) setLevel(ctx context.Context, p Peer, params json.RawMessage) (any, error) {
	var in struct {
		Level string `json:"level"`
	}
	if err := Decode(params, &in); err != nil {
		return nil, err
	}
	i := slices.Index(LogLevels(), in.Level)
	if i < 0 {
		return nil, InvalidParams("unknown log level %q", in.Level)
	}
	s.mu.Lock()
	s.level = i
	s.mu.Unlock()
	if s.srv.opts.QuietLevel {
		return struct{}{}, nil
	}
	return &AfterReply{Result: struct{}{}, Then: func() {
		s.Log(context.WithoutCancel(ctx), p, s.srv.opts.LogPrefix, in.Level, "log level set to "+in.Level)
	}}, nil
}
