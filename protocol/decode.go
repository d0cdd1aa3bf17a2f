package protocol

import (
	"encoding/json"
	"fmt"

	"mcpwire/jsonrpc"
)

// The hot results (tool lists and tool results) are taken apart by hand
// over jsonrpc's scanners: the strings that carry megabytes (text, data,
// blob) are copied once at memory speed, and schemas stay raw. The input
// is a result already checked by jsonrpc (valid JSON); member names match
// exactly, as the schema spells them.

// null says whether a member's value is JSON null (treated as absent).
func null(v []byte) bool { return string(v) == "null" }

// str decodes a string member into dst; null leaves it empty.
func str(key string, v []byte, dst *string) error {
	if null(v) {
		return nil
	}
	if len(v) == 0 || v[0] != '"' {
		return fmt.Errorf("%s: not a string", key)
	}
	s, err := jsonrpc.Unquote(v)
	if err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	*dst = s
	return nil
}

// raw keeps a member's value as is; null leaves it empty.
func raw(v []byte, dst *json.RawMessage) {
	if !null(v) {
		*dst = json.RawMessage(v)
	}
}

// small decodes a small member with encoding/json.
func small(key string, v []byte, dst any) error {
	if null(v) {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("%s: %v", key, err)
	}
	return nil
}

// decodeToolsPage takes a tools/list result apart.
func decodeToolsPage(result []byte) ([]*Tool, *string, error) {
	var tools []*Tool
	var next *string
	err := jsonrpc.EachMember(result, func(key string, v []byte) error {
		switch key {
		case "tools":
			if null(v) {
				return nil
			}
			tools = []*Tool{}
			return jsonrpc.EachElement(v, func(e []byte) error {
				if null(e) {
					return nil
				}
				t, err := decodeTool(e)
				if err != nil {
					return err
				}
				tools = append(tools, t)
				return nil
			})
		case "nextCursor":
			if null(v) {
				return nil
			}
			var c string
			if err := str(key, v, &c); err != nil {
				return err
			}
			next = &c
		}
		return nil
	})
	return tools, next, err
}

// decodeTool takes one tool apart.
func decodeTool(v []byte) (*Tool, error) {
	t := &Tool{}
	err := jsonrpc.EachMember(v, func(key string, v []byte) error {
		switch key {
		case "name":
			return str(key, v, &t.Name)
		case "title":
			return str(key, v, &t.Title)
		case "description":
			return str(key, v, &t.Description)
		case "inputSchema":
			raw(v, &t.InputSchema)
		case "outputSchema":
			raw(v, &t.OutputSchema)
		case "_meta":
			raw(v, &t.Meta)
		case "annotations":
			return small(key, v, &t.Annotations)
		case "execution":
			return small(key, v, &t.Execution)
		case "icons":
			return small(key, v, &t.Icons)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tool: %v", err)
	}
	return t, nil
}

// decodeCallResult takes a tools/call result apart.
func decodeCallResult(result []byte) (*CallToolResult, error) {
	res := &CallToolResult{}
	err := jsonrpc.EachMember(result, func(key string, v []byte) error {
		switch key {
		case "content":
			if null(v) {
				return nil
			}
			res.Content = []Content{}
			return jsonrpc.EachElement(v, func(e []byte) error {
				var c Content
				if err := decodeContent(e, &c); err != nil {
					return err
				}
				res.Content = append(res.Content, c)
				return nil
			})
		case "structuredContent":
			raw(v, &res.StructuredContent)
		case "isError":
			return small(key, v, &res.IsError)
		case "_meta":
			raw(v, &res.Meta)
		}
		return nil
	})
	return res, err
}

// decodeContent takes one content block apart.
func decodeContent(v []byte, c *Content) error {
	if len(v) == 0 || v[0] != '{' {
		return fmt.Errorf("content: not an object")
	}
	return jsonrpc.EachMember(v, func(key string, v []byte) error {
		switch key {
		case "type":
			return str(key, v, &c.Type)
		case "text":
			return str(key, v, &c.Text)
		case "data":
			return str(key, v, &c.Data)
		case "mimeType":
			return str(key, v, &c.MimeType)
		case "uri":
			return str(key, v, &c.URI)
		case "name":
			return str(key, v, &c.Name)
		case "title":
			return str(key, v, &c.Title)
		case "description":
			return str(key, v, &c.Description)
		case "resource":
			if null(v) {
				return nil
			}
			r := &ResourceContents{}
			if err := decodeResourceContents(v, r); err != nil {
				return err
			}
			c.Resource = r
		case "size":
			return small(key, v, &c.Size)
		case "icons":
			return small(key, v, &c.Icons)
		case "annotations":
			return small(key, v, &c.Annotations)
		case "_meta":
			raw(v, &c.Meta)
		}
		return nil
	})
}

// decodeResourceContents takes one resource's contents apart.
func decodeResourceContents(v []byte, r *ResourceContents) error {
	if len(v) == 0 || v[0] != '{' {
		return fmt.Errorf("resource: not an object")
	}
	return jsonrpc.EachMember(v, func(key string, v []byte) error {
		switch key {
		case "uri":
			return str(key, v, &r.URI)
		case "mimeType":
			return str(key, v, &r.MimeType)
		case "text":
			return str(key, v, &r.Text)
		case "blob":
			return str(key, v, &r.Blob)
		case "_meta":
			raw(v, &r.Meta)
		}
		return nil
	})
}
