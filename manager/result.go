package manager

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// DefaultMaxText is how much text a tool result keeps for a model.
const DefaultMaxText = 50 << 10

// A Block is one piece of a tool result, for a model: text, or an image
// kept as data with its type.
type Block struct {
	Type     string // "text" or "image"
	Text     string
	Data     []byte // an image's bytes
	MimeType string
}

// A Result is a tool result mapped for a model.
type Result struct {
	Blocks []Block
	// IsError says the tool answered isError: a tool error, not a protocol one.
	IsError bool
	// Truncated says text was cut to the limit.
	Truncated bool
	// Raw is the result as the server sent it.
	Raw *protocol.CallToolResult
	// Task, with CallOptions.Task, is the task the server made instead of
	// answering at once (Blocks and Raw are then empty).
	Task *Task
}

// Text returns the text blocks joined by newlines.
func (r *Result) Text() string {
	var parts []string
	for _, b := range r.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// mapResult turns a tool result into blocks: text as is, images kept,
// embedded text resources inlined, resource links, blobs and audio
// described, structuredContent when no content came; text capped at max
// bytes in all, with a marker where it was cut.
func mapResult(res *protocol.CallToolResult, maxText int) *Result {
	out := &Result{IsError: res.IsError, Raw: res}
	for i := range res.Content {
		c := &res.Content[i]
		switch c.Type {
		case "text":
			out.Blocks = append(out.Blocks, Block{Type: "text", Text: c.Text})
		case "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				out.Blocks = append(out.Blocks, Block{Type: "text", Text: fmt.Sprintf("[an image of type %s that could not be decoded]", c.MimeType)})
				continue
			}
			out.Blocks = append(out.Blocks, Block{Type: "image", Data: data, MimeType: c.MimeType})
		case "audio":
			out.Blocks = append(out.Blocks, Block{Type: "text", Text: fmt.Sprintf("[audio of type %s, %d bytes, not shown]", c.MimeType, base64.StdEncoding.DecodedLen(len(c.Data)))})
		case "resource_link":
			s := fmt.Sprintf("[resource link: %s <%s>", firstOf(c.Title, c.Name), c.URI)
			if c.Description != "" {
				s += ": " + c.Description
			}
			out.Blocks = append(out.Blocks, Block{Type: "text", Text: s + "]"})
		case "resource":
			r := c.Resource
			switch {
			case r == nil:
			case r.Blob == "":
				out.Blocks = append(out.Blocks, Block{Type: "text", Text: fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)})
			default:
				out.Blocks = append(out.Blocks, Block{Type: "text", Text: fmt.Sprintf("[binary resource %s of type %s, %d bytes, not shown]", r.URI, r.MimeType, base64.StdEncoding.DecodedLen(len(r.Blob)))})
			}
		default:
			out.Blocks = append(out.Blocks, Block{Type: "text", Text: fmt.Sprintf("[content of type %q, not shown]", c.Type)})
		}
	}
	if len(res.Content) == 0 && len(res.StructuredContent) > 0 {
		out.Blocks = append(out.Blocks, Block{Type: "text", Text: string(res.StructuredContent)})
	}
	capText(out, maxText)
	return out
}

// capText cuts text blocks so that they hold at most max bytes in all.
func capText(r *Result, max int) {
	left := max
	for i := range r.Blocks {
		b := &r.Blocks[i]
		if b.Type != "text" {
			continue
		}
		if len(b.Text) <= left {
			left -= len(b.Text)
			continue
		}
		cut := left
		for cut > 0 && cut < len(b.Text) && !utf8Start(b.Text[cut]) {
			cut--
		}
		dropped := len(b.Text) - cut
		b.Text = b.Text[:cut] + fmt.Sprintf("\n[… output cut: %d more bytes not shown]", dropped)
		r.Truncated = true
		left = 0
	}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func firstOf(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}
