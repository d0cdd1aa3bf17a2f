package protocol

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// The hot results (tool lists and tool results) are taken apart by hand
// over jsonrpc's scanners: the strings that carry megabytes (text, data,
// blob) are copied once at memory speed, and schemas stay raw. The input
// is a result already checked by jsonrpc (valid JSON); member names match
// exactly, as the schema spells them.

// str decodes the string at c into dst; null leaves it empty.
func str(c *jsonscan.Cursor, key string, dst *string) error {
	if c.Null() {
		return nil
	}
	if c.Kind() != '"' {
		return fmt.Errorf("%s: not a string", key)
	}
	s, err := c.String()
	if err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	*dst = s
	return nil
}

// word is str for a value most often one of words (a content type, a
// resultType): those come as the constant, with no allocation.
func word(c *jsonscan.Cursor, key string, dst *string, words ...string) error {
	if c.Null() {
		return nil
	}
	if c.Kind() != '"' {
		return fmt.Errorf("%s: not a string", key)
	}
	tok := c.Raw()
	if len(tok) >= 2 {
		body := tok[1 : len(tok)-1]
		for _, w := range words {
			if string(body) == w {
				*dst = w
				return nil
			}
		}
	}
	s, err := jsonscan.Unquote(tok)
	if err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	*dst = s
	return nil
}

// raw keeps the value at c as is; null leaves it empty.
func raw(c *jsonscan.Cursor, dst *json.RawMessage) {
	if !c.Null() {
		*dst = json.RawMessage(c.Raw())
	}
}

// small decodes the small value at c with encoding/json.
func small(c *jsonscan.Cursor, key string, dst any) error {
	if c.Null() {
		return nil
	}
	if err := json.Unmarshal(c.Raw(), dst); err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	return nil
}

// decodeCallResult takes a tools/call result apart, with its head.
func decodeCallResult(c *jsonscan.Cursor) (*CallToolResult, *resultHead, error) {
	both := &struct { // one allocation for the two
		res CallToolResult
		h   resultHead
	}{}
	res, h := &both.res, &both.h
	if c.Null() {
		return res, h, nil
	}
	err := c.Object(func(key []byte) error {
		switch string(key) {
		case "content":
			if c.Null() {
				return nil
			}
			res.Content = []Content{}
			return c.Array(func() error {
				res.Content = append(res.Content, Content{})
				return decodeContent(c, &res.Content[len(res.Content)-1])
			})
		case "structuredContent":
			raw(c, &res.StructuredContent)
		case "isError":
			return small(c, "isError", &res.IsError)
		case "_meta":
			raw(c, &res.Meta)
			h.meta = res.Meta
		default:
			_, err := h.take(c, key)
			return err
		}
		return nil
	})
	return res, h, err
}

// decodeContent takes the content block at c apart.
func decodeContent(c *jsonscan.Cursor, cb *Content) error {
	if c.Kind() != '{' {
		return fmt.Errorf("content: not an object")
	}
	return c.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			return word(c, "type", &cb.Type, "text", "image", "audio", "resource", "resource_link")
		case "text":
			return str(c, "text", &cb.Text)
		case "data":
			return str(c, "data", &cb.Data)
		case "mimeType":
			return str(c, "mimeType", &cb.MimeType)
		case "uri":
			return str(c, "uri", &cb.URI)
		case "name":
			return str(c, "name", &cb.Name)
		case "title":
			return str(c, "title", &cb.Title)
		case "description":
			return str(c, "description", &cb.Description)
		case "resource":
			if c.Null() {
				return nil
			}
			r := &ResourceContents{}
			if err := decodeResourceContents(c, r); err != nil {
				return err
			}
			cb.Resource = r
		case "size":
			return small(c, "size", &cb.Size)
		case "icons":
			return small(c, "icons", &cb.Icons)
		case "annotations":
			return small(c, "annotations", &cb.Annotations)
		case "_meta":
			raw(c, &cb.Meta)
		}
		return nil
	})
}

// decodeResourceContents takes the resource contents at c apart.
func decodeResourceContents(c *jsonscan.Cursor, r *ResourceContents) error {
	if c.Kind() != '{' {
		return fmt.Errorf("resource: not an object")
	}
	return c.Object(func(key []byte) error {
		switch string(key) {
		case "uri":
			return str(c, "uri", &r.URI)
		case "mimeType":
			return str(c, "mimeType", &r.MimeType)
		case "text":
			return str(c, "text", &r.Text)
		case "blob":
			return str(c, "blob", &r.Blob)
		case "_meta":
			raw(c, &r.Meta)
		}
		return nil
	})
}
