package server

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/protocol"
)

// A ToolGate decides which of a Forwarder's target tools its hosts see
// and may call (the pins of mcpwire's approvals): a held tool is left
// out of tools/list, and its tools/call is refused with the reason.
type ToolGate interface {
	// Listed is told of each tools/list the target answered, before it
	// is passed on, to check the tools again.
	Listed(ctx context.Context, tools []*protocol.Tool)
	// Held says why tool is held back; nil when it is offered.
	Held(tool string) error
}

// SetGate makes g the gate of the target's tools (nil: none).
func (f *Forwarder) SetGate(g ToolGate) {
	f.mu.Lock()
	f.gate = g
	f.mu.Unlock()
}

func (f *Forwarder) toolGate() ToolGate {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gate
}

// gateCall refuses a tools/call of a held tool (-32602, the gate's
// reason); nil lets it through.
func gateCall(g ToolGate, req *jsonrpc.Request) error {
	if g == nil || req.Method != "tools/call" {
		return nil
	}
	name, _, _, ok := callParams(req.Params)
	if !ok {
		var in struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(req.Params, &in)
		name = in.Name
	}
	if err := g.Held(name); err != nil {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%v", err)
	}
	return nil
}

// gateList keeps the tools of a tools/list answer the gate offers.
func gateList(ctx context.Context, g ToolGate, req *jsonrpc.Request, res any) any {
	m, ok := res.(map[string]any)
	if g == nil || req.Method != "tools/list" || !ok {
		return res
	}
	tools, _ := m["tools"].([]*protocol.Tool)
	g.Listed(ctx, tools)
	kept := make([]*protocol.Tool, 0, len(tools))
	for _, t := range tools {
		if g.Held(t.Name) == nil {
			kept = append(kept, t)
		}
	}
	m["tools"] = kept
	return m
}
