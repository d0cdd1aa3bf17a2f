package cli

// What a daemon hands over with an mcp answer, and how a command takes
// it: the session's tools as its tools/list answers them, and their
// check against the surface pinned at the approval. The daemon makes the
// check once for each list, policy and pin file, and a command through
// the session then makes neither the tools/list round trip nor the check
// (the one it would make is the one the daemon made, on the same files).

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sync"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// maxGivenTools bounds the tools handed over in an answer line (its
// bound is maxWireLine); a longer list is listed over the stream.
const maxGivenTools = 256 << 10

// A wireSurface is a manager.SurfaceCheck on the socket.
type wireSurface struct {
	Pin                 string   `json:"pin"`
	NewTools            string   `json:"newTools"`
	Pinned              bool     `json:"pinned,omitempty"`
	Changed             []string `json:"changed,omitempty"`
	Added               []string `json:"added,omitempty"`
	Removed             []string `json:"removed,omitempty"`
	InstructionsChanged bool     `json:"instructionsChanged,omitempty"`
	Instructions        string   `json:"instructions,omitempty"`
	Error               string   `json:"error,omitempty"`
}

func wireSurfaceOf(c *manager.SurfaceCheck) *wireSurface {
	w := &wireSurface{Pin: c.Pin, NewTools: c.NewTools, Pinned: c.Pinned, Changed: c.Changed, Added: c.Added, Removed: c.Removed,
		InstructionsChanged: c.InstructionsChanged, Instructions: c.Instructions}
	if c.Err != nil {
		w.Error = c.Err.Error()
	}
	return w
}

// check is w as the check of server's surface.
func (w *wireSurface) check(server string) *manager.SurfaceCheck {
	c := &manager.SurfaceCheck{Server: server, Pin: w.Pin, NewTools: w.NewTools, Pinned: w.Pinned, Changed: w.Changed, Added: w.Added,
		Removed: w.Removed, InstructionsChanged: w.InstructionsChanged, Instructions: w.Instructions}
	if w.Error != "" {
		c.Err = errors.New(w.Error)
	}
	return c
}

// knownPolicy says whether pin and newTools are a policy PinPolicy gives.
func knownPolicy(pin, newTools string) bool {
	return (pin == config.PinEnforce || pin == config.PinWarn || pin == config.PinOff) &&
		(newTools == config.NewToolsHold || newTools == config.NewToolsOffer)
}

// A toolState is what a generation handed over last, and what it was
// made of.
type toolState struct {
	tools         []*protocol.Tool // the forwarder's list
	pin, newTools string
	stamp         os.FileInfo // the pin file's; nil when it has none
	raw           json.RawMessage
	surface       *wireSurface

	once sync.Once // makes line
	line []byte    // the answer line that hands st over
	err  error
}

// fits says whether st was made of tools, the policy and the pin file
// as stamp says it is now.
func (st *toolState) fits(tools []*protocol.Tool, pin, newTools string, stamp os.FileInfo) bool {
	return st != nil && st.pin == pin && st.newTools == newTools && slices.Equal(st.tools, tools) && sameStamp(st.stamp, stamp)
}

// stampOf is the pin file's stat, nil when there is none.
func stampOf(path string) os.FileInfo {
	if path == "" {
		return nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	return fi
}

// sameStamp says whether two stats are of the same file, unchanged.
func sameStamp(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// answerLine is g's answer to an mcp request with the policy pin,
// newTools, encoded: with the tools, their check and the discover answer
// (each when it has them), the line made once for each state.
func (g *generation) answerLine(ctx context.Context, pin, newTools string) ([]byte, error) {
	a := wireAnswer{OK: true, Protocol: g.conn.ProtocolVersion()}
	if !knownPolicy(pin, newTools) {
		return encodeWireLine(a)
	}
	a.Discover = g.discovered(ctx)
	st := g.given(ctx, pin, newTools)
	if st == nil {
		return encodeWireLine(a)
	}
	st.once.Do(func() {
		a.Tools, a.Surface = st.raw, st.surface
		st.line, st.err = encodeWireLine(a)
	})
	return st.line, st.err
}

// given is what g hands over for the policy pin, newTools: the tools
// list (raw nil when it is too long) and their surface check (nil with
// pin off). Nil when the tools cannot be listed now: the command lists
// them itself, and says what failed.
func (g *generation) given(ctx context.Context, pin, newTools string) *toolState {
	tools := []*protocol.Tool{}
	if g.conn.Init().Capabilities.Tools != nil {
		var err error
		if tools, err = g.fwd.Tools(ctx); err != nil {
			return nil
		}
	}
	path := ""
	if g.t.approvals != nil {
		path = g.t.approvals.PinPath(g.t.server)
	}
	before := stampOf(path)
	g.mu.Lock()
	st := g.state
	g.mu.Unlock()
	if st.fits(tools, pin, newTools, before) {
		return st
	}
	st = &toolState{tools: tools, pin: pin, newTools: newTools, stamp: before}
	if raw, err := json.Marshal(map[string]any{"tools": tools}); err == nil && len(raw) <= maxGivenTools {
		st.raw = raw
	}
	if pin != config.PinOff {
		ap, err := g.t.openApprovals()
		if err != nil {
			return nil // the command says why, as without a session
		}
		st.surface = wireSurfaceOf(manager.CheckSurface(ap, g.t.server, pin, newTools, tools, g.conn.Init().Instructions))
	}
	// A check that wrote the pin file is made again on the next use,
	// which finds it as this check left it.
	if sameStamp(before, stampOf(path)) {
		g.mu.Lock()
		g.state = st
		g.mu.Unlock()
	}
	return st
}

// discovered is g's answer to server/discover, made once, in the modern
// era; nil in the legacy era (a command initializes its session).
func (g *generation) discovered(ctx context.Context) json.RawMessage {
	if protocol.EraOf(g.conn.ProtocolVersion()) != protocol.EraModern {
		return nil
	}
	g.mu.Lock()
	raw := g.discover
	g.mu.Unlock()
	if raw != nil {
		return raw
	}
	raw, err := g.srv.DiscoverResult(ctx)
	if err != nil {
		return nil
	}
	g.mu.Lock()
	g.discover = raw
	g.mu.Unlock()
	return raw
}

// takeGiven takes the tools a daemon handed over with its answer as the
// check of t's surface would have listed them, and its check of them
// for the policy pin, newTools; false when the answer holds nothing
// usable for that (the check is then made here).
func (inv *invocation) takeGiven(t *target, conn *manager.Conn, a *wireAnswer, pin, newTools string) bool {
	if a == nil || a.Tools == nil || (pin == config.PinOff) != (a.Surface == nil) {
		return false
	}
	if a.Surface != nil && (a.Surface.Pin != pin || a.Surface.NewTools != newTools) {
		return false
	}
	tools := []*protocol.Tool{}
	if conn.Init().Capabilities.Tools != nil {
		var err error
		if tools, err = conn.GivenTools(a.Tools); err != nil {
			return false
		}
	}
	if a.Surface == nil {
		t.tools = tools // pin off: no check, and no list of its own
		return true
	}
	var listed []string
	for _, tl := range tools {
		listed = append(listed, tl.Name)
	}
	t.surface = a.Surface.check(t.server.Name)
	t.listed, t.tools = listed, tools
	return true
}
