package demo

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/internal/hostile"
)

// The --hostile mode: the demo as a hostile server would be, in both
// eras and over both transports, for the tests that check that every
// string a server sends is inert in every output (issue 20, item 4):
// its name, title and instructions hold every string of the hostile
// table, and it offers one more tool per string, named and described by
// it (a call of one answers an error that names it).

// instructionsText is the demo's instructions to a model.
func (s *server) instructionsText() string {
	if s.opts.Hostile {
		return instructions + " " + hostile.All()
	}
	return instructions
}

// hostileTools are the tools of --hostile.
func hostileTools() []toolDef {
	var out []toolDef
	for _, h := range hostile.Strings {
		prop, _ := json.Marshal(map[string]any{"arg " + h.S: map[string]any{"type": "string", "description": h.S}})
		out = append(out, toolDef{Name: hostile.ToolName(h), Title: "title " + h.S, Description: "description " + h.S,
			InputSchema: schema(string(prop[1 : len(prop)-1]))})
	}
	return out
}
