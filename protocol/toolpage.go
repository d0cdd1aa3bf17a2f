package protocol

import (
	"fmt"
	"math"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// A tools/list page is the largest list a client reads (thousands of
// tools, in pages of a hundred), so it is taken apart with few
// allocations: the tools of a page are allocated together, and their
// names, titles and descriptions are decoded into one buffer that becomes
// one string, which they share. Schemas and _meta stay raw bytes of the
// page's message.

// pageStrings gathers the strings of one page's tools: each is decoded
// into buf, and spans says where each tool's name, title and description
// are in it (no pointers: the GC has nothing to scan); done makes buf one
// string and hands each tool its parts. A member given twice keeps the
// last, as encoding/json does; null leaves it as it was.
type pageStrings struct {
	buf   []byte
	spans []toolSpans // by tool, in the order of the slab
}

// toolSpans are where a tool's strings are in a pageStrings' buffer
// (start, end); the zero span is the empty string. A page's strings are
// shorter than its message, which the transport bounds far below 4 GiB.
type toolSpans [3][2]uint32

// The fields of a toolSpans.
const (
	spanName = iota
	spanTitle
	spanDescription
)

// add decodes the string at c as field f of the last tool (key names it
// in an error).
func (ps *pageStrings) add(c *jsonscan.Cursor, key string, f int) error {
	if c.Null() {
		return nil
	}
	if c.Kind() != '"' {
		return fmt.Errorf("%s: not a string", key)
	}
	start := len(ps.buf)
	buf, err := c.AppendString(ps.buf)
	if err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	if uint64(len(buf)) > math.MaxUint32 {
		return fmt.Errorf("%s: the page's strings pass 4 GiB", key)
	}
	ps.buf = buf
	ps.spans[len(ps.spans)-1][f] = [2]uint32{uint32(start), uint32(len(buf))}
	return nil
}

// done sets the strings of tools, the tools of the spans in order.
func (ps *pageStrings) done(tools []*Tool) {
	all := string(ps.buf)
	for i, t := range tools {
		sp := &ps.spans[i]
		t.Name = all[sp[spanName][0]:sp[spanName][1]]
		t.Title = all[sp[spanTitle][0]:sp[spanTitle][1]]
		t.Description = all[sp[spanDescription][0]:sp[spanDescription][1]]
	}
}

// toolSlab hands out the tools of one page from blocks, so that a page of
// a hundred tools is one or two allocations.
type toolSlab struct {
	free   []Tool
	blocks [][]Tool
	n      int
	next   int // the size of the next block
}

// tool returns a fresh tool of the page.
func (ts *toolSlab) tool() *Tool {
	if len(ts.free) == 0 {
		ts.free = make([]Tool, ts.next)
		ts.blocks = append(ts.blocks, ts.free)
		ts.next = min(2*ts.next, 256)
	}
	t := &ts.free[0]
	ts.free = ts.free[1:]
	ts.n++
	return t
}

// list returns the tools handed out, in order.
func (ts *toolSlab) list() []*Tool {
	out := make([]*Tool, 0, ts.n)
	for _, b := range ts.blocks {
		for i := range b {
			if len(out) == ts.n {
				return out
			}
			out = append(out, &b[i])
		}
	}
	return out
}

// decodeToolsPage takes a tools/list result apart (but for its
// nextCursor, which paginate reads); size is the result's length in
// bytes, to size the page's buffers. Null tools are left out.
func decodeToolsPage(c *jsonscan.Cursor, size int) ([]*Tool, error) {
	if c.Null() { // as encoding/json reads it: no tools
		return nil, nil
	}
	var slab *toolSlab
	ps := &pageStrings{buf: make([]byte, 0, min(size/8+16, 64<<10))}
	err := c.Object(func(key []byte) error {
		if string(key) != "tools" {
			return nil
		}
		if c.Null() {
			slab = nil
			return nil
		}
		// A repeated "tools": the last one.
		slab = &toolSlab{next: min(max(size/160, 16), 256)}
		ps.buf, ps.spans = ps.buf[:0], make([]toolSpans, 0, slab.next)
		return c.Array(func() error {
			if c.Null() {
				return nil
			}
			ps.spans = append(ps.spans, toolSpans{})
			return decodeTool(c, slab.tool(), ps)
		})
	})
	if err != nil || slab == nil {
		return nil, err
	}
	tools := slab.list()
	ps.done(tools)
	return tools, nil
}

// decodeTool takes the tool at c apart into t, its strings into ps.
func decodeTool(c *jsonscan.Cursor, t *Tool, ps *pageStrings) error {
	if c.Kind() != '{' {
		return fmt.Errorf("tool: not an object")
	}
	err := c.Object(func(key []byte) error {
		switch string(key) {
		case "name":
			return ps.add(c, "name", spanName)
		case "title":
			return ps.add(c, "title", spanTitle)
		case "description":
			return ps.add(c, "description", spanDescription)
		case "inputSchema":
			raw(c, &t.InputSchema)
		case "outputSchema":
			raw(c, &t.OutputSchema)
		case "_meta":
			raw(c, &t.Meta)
		case "annotations":
			return small(c, "annotations", &t.Annotations)
		case "execution":
			return small(c, "execution", &t.Execution)
		case "icons":
			return small(c, "icons", &t.Icons)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tool: %v", err)
	}
	return nil
}
