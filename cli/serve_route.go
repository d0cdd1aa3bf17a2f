package cli

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// owner is the server of a resource URI: the one that lists it, else the
// one whose template's literal head is the longest that starts it. The
// lists are taken again once when the URI is not known.
func (sv *served) owner(ctx context.Context, uri string) (string, error) {
	for try := 0; try < 2; try++ {
		if try == 1 {
			_, _ = sv.resources(ctx, nil, nil)
			_, _ = sv.resourceTemplates(ctx, nil, nil)
		}
		sv.mu.Lock()
		server, ok := sv.uris[uri]
		best := -1
		for _, t := range sv.templates {
			if !ok && len(t[0]) > best && len(uri) >= len(t[0]) && uri[:len(t[0])] == t[0] {
				server, best = t[1], len(t[0])
			}
		}
		sv.mu.Unlock()
		if ok || best >= 0 {
			return server, nil
		}
	}
	return "", &protocol.Error{Code: mcpserver.CodeResourceNotFound, Message: "Resource not found: no server behind mcpwire serve offers it",
		Data: mcpserver.MustJSON(map[string]string{"uri": uri})}
}

// read is serve's resources/read, on the resource's server.
func (sv *served) read(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := mcpserver.Decode(params, &in); err != nil {
		return nil, err
	}
	server, err := sv.owner(ctx, in.URI)
	if err != nil {
		return nil, err
	}
	res, err := sv.m.ReadResource(ctx, server, in.URI)
	if err != nil {
		return nil, err
	}
	res.TTLMs, res.CacheScope = nil, ""
	return res, nil
}

// subscribe is serve's resources/subscribe (on) and unsubscribe: the
// manager subscribes once per URI; the host session is told of updates.
func (sv *served) subscribe(ctx context.Context, s *mcpserver.Session, params json.RawMessage, on bool) (any, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := mcpserver.Decode(params, &in); err != nil {
		return nil, err
	}
	if !on {
		sv.hub.subs.Unsubscribe(ctx, s, in.URI)
		return struct{}{}, nil
	}
	return struct{}{}, sv.hub.subs.Subscribe(ctx, s, in.URI)
}

// resubscribe subscribes (on) to uri, or unsubscribes, on the server
// that offers it: where serve's subscriptions go.
func (sv *served) resubscribe(ctx context.Context, uri string, on bool) error {
	server, err := sv.owner(ctx, uri)
	if err != nil {
		return err
	}
	if on {
		return sv.m.Subscribe(ctx, server, uri)
	}
	return sv.m.Unsubscribe(ctx, server, uri)
}

// release forgets s, a host session that ended (stdio EOF, an HTTP
// session's DELETE or expiry), and the subscriptions it held.
func (sv *served) release(s *mcpserver.Session) {
	sv.hub.remove(s)
	sv.hub.subs.Release(s)
}

// promptList is serve's prompts/list: every server's prompts under the
// manager's names (a name taken twice is the first server's).
func (sv *served) promptList(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	ps, err := sv.m.Prompts(ctx)
	if err != nil && len(ps) == 0 {
		return nil, err
	}
	names := map[string][2]string{}
	out := make([]protocol.Prompt, 0, len(ps))
	for _, p := range ps {
		name := manager.QualifiedName(p.Server, sv.prefixes[p.Server], p.Name)
		if _, dup := names[name]; dup {
			continue
		}
		names[name] = [2]string{p.Server, p.Name}
		q := p.Prompt
		q.Name = name
		out = append(out, q)
	}
	sv.mu.Lock()
	sv.prompts = names
	sv.mu.Unlock()
	return page(sv, params, "prompts", out)
}

// prompt is the server and original name of an offered prompt name.
func (sv *served) prompt(ctx context.Context, name string) (server, original string, err error) {
	for try := 0; try < 2; try++ {
		if try == 1 {
			_, _ = sv.promptList(ctx, nil, nil)
		}
		sv.mu.Lock()
		at, ok := sv.prompts[name]
		sv.mu.Unlock()
		if ok {
			return at[0], at[1], nil
		}
	}
	return "", "", mcpserver.InvalidParams("no prompt %q behind mcpwire serve (see prompts/list)", name)
}

// promptGet is serve's prompts/get, on the prompt's server.
func (sv *served) promptGet(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	var in struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := mcpserver.Decode(params, &in); err != nil {
		return nil, err
	}
	server, original, err := sv.prompt(ctx, in.Name)
	if err != nil {
		return nil, err
	}
	res, err := sv.m.GetPrompt(ctx, server, original, in.Arguments)
	if pe := (*manager.PromptArgumentsError)(nil); errors.As(err, &pe) {
		return nil, mcpserver.InvalidParams("%s: %v", in.Name, err)
	}
	return res, err
}

// complete is serve's completion/complete: a prompt's argument on the
// prompt's server (by its own name), a template's on the template's.
func (sv *served) complete(ctx context.Context, _ mcpserver.Peer, params json.RawMessage) (any, error) {
	var in struct {
		Ref      protocol.Reference `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if err := mcpserver.Decode(params, &in); err != nil {
		return nil, err
	}
	ref := in.Ref
	var server string
	var err error
	switch ref.Type {
	case "ref/prompt":
		server, ref.Name, err = sv.prompt(ctx, ref.Name)
	case "ref/resource":
		server, err = sv.owner(ctx, ref.URI)
	default:
		err = mcpserver.InvalidParams("completion/complete: unknown ref type %q", ref.Type)
	}
	if err != nil {
		return nil, err
	}
	return sv.m.Complete(ctx, server, ref, in.Argument.Name, in.Argument.Value, in.Context.Arguments)
}
