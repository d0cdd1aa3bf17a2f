package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// served is what serve offers its hosts: the manager's tools, resources,
// templates and prompts, and where each request goes.
type served struct {
	m        *manager.Manager
	hub      *serveHub
	pageSize int
	prefixes map[string]string // server → its definition's prefix

	mu        sync.Mutex
	prompts   map[string][2]string // offered name → server, original name
	uris      map[string]string    // resource URI → server (the first that lists it)
	templates [][2]string          // a template's literal head, its server
}

// mux is the handler of one host session.
func (sv *served) mux(s *mcpserver.Session) mcpserver.Mux {
	on := func(f func(ctx context.Context, p mcpserver.Peer, params json.RawMessage) (any, error)) mcpserver.HandlerFunc {
		return func(ctx context.Context, p mcpserver.Peer, req *mcpserver.Request) (any, error) {
			sv.hub.peer(s, p, ctx)
			if sv.hub.relay.Relays(ctx, req.Method) {
				// A modern host: what the server behind asks of it
				// becomes input requests of this request.
				res, err := sv.hub.relay.Serve(ctx, func(rctx context.Context) (any, error) {
					return f(withHost(rctx, s, p), p, req.Params)
				})
				return res, serveErr(err)
			}
			res, err := f(withHost(ctx, s, p), p, req.Params)
			return res, serveErr(err)
		}
	}
	return mcpserver.Mux{
		"tools/list":               on(sv.tools),
		"tools/call":               on(sv.call),
		"resources/list":           on(sv.resources),
		"resources/templates/list": on(sv.resourceTemplates),
		"resources/read":           on(sv.read),
		"resources/subscribe": on(func(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
			return sv.subscribe(ctx, s, params, true)
		}),
		"resources/unsubscribe": on(func(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
			return sv.subscribe(ctx, s, params, false)
		}),
		"prompts/list":        on(sv.promptList),
		"prompts/get":         on(sv.promptGet),
		"completion/complete": on(sv.complete),
	}
}

// serveErr is the error a host gets: a server's JSON-RPC error as it
// was, an input request or a cancellation as they are, anything else
// what failed (never a secret: the manager masks them).
func serveErr(err error) error {
	if err == nil {
		return nil
	}
	var je *protocol.Error
	var ir *mcpserver.InputRequired
	if errors.As(err, &je) {
		return je
	}
	if errors.As(err, &ir) || errors.Is(err, mcpserver.ErrCancelled) {
		return err
	}
	return mcpserver.Errorf(mcpserver.CodeInternalError, "%v", err)
}

// page answers one page of a list of items under key.
func page[T any](sv *served, params json.RawMessage, key string, items []T) (any, error) {
	start, end, next, err := mcpserver.Page(params, len(items), sv.pageSize)
	if err != nil {
		return nil, err
	}
	return mcpserver.ListResult(key, items[start:end], next), nil
}

// tools is serve's tools/list: every connected server's tools under the
// manager's names.
func (sv *served) tools(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	tools, err := sv.m.Tools(ctx)
	if err != nil && len(tools) == 0 {
		return nil, err
	}
	out := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		schema := t.RawInputSchema
		if len(schema) == 0 {
			schema = t.InputSchema
		}
		e := map[string]any{"name": t.Name, "inputSchema": schema}
		if t.Title != "" {
			e["title"] = t.Title
		}
		if t.Description != "" {
			e["description"] = t.Description
		}
		if t.Annotations != nil {
			e["annotations"] = t.Annotations
		}
		out = append(out, e)
	}
	return page(sv, params, "tools", out)
}

// call is serve's tools/call: the manager's call, with the server's
// progress under the host's token; the host's cancellation ends the
// call's context, which the manager passes on to the server.
func (sv *served) call(ctx context.Context, p mcpserver.Peer, params json.RawMessage) (any, error) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := mcpserver.Decode(params, &in); err != nil {
		return nil, err
	}
	opts := &manager.CallOptions{}
	if tok := in.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
		opts.OnProgress = func(pp protocol.ProgressParams) {
			pp.ProgressToken = tok
			_ = p.Notify(context.WithoutCancel(ctx), "notifications/progress", pp)
		}
	}
	var args any
	if len(in.Arguments) > 0 {
		args = in.Arguments
	}
	res, err := sv.m.CallWith(ctx, in.Name, args, opts)
	if err != nil {
		if je := (*protocol.Error)(nil); errors.As(err, &je) {
			return nil, je
		}
		return nil, mcpserver.Errorf(mcpserver.CodeInvalidParams, "%s: %v", in.Name, err)
	}
	if res.Raw != nil {
		return res.Raw, nil
	}
	return nil, mcpserver.Errorf(mcpserver.CodeInternalError, "%s: no result", in.Name)
}

// resources is serve's resources/list: every server's resources, under
// their own URIs (a URI two servers list is the first one's).
func (sv *served) resources(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	rs, err := sv.m.Resources(ctx)
	if err != nil && len(rs) == 0 {
		return nil, err
	}
	uris := map[string]string{}
	out := make([]protocol.Resource, 0, len(rs))
	for _, r := range rs {
		if _, dup := uris[r.URI]; dup {
			continue
		}
		uris[r.URI] = r.Server
		out = append(out, r.Resource)
	}
	sv.mu.Lock()
	sv.uris = uris
	sv.mu.Unlock()
	return page(sv, params, "resources", out)
}

// resourceTemplates is serve's resources/templates/list.
func (sv *served) resourceTemplates(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	ts, err := sv.m.ResourceTemplates(ctx)
	if err != nil && len(ts) == 0 {
		return nil, err
	}
	var heads [][2]string
	out := make([]protocol.ResourceTemplate, 0, len(ts))
	seen := map[string]bool{}
	for _, t := range ts {
		if seen[t.URITemplate] {
			continue
		}
		seen[t.URITemplate] = true
		head, _, _ := strings.Cut(t.URITemplate, "{")
		heads = append(heads, [2]string{head, t.Server})
		out = append(out, t.ResourceTemplate)
	}
	sv.mu.Lock()
	sv.templates = heads
	sv.mu.Unlock()
	return page(sv, params, "resourceTemplates", out)
}
