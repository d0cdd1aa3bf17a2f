package demo

// The modern era (MCP 2026-07-28) is served by the server package: no
// initialize, no session, the client's state in each request's _meta,
// server/discover, multi round-trip requests for the tools that ask the
// client something (roots, ask, sample), and subscriptions/listen for list
// changes and resource updates. What is the demo's own lives here: the
// eras it can be told to speak, the arguments it mirrors into headers and
// the caching hints of its results.
//
// --era picks what the demo speaks: both eras (the default), modern only
// (initialize is refused with -32022 naming 2026-07-28) or legacy only
// (a modern request is a request before initialize).

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// The eras the demo speaks (Options.Era).
const (
	EraDual   = mcpserver.EraDual   // both (the default)
	EraModern = mcpserver.EraModern // 2026-07-28 only
	EraLegacy = mcpserver.EraLegacy // 2024-11-05 … 2025-11-25 only
)

// modernVersion is the modern revision the demo speaks.
const modernVersion = mcpserver.ModernVersion

// headerParams are the tool parameters the demo mirrors into headers
// (x-mcp-header), by tool: header name → argument.
var headerParams = map[string]map[string]string{"env": {"Mcp-Param-Env-Name": "name"}}

// cacheHintOf is the caching of the demo's modern results with the list
// hint list (see Options.ListCache).
func cacheHintOf(list string) func(*jsonrpc.Request) (int, string, bool) {
	return func(req *jsonrpc.Request) (int, string, bool) {
		if req.Method == "resources/read" || req.Method == "server/discover" {
			return cacheHint(req)
		}
		switch list {
		case "none":
			return 0, "", true
		case "private":
			return 30000, "private", true
		}
		return 0, "", false
	}
}

// cacheHint is the caching of the demo's modern results: demo://status is
// private and not kept; the rest as the server package's defaults.
func cacheHint(req *jsonrpc.Request) (int, string, bool) {
	if req.Method != "resources/read" {
		return 0, "", false
	}
	var in struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(req.Params, &in)
	if in.URI == "demo://status" {
		return 0, "private", true
	}
	return 0, "", false
}
