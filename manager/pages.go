package manager

import (
	"context"
	"slices"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/protocol"
)

// A Page is one page of a server's listing, as the server paged it.
type Page[T any] struct {
	Items []T
	// Next is the cursor of the next page, to give to the same method
	// with the same server; nil when this page is the last. (In the
	// modern era "" is a cursor.)
	Next *string
	// Hint is the page's caching hint (see protocol.CacheHint).
	Hint protocol.CacheHint
}

// ToolsPage lists one page of the tools of the server named server: the
// first when cursor is nil, else the page at *cursor (a Page's Next), for
// an agent that pages lazily instead of taking every list at once from
// Tools. The server is started first when it is not connected (within
// ctx), as by ReadResource. The tools carry their qualified names, as
// Tools gives them (a name Tools has not given yet is qualified alone),
// and may be called by them; the definition's enabledTools and
// disabledTools apply. The error is a *ServerError.
func (m *Manager) ToolsPage(ctx context.Context, server string, cursor *string) (*Page[Tool], error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	var p *protocol.Page[*protocol.Tool]
	if err := s.use(ctx, PhaseList, func(c *Conn) (err error) {
		p, err = c.ToolsPage(ctx, cursor)
		return err
	}); err != nil {
		return nil, err
	}
	out := &Page[Tool]{Next: p.Next, Hint: p.Hint}
	s.mu.Lock()
	defer s.mu.Unlock()
	known := make(map[string]string, len(s.names)) // original → qualified
	for q, o := range s.names {
		known[o] = q
	}
	for _, t := range p.Items {
		if !toolEnabled(s.def, t.Name) {
			continue
		}
		name, ok := known[t.Name]
		if !ok {
			name = qualifyPrefixed(s.def.Prefix, server, t.Name)
			if s.names == nil {
				s.names = map[string]string{}
			}
			if _, taken := s.names[name]; !taken {
				s.names[name] = t.Name
			}
		}
		out.Items = append(out.Items, m.masks.tool(Tool{Name: name, Server: server, Original: t.Name, Title: t.DisplayName(),
			Description: t.Description, InputSchema: normalizeSchema(t.InputSchema), RawInputSchema: t.InputSchema, Annotations: t.Annotations}))
	}
	return out, nil
}

// ResourcesPage lists one page of the resources of the server named
// server, as ToolsPage does.
func (m *Manager) ResourcesPage(ctx context.Context, server string, cursor *string) (*Page[Resource], error) {
	return page(ctx, m, server, cursor, (*protocol.Session).ResourcesPage, func(r *protocol.Resource) Resource {
		return Resource{Server: server, Resource: m.masks.resource(*r)}
	})
}

// ResourceTemplatesPage lists one page of the resource templates of the
// server named server, as ToolsPage does.
func (m *Manager) ResourceTemplatesPage(ctx context.Context, server string, cursor *string) (*Page[ResourceTemplate], error) {
	return page(ctx, m, server, cursor, (*protocol.Session).ResourceTemplatesPage, func(t *protocol.ResourceTemplate) ResourceTemplate {
		return ResourceTemplate{Server: server, ResourceTemplate: m.masks.template(*t)}
	})
}

// PromptsPage lists one page of the prompts of the server named server,
// as ToolsPage does.
func (m *Manager) PromptsPage(ctx context.Context, server string, cursor *string) (*Page[Prompt], error) {
	return page(ctx, m, server, cursor, (*protocol.Session).PromptsPage, func(p *protocol.Prompt) Prompt {
		return Prompt{Server: server, Prompt: m.masks.prompt(*p)}
	})
}

// page fetches one page through fetch on the server's session and maps
// its items with item.
func page[P, T any](ctx context.Context, m *Manager, server string, cursor *string,
	fetch func(*protocol.Session, context.Context, *string) (*protocol.Page[P], error), item func(P) T) (*Page[T], error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	var p *protocol.Page[P]
	if err := s.use(ctx, PhaseList, func(c *Conn) (err error) {
		p, err = fetch(c.Session, ctx, cursor)
		return err
	}); err != nil {
		return nil, err
	}
	out := &Page[T]{Items: make([]T, 0, len(p.Items)), Next: p.Next, Hint: p.Hint}
	for _, it := range p.Items {
		out.Items = append(out.Items, item(it))
	}
	return out, nil
}

// toolEnabled says whether the definition's enabledTools and
// disabledTools let the tool name through.
func toolEnabled(def *config.Server, name string) bool {
	if len(def.EnabledTools) > 0 && !slices.Contains(def.EnabledTools, name) {
		return false
	}
	return !slices.Contains(def.DisabledTools, name)
}
