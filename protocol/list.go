package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// maxPages bounds one listing, so that a server handing out endless
// distinct cursors cannot keep a client listing forever.
const maxPages = 10000

// paginate lists method page by page, following nextCursor until a page
// has none, and refusing a cursor already used in this listing. decode
// takes one page's result apart into its items.
//
// The next page is asked for as soon as a page is in, before the page is
// taken apart, so that the server works on it meanwhile; a listing given
// up early gives that request up too (the server is told).
func paginate[T any](ctx context.Context, s *Session, method string, decode func(*jsonrpc.Response) ([]T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		sc, err := s.startCall(ctx, method, nil, nil)
		if err != nil {
			yield(zero, err)
			return
		}
		defer func() {
			if sc != nil {
				sc.abandon()
			}
		}()
		for page := 1; ; page++ {
			resp, err := sc.wait()
			sc = nil
			if err != nil {
				yield(zero, err)
				return
			}
			next, err := nextCursor(resp.Cursor())
			if err != nil {
				yield(zero, &ResultError{Method: method, Err: err})
				return
			}
			// A missing nextCursor ends the list; so does an empty one,
			// which no server of the legacy revisions means as a cursor.
			more := next != nil && *next != ""
			var stop error // after this page's items
			switch {
			case !more:
			case seen[*next]:
				stop = &CursorLoopError{Method: method, Cursor: *next, Page: page}
			case page >= maxPages:
				stop = fmt.Errorf("%s: more than %d pages", method, maxPages)
			default:
				seen[*next] = true
				sc, stop = s.startCall(ctx, method, struct {
					Cursor string `json:"cursor"`
				}{*next}, nil)
			}
			items, err := decode(resp)
			if err != nil {
				yield(zero, &ResultError{Method: method, Err: err})
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if stop != nil {
				yield(zero, stop)
				return
			}
			if !more {
				return
			}
		}
	}
}

// nextCursor reads a page's nextCursor (nil when absent or null, and for
// a null page, which encoding/json reads as an empty one).
func nextCursor(c *jsonrpc.Cursor) (*string, error) {
	var next *string
	if c.Null() {
		return nil, nil
	}
	err := c.Object(func(key []byte) error {
		if string(key) != "nextCursor" || c.Null() {
			return nil
		}
		var s string
		if err := str(c, "nextCursor", &s); err != nil {
			return err
		}
		next = &s
		return nil
	})
	return next, err
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
	return paginate(ctx, s, "tools/list", func(resp *jsonrpc.Response) ([]*Tool, error) {
		tools, err := decodeToolsPage(resp.Cursor())
		if err != nil {
			return nil, err
		}
		s.rememberSchemas(tools)
		return tools, nil
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
	return paginate(ctx, s, "resources/list", func(resp *jsonrpc.Response) ([]*Resource, error) {
		var page struct {
			Resources []*Resource `json:"resources"`
		}
		err := json.Unmarshal(resp.Result, &page)
		return dropNil(page.Resources), err
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
	return paginate(ctx, s, "resources/templates/list", func(resp *jsonrpc.Response) ([]*ResourceTemplate, error) {
		var page struct {
			ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
		}
		err := json.Unmarshal(resp.Result, &page)
		return dropNil(page.ResourceTemplates), err
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
	return paginate(ctx, s, "prompts/list", func(resp *jsonrpc.Response) ([]*Prompt, error) {
		var page struct {
			Prompts []*Prompt `json:"prompts"`
		}
		err := json.Unmarshal(resp.Result, &page)
		return dropNil(page.Prompts), err
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
