package cli

import (
	"context"
	"sync"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// A proxyGate holds back, from the host of proxy, the tools of a
// configured target that its pinned surface quarantines or holds, as
// `mcpwire call` refuses them: checked at connect, and again at each
// tools/list the target answers (a server may change its tools in the
// middle of a session).
type proxyGate struct {
	_ [0]func() // not comparable: no equality function in the binary

	t *target

	mu    sync.Mutex
	live  string // the instructions the server gave at initialize
	check *manager.SurfaceCheck
}

// newProxyGate is the gate of t, nil when nothing is pinned for it.
func newProxyGate(t *target) *proxyGate {
	if t.surface == nil {
		return nil
	}
	return &proxyGate{t: t, check: t.surface}
}

// setLive notes the instructions of the target's initialize (of its
// latest connection).
func (g *proxyGate) setLive(live string) {
	g.mu.Lock()
	g.live = live
	g.mu.Unlock()
}

// Listed checks the tools listed again.
func (g *proxyGate) Listed(_ context.Context, tools []*protocol.Tool) {
	ap, err := config.OpenApprovals(g.t.home)
	var c *manager.SurfaceCheck
	if err != nil {
		c = &manager.SurfaceCheck{Server: g.t.server.Name, Pin: config.PinEnforce, Err: err}
	} else {
		def, _ := ap.Defaults()
		pin, newTools := manager.PinPolicy(g.t.server, def.Pin, def.NewTools)
		g.mu.Lock()
		live := g.live
		g.mu.Unlock()
		c = manager.CheckSurface(ap, g.t.server, pin, newTools, tools, live)
	}
	g.mu.Lock()
	c.Instructions = g.check.Instructions // what initialize handed out stays
	g.check = c
	g.mu.Unlock()
}

// Held says why tool is held back.
func (g *proxyGate) Held(tool string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.check.Held(tool)
}

// instructions are the instructions the host is given: the approved
// ones when the server's changed (or none).
func (g *proxyGate) instructions() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.check.Instructions
}
