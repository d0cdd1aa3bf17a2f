package manager

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
)

// A Resource is a server's resource, with the server it is on.
type Resource struct {
	Server string
	protocol.Resource
}

// A ResourceTemplate is a server's resource template, with its server.
type ResourceTemplate struct {
	Server string
	protocol.ResourceTemplate
}

// A Prompt is a server's prompt, with its server.
type Prompt struct {
	Server string
	protocol.Prompt
}

// offersResources says whether the server is connected and declared
// resources.
func (s *server) offersResources() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil && s.state == StateConnected && s.conn.Init().Capabilities.Resources != nil
}

// eachReady runs op, in parallel, on every server that is connected now,
// not paused, and declared the capability has says; the others are
// started in the background (as Tools does) and left out. It returns the
// errors of those that failed, joined (each a *ServerError).
func (m *Manager) eachReady(ctx context.Context, phase string, has func(protocol.ServerCapabilities) bool, op func(s *server, c *Conn) error) error {
	servers, err := m.list()
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, s := range servers {
		s.kick()
		s.mu.Lock()
		ready := s.conn != nil && s.state == StateConnected && !s.dead() && !s.breakerOpen() && has(s.conn.Init().Capabilities)
		s.mu.Unlock()
		if !ready {
			continue
		}
		wg.Go(func() {
			if err := s.use(ctx, phase, func(c *Conn) error { return op(s, c) }); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func hasResources(c protocol.ServerCapabilities) bool { return c.Resources != nil }
func hasPrompts(c protocol.ServerCapabilities) bool   { return c.Prompts != nil }

// Resources lists the resources of every connected server that offers
// them, in configuration order, without waiting for a server that is not
// connected (it is started, as by Tools). The error joins the servers'
// failures (*ServerError); the others' resources are returned beside it.
func (m *Manager) Resources(ctx context.Context) ([]Resource, error) {
	per := map[*server][]*protocol.Resource{}
	var mu sync.Mutex
	err := m.eachReady(ctx, PhaseList, hasResources, func(s *server, c *Conn) error {
		rs, err := c.ListResources(ctx)
		mu.Lock()
		per[s] = rs
		mu.Unlock()
		return err
	})
	var out []Resource
	m.inOrder(func(s *server) {
		for _, r := range per[s] {
			out = append(out, Resource{Server: s.def.Name, Resource: m.masks.resource(*r)})
		}
	})
	return out, err
}

// ResourceTemplates lists the resource templates of every connected
// server that offers resources, as Resources does.
func (m *Manager) ResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	per := map[*server][]*protocol.ResourceTemplate{}
	var mu sync.Mutex
	err := m.eachReady(ctx, PhaseList, hasResources, func(s *server, c *Conn) error {
		ts, err := c.ListResourceTemplates(ctx)
		mu.Lock()
		per[s] = ts
		mu.Unlock()
		return err
	})
	var out []ResourceTemplate
	m.inOrder(func(s *server) {
		for _, t := range per[s] {
			out = append(out, ResourceTemplate{Server: s.def.Name, ResourceTemplate: m.masks.template(*t)})
		}
	})
	return out, err
}

// Prompts lists the prompts of every connected server that offers them,
// as Resources does.
func (m *Manager) Prompts(ctx context.Context) ([]Prompt, error) {
	per := map[*server][]*protocol.Prompt{}
	var mu sync.Mutex
	err := m.eachReady(ctx, PhaseList, hasPrompts, func(s *server, c *Conn) error {
		ps, err := c.ListPrompts(ctx)
		mu.Lock()
		per[s] = ps
		mu.Unlock()
		return err
	})
	var out []Prompt
	m.inOrder(func(s *server) {
		for _, p := range per[s] {
			out = append(out, Prompt{Server: s.def.Name, Prompt: m.masks.prompt(*p)})
		}
	})
	return out, err
}

// inOrder calls f for each server in configuration order.
func (m *Manager) inOrder(f func(*server)) {
	servers, _ := m.list()
	for _, s := range servers {
		f(s)
	}
}

// ReadResource reads the resource uri of the server named server. Like a
// call, it starts the server first when its session ended (within ctx),
// and counts for its breaker. The error is a *ServerError.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*protocol.ReadResourceResult, error) {
	var res *protocol.ReadResourceResult
	err := m.useServer(ctx, server, func(c *Conn) (err error) {
		res, err = c.ReadResource(ctx, uri)
		return err
	})
	return m.masks.read(res), err
}

// GetPrompt gets the prompt name of server with args, as ReadResource
// does. A required argument missing from args is refused before the
// request, with a *PromptArgumentsError (the prompt list says which).
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*protocol.GetPromptResult, error) {
	var res *protocol.GetPromptResult
	var argErr error
	err := m.useServer(ctx, server, func(c *Conn) (err error) {
		if ps, lerr := c.ListPrompts(ctx); lerr == nil {
			for _, p := range ps {
				if p.Name == name {
					if argErr = CheckPromptArgs(p, args); argErr != nil {
						return nil
					}
				}
			}
		}
		res, err = c.GetPrompt(ctx, name, args)
		return err
	})
	if argErr != nil {
		return nil, argErr
	}
	return m.masks.gotPrompt(res), err
}

// Complete asks server for completions of the argument arg (typed so far:
// value) of a prompt or resource template (ref), as ReadResource does;
// contextArgs are the arguments already given.
func (m *Manager) Complete(ctx context.Context, server string, ref protocol.Reference, arg, value string, contextArgs map[string]string) (*protocol.CompleteResult, error) {
	var res *protocol.CompleteResult
	err := m.useServer(ctx, server, func(c *Conn) (err error) {
		res, err = c.Complete(ctx, ref, arg, value, contextArgs)
		return err
	})
	return res, err
}

// useServer runs op on the session of the server named name.
func (m *Manager) useServer(ctx context.Context, name string, op func(*Conn) error) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	return s.use(ctx, PhaseCall, op)
}

// The names of the Manager's own tools (Options.ResourceTools).
const (
	ListResourcesTool = "list_mcp_resources"
	ReadResourceTool  = "read_mcp_resource"
)

// resourceTools are the Manager's own tools.
func resourceTools() []Tool {
	ro := &protocol.ToolAnnotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)}
	return []Tool{
		{Name: ListResourcesTool, Original: ListResourcesTool, Title: "List MCP resources",
			Description: "Lists the resources that the connected MCP servers offer (uri, name, type, description), of every server or of one.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"only the resources of this server"}}}`),
			Annotations: ro},
		{Name: ReadResourceTool, Original: ReadResourceTool, Title: "Read an MCP resource",
			Description: "Reads one resource of an MCP server by its URI (as list_mcp_resources gives them). Text is returned, cut when long; binary contents are described.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"the server that offers the resource"},"uri":{"type":"string","description":"the resource's URI"}},"required":["server","uri"]}`),
			Annotations: ro},
	}
}

func ptr[T any](v T) *T { return &v }

// callOwn runs one of the Manager's own tools; ok is false for any other
// name.
func (m *Manager) callOwn(ctx context.Context, name string, args any) (res *Result, ok bool, err error) {
	if !m.opts.ResourceTools || (name != ListResourcesTool && name != ReadResourceTool) {
		return nil, false, nil
	}
	var in struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if b, err := json.Marshal(args); err == nil && string(b) != "null" {
		if err := json.Unmarshal(b, &in); err != nil {
			return toolError("the arguments are not {server, uri} strings: %v", err), true, nil
		}
	}
	if name == ListResourcesTool {
		return m.listResourcesTool(ctx, in.Server), true, nil
	}
	if in.Server == "" || in.URI == "" {
		return toolError("give server and uri (list_mcp_resources gives them)"), true, nil
	}
	r, err := m.ReadResource(ctx, in.Server, in.URI)
	if err != nil {
		return toolError("%v", err), true, nil
	}
	raw := &protocol.CallToolResult{}
	for i := range r.Contents {
		c := &r.Contents[i]
		text := c.Text
		if c.IsBlob() {
			text = fmt.Sprintf("[binary resource %s of type %s, %d bytes, not shown]", c.URI, orUnknown(c.MimeType), base64.StdEncoding.DecodedLen(len(c.Blob)))
		} else if len(r.Contents) > 1 {
			text = fmt.Sprintf("[resource %s]\n%s", c.URI, c.Text)
		}
		raw.Content = append(raw.Content, protocol.Content{Type: "text", Text: text})
	}
	return mapResult(raw, m.opts.MaxText), true, nil
}

// listResourcesTool is list_mcp_resources: one JSON line per resource.
func (m *Manager) listResourcesTool(ctx context.Context, only string) *Result {
	rs, err := m.Resources(ctx)
	var b strings.Builder
	n := 0
	for _, r := range rs {
		if only != "" && r.Server != only {
			continue
		}
		line, _ := json.Marshal(struct {
			Server      string `json:"server"`
			URI         string `json:"uri"`
			Name        string `json:"name"`
			MimeType    string `json:"mimeType,omitempty"`
			Description string `json:"description,omitempty"`
		}{r.Server, r.URI, firstOf(r.Title, r.Name), r.MimeType, r.Description})
		b.Write(line)
		b.WriteByte('\n')
		n++
	}
	if n == 0 {
		b.WriteString("no resources")
		if only != "" {
			b.WriteString(" on server " + only)
		}
		b.WriteString("\n")
	}
	if err != nil {
		fmt.Fprintf(&b, "[some servers could not list their resources: %v]\n", err)
	}
	return mapResult(&protocol.CallToolResult{Content: []protocol.Content{{Type: "text", Text: strings.TrimRight(b.String(), "\n")}}}, m.opts.MaxText)
}

// toolError is a tool result that says what went wrong, for a model.
func toolError(format string, args ...any) *Result {
	return &Result{IsError: true, Blocks: []Block{{Type: "text", Text: fmt.Sprintf(format, args...)}}}
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
