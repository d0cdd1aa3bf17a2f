package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzLoad parses arbitrary bytes as a .mcp.json: it must never panic or
// hang; a file that parses must give each entry a Raw that is valid JSON,
// and a file the standard library rejects must be rejected.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"K": "${V:-d}"}}}}`,
		`{"servers": {"h": {"type": "http", "url": "https://h.example/mcp", "headers": {"Authorization": "Bearer t"}, "oauth": {"scopes": ["a"]}}}}`,
		`{"mcpServers": {"a": {"command": 1}, "a": {"url": "http://example.com"}}}`,
		`{"mcpServers": {"a": {"timeout": 1e400, "transport": "sse", "httpUrl": "https://x"}}}`,
		`{"mcpServers": []}`, `[]`, ``, `{`, `{"a":"\ud800"}`, "{\"mcpServers\":{\"\xff\":{}}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := parseFile("/f/.mcp.json", ScopeUser, data)
		if err != nil {
			if len(strings.TrimSpace(string(data))) > 0 && json.Valid(data) && !strings.Contains(err.Error(), "must be an object") && !strings.Contains(err.Error(), "given twice") {
				t.Fatalf("valid JSON rejected: %v", err)
			}
			return
		}
		if len(strings.TrimSpace(string(data))) > 0 && !json.Valid(data) {
			t.Fatalf("invalid JSON accepted")
		}
		for _, s := range pf.servers {
			if !json.Valid(s.Raw) {
				t.Fatalf("entry %q: Raw is not JSON", s.Name)
			}
			_ = Digest([]byte("k"), s)
			if s.Err == nil {
				if _, err := s.Expand(func(string) string { return "v" }); err != nil && s.Valid() && strings.Contains(err.Error(), "not set") {
					t.Fatalf("expansion with every variable set failed: %v", err)
				}
			}
			if _, err := ReviewJSON(s); err != nil {
				t.Fatalf("ReviewJSON: %v", err)
			}
		}
	})
}

// FuzzExpand expands arbitrary strings: never a panic; without "${" the
// value is unchanged; a successful expansion never rescans what it
// inserted.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "plain", "${A}", "${A:-d}", "${B}", "$$", "${", "${A:-${B}}", "x${A}y${NOPE:-z}", "${1}"} {
		f.Add(s)
	}
	vars := map[string]string{"A": "${B}", "B": "bee"}
	f.Fuzz(func(t *testing.T, v string) {
		out, p := expandString(v, lookup(vars))
		if !strings.Contains(v, "${") {
			if p != nil || out != v {
				t.Fatalf("expand(%q) = %q, %v", v, out, p)
			}
			return
		}
		if p != nil {
			if p.name != "" && !validVarName(p.name) {
				t.Fatalf("bad variable name in error: %q", p.name)
			}
			return
		}
		if strings.Contains(out, "bee") && !strings.Contains(v, "bee") && !strings.Contains(v, "${B") {
			t.Fatalf("expand(%q) = %q: expanded twice", v, out)
		}
	})
}
