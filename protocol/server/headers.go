package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// headerValue reads a mirrored header, decoding =?base64?…?=.
func headerValue(r *http.Request, name string) (string, bool) {
	vs := r.Header.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	v := vs[0]
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok && strings.HasSuffix(enc, "?=") {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(enc, "?="))
		if err != nil {
			return "\x00invalid base64", true
		}
		return string(b), true
	}
	return v, true
}

// CheckHeaders checks a modern HTTP request's headers against its body,
// as a server must (2026-07-28 streamable HTTP, "Server Validation"); get
// reads a header (decoded from =?base64?…?=); mirrored names a tool's
// arguments mirrored into headers (may be nil).
func CheckHeaders(req *jsonrpc.Request, version string, get func(string) (string, bool), mirrored func(tool string) map[string]string) error {
	mismatch := func(format string, args ...any) error {
		return jsonrpc.NewError(CodeHeaderMismatch, "Header mismatch: "+format, args...)
	}
	if v, ok := get("MCP-Protocol-Version"); !ok {
		return mismatch("missing MCP-Protocol-Version header")
	} else if v != version {
		return mismatch("MCP-Protocol-Version %q does not match _meta %q", v, version)
	}
	if m, ok := get("Mcp-Method"); !ok || m != req.Method {
		return mismatch("Mcp-Method %q does not match the method %q", m, req.Method)
	}
	var in struct {
		Name      string                     `json:"name"`
		URI       string                     `json:"uri"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(req.Params, &in)
	switch req.Method {
	case "tools/call", "prompts/get", "resources/read":
		want := in.Name
		if req.Method == "resources/read" {
			want = in.URI
		}
		if n, ok := get("Mcp-Name"); !ok || n != want {
			return mismatch("Mcp-Name %q does not match the body's %q", n, want)
		}
	}
	if req.Method != "tools/call" || mirrored == nil {
		return nil
	}
	for header, arg := range mirrored(in.Name) {
		raw, present := in.Arguments[arg]
		h, sent := get(header)
		var v any
		_ = json.Unmarshal(raw, &v)
		switch {
		case !present || v == nil:
			if sent {
				return mismatch("%s sent for an argument that is absent", header)
			}
		case !sent:
			return mismatch("missing %s header for argument %s", header, arg)
		case fmt.Sprint(v) != h:
			return mismatch("%s %q does not match argument %s", header, h, arg)
		}
	}
	return nil
}
