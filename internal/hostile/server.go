package hostile

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// A Server is an MCP server over streamable HTTP (JSON answers, protocol
// 2025-06-18) whose every string is hostile: its name, title, version and
// instructions, one tool, resource, resource template and prompt per
// string of the table (named after it, described by it), tool results,
// resource contents, prompt messages and errors. Variant 1 is the same
// server changed: half its tools gone, the others' descriptions and
// argument types changed, so that a diff of the two holds every string
// in its changes. Under /auth it wants a login it explains in hostile
// words; under /device it offers a device login in them.
type Server struct {
	Variant int
}

// ServeHTTP answers one JSON-RPC message.
func (h Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.device(w, r) {
		return
	}
	if strings.HasPrefix(r.URL.Path, "/auth") {
		// A server that wants a login, and says why in hostile words:
		// those a header can carry (no C0 control or DEL, which a client
		// refuses as a malformed header; C1, bidi and markup pass).
		for _, s := range Strings {
			if strings.ContainsFunc(s.S, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				continue
			}
			w.Header().Add("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+strings.ReplaceAll(s.S, `"`, `'`)+`", scope="`+s.Name+`"`)
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "denied: "+All()) // raw, as a body may be
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if req.Method == "tools/call" && strings.HasPrefix(req.Params.Name, "tool bad \ufffd") {
		// Raw bytes, as only a hand-written answer has them: DEL, C1,
		// bidi and zero-width characters unescaped inside the JSON
		// strings (valid JSON; invalid UTF-8 is refused on the wire).
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[{"type":"text","text":"raw `+
			"\x7f \u009b \u202e \u200b end\"}],\"structuredContent\":{\"k\u202e\":\"v\x7f\u0085\"}}}\n")
		return
	}
	result, rpcErr := h.answer(req.Method, req.Params.Name, req.Params.URI)
	msg := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != "" {
		msg["error"] = map[string]any{"code": -32000, "message": rpcErr, "data": rpcErr}
	} else {
		msg["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(msg)
}

// Text is what the server answers calls, reads and prompts with: every
// string of the table, one a line.
func Text() string {
	var b strings.Builder
	for _, s := range Strings {
		b.WriteString(s.S)
		b.WriteString("\n")
	}
	return b.String()
}

// ToolName is the name of the tool of string s.
func ToolName(s String) string { return "tool " + s.S }

// ResourceURI is the URI of the resource of string s.
func ResourceURI(s String) string { return "hostile:///" + s.Name + "?" + s.S }

func (h Server) answer(method, name, uri string) (any, string) {
	all := All()
	switch method {
	case "initialize":
		return map[string]any{"protocolVersion": "2025-06-18",
			"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}},
			"serverInfo":   map[string]any{"name": "srv " + Strings[0].S, "title": "title " + all, "version": "1 " + Strings[1].S},
			"instructions": "instructions " + all}, ""
	case "ping":
		return map[string]any{}, ""
	case "tools/list":
		var tools []any
		for i, s := range Strings {
			if h.Variant == 1 && i%2 == 0 {
				continue
			}
			schema := map[string]any{"type": "object",
				"properties": map[string]any{"arg " + s.S: map[string]any{"type": "string", "description": s.S}}}
			desc := "description " + s.S
			if h.Variant == 1 {
				desc = "changed " + s.S
				schema["required"] = []string{"arg " + s.S}
				schema["properties"] = map[string]any{"arg " + s.S: map[string]any{"type": "number", "description": s.S}}
			}
			tools = append(tools, map[string]any{"name": ToolName(s), "title": "title " + s.S, "description": desc, "inputSchema": schema})
		}
		return map[string]any{"tools": tools}, ""
	case "tools/call":
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": Text()}}, "isError": strings.Contains(name, "comment")}, ""
	case "resources/list":
		var rs []any
		for i, s := range Strings {
			if h.Variant == 1 && i%3 == 0 {
				continue
			}
			rs = append(rs, map[string]any{"uri": ResourceURI(s), "name": "resource " + s.S, "description": s.S, "mimeType": "text/plain"})
		}
		return map[string]any{"resources": rs}, ""
	case "resources/templates/list":
		var ts []any
		for _, s := range Strings {
			ts = append(ts, map[string]any{"uriTemplate": "hostile:///{id}/" + s.Name + "?" + s.S, "name": "template " + s.S, "description": s.S})
		}
		return map[string]any{"resourceTemplates": ts}, ""
	case "resources/read":
		return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/plain", "text": Text()}}}, ""
	case "prompts/list":
		var ps []any
		for i, s := range Strings {
			if h.Variant == 1 && i%2 == 1 {
				continue
			}
			ps = append(ps, map[string]any{"name": "prompt " + s.S, "description": s.S,
				"arguments": []any{map[string]any{"name": "a " + s.S, "description": s.S}}})
		}
		return map[string]any{"prompts": ps}, ""
	case "prompts/get":
		return map[string]any{"description": all, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": Text()}}}}, ""
	}
	return nil, "no " + method + ": " + all
}
