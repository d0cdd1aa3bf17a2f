package server

import (
	"context"

	"github.com/mcpwire/mcpwire/protocol"
)

// Tools is the target's tools as tools/list answers them with
// CacheTools: the cached list, listed when there is none. The slice is
// the cache's own, shared until the target's tools change: read it, do
// not change it. A forwarder's ToolGate is not applied (a session's
// daemon has none).
func (f *Forwarder) Tools(ctx context.Context) ([]*protocol.Tool, error) {
	t, err := f.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer f.release(t)
	return f.cachedTools(ctx, t)
}

// cachedTools is the cached list of t's tools, filled when empty; a
// list made while the tools changed is not kept.
func (f *Forwarder) cachedTools(ctx context.Context, t *protocol.Session) ([]*protocol.Tool, error) {
	f.mu.Lock()
	tools, gen := f.tools, f.toolsGen
	f.mu.Unlock()
	if tools != nil {
		return tools, nil
	}
	tools, err := t.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	tools = nonNil(tools)
	f.mu.Lock()
	if f.toolsGen == gen {
		f.tools = tools
	}
	f.mu.Unlock()
	return tools, nil
}
