package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
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
//
// In the modern era each page's resultType is checked and its caching
// hint (ttlMs, cacheScope) kept: once the listing is complete, the hint of
// the whole listing (the shortest ttlMs, "private" when any page is) is
// what [Session.CacheHint] returns for method. A modern server's empty
// nextCursor is a cursor; a legacy server's ends the list.
//
// It is not inlined: inlined, each of the five listings (tools,
// resources, templates, prompts, skills) had a copy of the loop, 1.8 KB
// of machine code each.
//
//go:noinline
func paginate[T any](ctx context.Context, s *Session, method string, decode func(*jsonrpc.Response) ([]T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		hint := CacheHint{Received: time.Now()}
		sc, err := s.startCall(ctx, &request{method: method})
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
			next, head, err := s.readPage(method, resp)
			if err != nil {
				yield(zero, err)
				return
			}
			hint.add(head, page)
			more := next != nil
			var stop error // after this page's items
			switch {
			case !more:
			case seen[*next]:
				stop = &CursorLoopError{Method: method, Cursor: *next, Page: page}
			case page >= maxPages:
				stop = fmt.Errorf("%s: more than %d pages", method, maxPages)
			default:
				seen[*next] = true
				sc, stop = s.startCall(ctx, pageRequest(method, next))
			}
			items, err := decode(resp)
			if err != nil {
				yield(zero, &ResultError{Method: method, Err: err})
				return
			}
			for _, it := range items {
				s.keepItemIcons(it)
				if !yield(it, nil) {
					return
				}
			}
			if stop != nil {
				yield(zero, stop)
				return
			}
			if !more {
				s.setHint(method, hint)
				return
			}
		}
	}
}

// pageRequest is the request of method's page at cursor (nil: the first
// page, asked for with no cursor).
func pageRequest(method string, cursor *string) *request {
	rq := &request{method: method}
	if cursor != nil {
		rq.raw = jsonrpc.AppendString(append(make([]byte, 0, len(*cursor)+14), `{"cursor":`...), *cursor)
		rq.raw = append(rq.raw, '}')
	}
	return rq
}

// readPage reads a page's head and checks it. next is the cursor of the
// next page, nil when there is none: a missing nextCursor ends the list;
// so does an empty one from a legacy server, which none of the legacy
// revisions means as a cursor (the modern revision says it is one).
func (s *Session) readPage(method string, resp *jsonrpc.Response) (next *string, head *resultHead, err error) {
	next, head, err = pageHead(resp.Cursor())
	if err != nil {
		return nil, nil, &ResultError{Method: method, Err: err}
	}
	if err := s.checkHead(method, head, false); err != nil {
		return nil, nil, err
	}
	if next != nil && *next == "" && s.era != EraModern {
		next = nil
	}
	return next, head, nil
}

// A Page is one page of a listing, as the server paged it.
type Page[T any] struct {
	Items []T
	// Next is the cursor of the next page, to give to the same method;
	// nil when this page is the last. (In the modern era "" is a cursor.)
	Next *string
	// Hint is the page's caching hint (modern servers; see CacheHint).
	Hint CacheHint
}

// listPage asks for method's page at cursor (nil: the first) and takes it
// apart with decode.
func listPage[T any](ctx context.Context, s *Session, method string, cursor *string, decode func(*jsonrpc.Response) ([]T, error)) (*Page[T], error) {
	hint := CacheHint{Received: time.Now()}
	resp, err := s.callResponse(ctx, pageRequest(method, cursor))
	if err != nil {
		return nil, err
	}
	next, head, err := s.readPage(method, resp)
	if err != nil {
		return nil, err
	}
	hint.add(head, 1)
	items, err := decode(resp)
	if err != nil {
		return nil, &ResultError{Method: method, Err: err}
	}
	for _, it := range items {
		s.keepItemIcons(it)
	}
	return &Page[T]{Items: items, Next: next, Hint: hint}, nil
}

// pageHead reads a page's nextCursor (nil when absent or null, and for a
// null page, which encoding/json reads as an empty one) and its head.
func pageHead(c *jsonscan.Cursor) (*string, *resultHead, error) {
	var next *string
	h := &resultHead{}
	if c.Null() {
		return nil, h, nil
	}
	err := c.Object(func(key []byte) error {
		if string(key) != "nextCursor" {
			_, err := h.take(c, key)
			return err
		}
		if c.Null() {
			return nil
		}
		var s string
		if err := str(c, "nextCursor", &s); err != nil {
			return err
		}
		next = &s
		return nil
	})
	return next, h, err
}

// A CacheHint is a modern server's freshness hint for a result
// (2026-07-28/server/utilities/caching.mdx): the result may be taken as
// fresh for TTL after it came. Scope is "public" (the same for every
// caller) or "private".
type CacheHint struct {
	Given    bool          // the server gave ttlMs (with every page of a listing)
	TTL      time.Duration // a negative ttlMs is taken as 0, stale at once
	Scope    string        // "public", "private", or "" when not given
	Received time.Time     // when the first page came
}

// Fresh reports whether the result may still be taken as fresh at now.
func (h CacheHint) Fresh(now time.Time) bool {
	return h.Given && h.TTL > 0 && now.Before(h.Received.Add(h.TTL))
}

// add takes the hint of one page (page from 1): the listing is as fresh
// as its stalest page, and private when any page is.
func (h *CacheHint) add(head *resultHead, page int) {
	if head.ttlMs == nil {
		h.Given, h.TTL = false, 0
	} else {
		ttl := time.Duration(max(*head.ttlMs, 0)) * time.Millisecond
		if page == 1 {
			h.Given, h.TTL = true, ttl
		} else if h.Given {
			h.TTL = min(h.TTL, ttl)
		}
	}
	switch {
	case head.cacheScope == "private" || h.Scope == "private":
		h.Scope = "private"
	case head.cacheScope != "":
		h.Scope = head.cacheScope
	}
}

// setHint keeps the hint of the last complete listing of method.
func (s *Session) setHint(method string, h CacheHint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hints == nil {
		s.hints = map[string]CacheHint{}
	}
	s.hints[method] = h
}

// CacheHint returns the freshness hint of the last complete listing of
// method ("tools/list", "prompts/list", "resources/list",
// "resources/templates/list"); the zero CacheHint (never fresh) when there
// was none, or the server gave no hint (legacy servers never do).
func (s *Session) CacheHint(method string) CacheHint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hints[method]
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
	return paginate(ctx, s, "tools/list", s.decodeTools)
}

// ToolsPage lists one page of the server's tools (tools/list): the first
// when cursor is nil, else the page at *cursor (a Page's Next), for a
// caller that pages lazily. The tools are screened and their output
// schemas remembered as by Tools.
func (s *Session) ToolsPage(ctx context.Context, cursor *string) (*Page[*Tool], error) {
	if err := s.require("tools/list", "tools"); err != nil {
		return nil, err
	}
	return listPage(ctx, s, "tools/list", cursor, s.decodeTools)
}

// decodeTools takes a tools/list page apart.
func (s *Session) decodeTools(resp *jsonrpc.Response) ([]*Tool, error) {
	tools, err := decodeToolsPage(resp.Cursor(), len(resp.Result))
	if err != nil {
		return nil, err
	}
	tools = s.screenTools(tools)
	s.rememberSchemas(tools)
	return tools, nil
}

// ListTools lists all of the server's tools (tools/list), following
// nextCursor to the end.
func (s *Session) ListTools(ctx context.Context) ([]*Tool, error) { return collect(s.Tools(ctx)) }

// Resources lists the server's resources lazily, page by page.
func (s *Session) Resources(ctx context.Context) iter.Seq2[*Resource, error] {
	if err := s.require("resources/list", "resources"); err != nil {
		return failing[*Resource](err)
	}
	return paginate(ctx, s, "resources/list", decodeResources)
}

// ResourcesPage lists one page of the server's resources
// (resources/list), as ToolsPage does.
func (s *Session) ResourcesPage(ctx context.Context, cursor *string) (*Page[*Resource], error) {
	if err := s.require("resources/list", "resources"); err != nil {
		return nil, err
	}
	return listPage(ctx, s, "resources/list", cursor, decodeResources)
}

func decodeResources(resp *jsonrpc.Response) ([]*Resource, error) {
	var page struct {
		Resources []*Resource `json:"resources"`
	}
	err := json.Unmarshal(resp.Result, &page)
	return dropNil(page.Resources), err
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
	return paginate(ctx, s, "resources/templates/list", decodeTemplates)
}

// ResourceTemplatesPage lists one page of the server's resource templates
// (resources/templates/list), as ToolsPage does.
func (s *Session) ResourceTemplatesPage(ctx context.Context, cursor *string) (*Page[*ResourceTemplate], error) {
	if err := s.require("resources/templates/list", "resources"); err != nil {
		return nil, err
	}
	return listPage(ctx, s, "resources/templates/list", cursor, decodeTemplates)
}

func decodeTemplates(resp *jsonrpc.Response) ([]*ResourceTemplate, error) {
	var page struct {
		ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	}
	err := json.Unmarshal(resp.Result, &page)
	return dropNil(page.ResourceTemplates), err
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
	return paginate(ctx, s, "prompts/list", decodePrompts)
}

// PromptsPage lists one page of the server's prompts (prompts/list), as
// ToolsPage does.
func (s *Session) PromptsPage(ctx context.Context, cursor *string) (*Page[*Prompt], error) {
	if err := s.require("prompts/list", "prompts"); err != nil {
		return nil, err
	}
	return listPage(ctx, s, "prompts/list", cursor, decodePrompts)
}

func decodePrompts(resp *jsonrpc.Response) ([]*Prompt, error) {
	var page struct {
		Prompts []*Prompt `json:"prompts"`
	}
	err := json.Unmarshal(resp.Result, &page)
	return dropNil(page.Prompts), err
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
