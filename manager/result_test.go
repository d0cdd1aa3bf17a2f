package manager

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/protocol"
)

func TestMapResult(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nrest")
	res := mapResult(&protocol.CallToolResult{Content: []protocol.Content{
		{Type: "text", Text: "hello"},
		{Type: "image", Data: base64.StdEncoding.EncodeToString(png), MimeType: "image/png"},
		{Type: "image", Data: "not base64!", MimeType: "image/gif"},
		{Type: "audio", Data: base64.StdEncoding.EncodeToString(make([]byte, 30)), MimeType: "audio/wav"},
		{Type: "resource_link", URI: "file:///a.txt", Name: "a.txt", Description: "a file"},
		{Type: "resource", Resource: &protocol.ResourceContents{URI: "file:///b.txt", Text: "inline"}},
		{Type: "resource", Resource: &protocol.ResourceContents{URI: "file:///c.bin", MimeType: "application/octet-stream", Blob: "AAAA"}},
		{Type: "hologram"},
	}, IsError: true}, DefaultMaxText)
	want := []Block{
		{Type: "text", Text: "hello"},
		{Type: "image", Data: png, MimeType: "image/png"},
		{Type: "text", Text: "[an image of type image/gif that could not be decoded]"},
		{Type: "text", Text: "[audio of type audio/wav, 30 bytes, not shown]"},
		{Type: "text", Text: "[resource link: a.txt <file:///a.txt>: a file]"},
		{Type: "text", Text: "[resource file:///b.txt]\ninline"},
		{Type: "text", Text: "[binary resource file:///c.bin of type application/octet-stream, 3 bytes, not shown]"},
		{Type: "text", Text: `[content of type "hologram", not shown]`},
	}
	if !res.IsError || res.Truncated || len(res.Blocks) != len(want) {
		t.Fatalf("result: %+v", res)
	}
	for i := range want {
		g, w := res.Blocks[i], want[i]
		if g.Type != w.Type || g.Text != w.Text || string(g.Data) != string(w.Data) || g.MimeType != w.MimeType {
			t.Errorf("block %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestMapResultStructured(t *testing.T) {
	res := mapResult(&protocol.CallToolResult{StructuredContent: []byte(`{"sum":5}`)}, DefaultMaxText)
	if res.Text() != `{"sum":5}` {
		t.Errorf("structured only: %q", res.Text())
	}
	res = mapResult(&protocol.CallToolResult{Content: []protocol.Content{{Type: "text", Text: "5"}},
		StructuredContent: []byte(`{"sum":5}`)}, DefaultMaxText)
	if res.Text() != "5" {
		t.Errorf("content and structured: %q, want the content only", res.Text())
	}
	res = mapResult(&protocol.CallToolResult{}, DefaultMaxText)
	if len(res.Blocks) != 0 || res.IsError {
		t.Errorf("empty: %+v", res)
	}
}

func TestMapResultCap(t *testing.T) {
	big := strings.Repeat("y", DefaultMaxText+100)
	res := mapResult(&protocol.CallToolResult{Content: []protocol.Content{{Type: "text", Text: big}}}, DefaultMaxText)
	if !res.Truncated || !strings.HasPrefix(res.Blocks[0].Text, strings.Repeat("y", DefaultMaxText)+"\n[… output cut: 100 more bytes") {
		t.Errorf("50 KiB cap: truncated %v, tail %q", res.Truncated, res.Blocks[0].Text[DefaultMaxText-5:])
	}

	// Several blocks share the cap; an image is never cut; a cut never
	// splits a UTF-8 sequence.
	res = mapResult(&protocol.CallToolResult{Content: []protocol.Content{
		{Type: "text", Text: "123456"},
		{Type: "image", Data: "AAAA", MimeType: "image/png"},
		{Type: "text", Text: "ééééé"},
		{Type: "text", Text: "more"},
	}}, 9)
	if !res.Truncated || res.Blocks[0].Text != "123456" || len(res.Blocks[1].Data) != 3 {
		t.Fatalf("blocks: %+v", res.Blocks)
	}
	if got := res.Blocks[2].Text; !strings.HasPrefix(got, "é\n[… output cut: 8 more bytes") || !utf8.ValidString(got) {
		t.Errorf("cut in UTF-8: %q", got)
	}
	for _, b := range res.Blocks {
		if strings.Contains(b.Text, "more") && !strings.Contains(b.Text, "output cut") {
			t.Errorf("text after the cap kept: %q", b.Text)
		}
	}
}
