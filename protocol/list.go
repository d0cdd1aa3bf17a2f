package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"mcpwire/jsonrpc"
)

// maxPages bounds one listing, so that a server handing out endless
// distinct cursors cannot keep a client listing forever.
const maxPages = 10000

// paginate lists method page by page, following nextCursor until a page
// has none, and refusing a cursor already used in this listing. decode
// takes one page's result apart into its items and its nextCursor.
func paginate[T any](ctx context.Context, s *Session, method string, decode func(*jsonrpc.Response) ([]T, *string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		var params any
		for page := 1; ; page++ {
			resp, err := s.callResponse(ctx, method, params, nil)
			if err != nil {
				yield(zero, err)
				return
			}
			items, next, err := decode(resp)
			if err != nil {
				yield(zero, &ResultError{Method: method, Err: err})
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			// A missing nextCursor ends the list; so does an empty one,
			// which no server of the legacy revisions means as a cursor.
			if next == nil || *next == "" {
				return
			}
			if seen[*next] {
				yield(zero, &CursorLoopError{Method: method, Cursor: *next, Page: page})
				return
			}
			if page >= maxPages {
				yield(zero, fmt.Errorf("%s: more than %d pages", method, maxPages))
				return
			}
			seen[*next] = true
			params = struct {
				Cursor string `json:"cursor"`
			}{*next}
		}
	}
}

// collect gathers a listing into a slice.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	out := []T{}
	for it, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// failing is a listing that fails at once with err.
func failing[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}

// Tools lists the server's tools lazily, page by page; it stops at the
// first error, which it yields.
func (s *Session) Tools(ctx context.Context) iter.Seq2[*Tool, error] {
	if err := s.require("tools/list", "tools"); err != nil {
		return failing[*Tool](err)
	}
	return paginate(ctx, s, "tools/list", func(resp *jsonrpc.Response) ([]*Tool, *string, error) {
		tools, next, err := decodeToolsPage(resp.Cursor())
		if err != nil {
			return nil, nil, err
		}
		s.rememberSchemas(tools)
		return tools, next, nil
	})
}

// ListTools lists all of the server's tools (tools/list), following
// nextCursor to the end.
func (s *Session) ListTools(ctx context.Context) ([]*Tool, error) { return collect(s.Tools(ctx)) }

// Resources lists the server's resources lazily, page by page.
func (s *Session) Resources(ctx context.Context) iter.Seq2[*Resource, error] {
	if err := s.require("resources/list", "resources"); err != nil {
		return failing[*Resource](err)
	}
	return paginate(ctx, s, "resources/list", func(resp *jsonrpc.Response) ([]*Resource, *string, error) {
		var page struct {
			Resources  []*Resource `json:"resources"`
			NextCursor *string     `json:"nextCursor"`
		}
		err := json.Unmarshal(resp.Result, &page)
		return dropNil(page.Resources), page.NextCursor, err
	})
}

// ListResources lists all of the server's resources (resources/list).
func (s *Session) ListResources(ctx context.Context) ([]*Resource, error) {
	return collect(s.Resources(ctx))
}

// ResourceTemplates lists the server's resource templates lazily.
func (s *Session) ResourceTemplates(ctx context.Context) iter.Seq2[*ResourceTemplate, error] {
	if err := s.require("resources/templates/list", "resources"); err != nil {
		return failing[*ResourceTemplate](err)
	}
	return paginate(ctx, s, "resources/templates/list", func(resp *jsonrpc.Response) ([]*ResourceTemplate, *string, error) {
		var page struct {
			ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
			NextCursor        *string             `json:"nextCursor"`
		}
		err := json.Unmarshal(resp.Result, &page)
		return dropNil(page.ResourceTemplates), page.NextCursor, err
	})
}

// ListResourceTemplates lists all of the server's resource templates
// (resources/templates/list).
func (s *Session) ListResourceTemplates(ctx context.Context) ([]*ResourceTemplate, error) {
	return collect(s.ResourceTemplates(ctx))
}

// Prompts lists the server's prompts lazily, page by page.
func (s *Session) Prompts(ctx context.Context) iter.Seq2[*Prompt, error] {
	if err := s.require("prompts/list", "prompts"); err != nil {
		return failing[*Prompt](err)
	}
	return paginate(ctx, s, "prompts/list", func(resp *jsonrpc.Response) ([]*Prompt, *string, error) {
		var page struct {
			Prompts    []*Prompt `json:"prompts"`
			NextCursor *string   `json:"nextCursor"`
		}
		err := json.Unmarshal(resp.Result, &page)
		return dropNil(page.Prompts), page.NextCursor, err
	})
}

// ListPrompts lists all of the server's prompts (prompts/list).
func (s *Session) ListPrompts(ctx context.Context) ([]*Prompt, error) {
	return collect(s.Prompts(ctx))
}

// dropNil removes null entries of a page.
func dropNil[T any](items []*T) []*T {
	out := items[:0]
	for _, it := range items {
		if it != nil {
			out = append(out, it)
		}
	}
	return out
}

// require fails with a *CapabilityError when the server did not declare
// capability (e.g. "tools", "resources.subscribe").
func (s *Session) require(method, capability string) error {
	c := &s.init.Capabilities
	var ok bool
	switch capability {
	case "tools":
		ok = c.Tools != nil
	case "resources":
		ok = c.Resources != nil
	case "resources.subscribe":
		ok = c.Resources != nil && c.Resources.Subscribe
	case "prompts":
		ok = c.Prompts != nil
	case "logging":
		ok = c.HasLogging()
	case "completions":
		ok = c.HasCompletions()
	}
	if !ok {
		return &CapabilityError{Method: method, Capability: capability}
	}
	return nil
}
