package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// describeContent renders tool or prompt content for people: text as is,
// everything else described in one line.
func describeContent(c *protocol.Content) string {
	switch c.Type {
	case "text":
		return safe.SanitizeText(c.Text)
	case "image", "audio":
		return fmt.Sprintf("[%s %s, %s]", c.Type, safe.Sanitize(c.MimeType), sizeOf(base64Len(c.Data)))
	case "resource_link":
		label := c.Title
		if label == "" {
			label = c.Name
		}
		s := fmt.Sprintf("[resource link %s: %s", safe.Sanitize(label), safe.Sanitize(c.URI))
		if c.MimeType != "" {
			s += " (" + safe.Sanitize(c.MimeType) + ")"
		}
		if c.Description != "" {
			s += " — " + oneLine(c.Description, 80)
		}
		return s + "]"
	case "resource":
		if c.Resource == nil {
			return "[embedded resource with no contents]"
		}
		return describeResource(c.Resource, true)
	}
	return fmt.Sprintf("[content of unknown type %q]", safe.Sanitize(c.Type))
}

// describeResource renders one resource's contents: text inlined (with
// a header when embedded), a blob described.
func describeResource(r *protocol.ResourceContents, header bool) string {
	if r.IsBlob() {
		return fmt.Sprintf("[resource %s: %s, %s]", safe.Sanitize(r.URI), orUnknown(r.MimeType), sizeOf(base64Len(r.Blob)))
	}
	if header {
		return fmt.Sprintf("[resource %s (%s)]\n%s", safe.Sanitize(r.URI), orUnknown(r.MimeType), safe.SanitizeText(r.Text))
	}
	return safe.SanitizeText(r.Text)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "type unknown"
	}
	return safe.Sanitize(mime)
}

// base64Len is the decoded length of standard base64 s.
func base64Len(s string) int {
	return base64.StdEncoding.DecodedLen(len(s)) - strings.Count(s[max(0, len(s)-2):], "=")
}

func sizeOf(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// indentJSON pretty-prints raw JSON (as is when it is not JSON).
func indentJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return safe.SanitizeText(string(raw))
	}
	return safe.SanitizeText(buf.String())
}
