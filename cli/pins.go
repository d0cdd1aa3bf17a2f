package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// surfaceJSON is how a server's tools compare with the surface pinned at
// its approval, in --json (the shape "surface" of docs/json.md).
type surfaceJSON struct {
	Pin                 string   `json:"pin"`
	NewTools            string   `json:"newTools"`
	Pinned              bool     `json:"pinned"`
	Quarantined         []string `json:"quarantined"`
	Changed             []string `json:"changed"`
	Added               []string `json:"added"`
	Removed             []string `json:"removed"`
	InstructionsChanged bool     `json:"instructionsChanged"`
	Error               string   `json:"error,omitempty"`
}

// newSurfaceJSON is c in --json; nil for nil.
func newSurfaceJSON(c *manager.SurfaceCheck, tools []string) *surfaceJSON {
	if c == nil {
		return nil
	}
	j := &surfaceJSON{Pin: c.Pin, NewTools: c.NewTools, Pinned: c.Pinned, Quarantined: []string{},
		Changed: nonNil(c.Changed), Added: nonNil(c.Added), Removed: nonNil(c.Removed), InstructionsChanged: c.InstructionsChanged}
	for _, t := range tools {
		if c.Held(t) != nil {
			j.Quarantined = append(j.Quarantined, t)
		}
	}
	if c.Err != nil {
		j.Error = safe.Sanitize(c.Err.Error())
	}
	return j
}

// checkSurface compares the tools of a configured server with the
// surface pinned at its approval (pinning it on the first connection
// after the approval), and prints what it found on stderr. It lists the
// tools for that: the check must not depend on the command. A session's
// daemon may have handed both over (given): they are taken as they are
// when made for the same policy.
func (inv *invocation) checkSurface(ctx context.Context, t *target, conn *manager.Conn, given *wireAnswer) error {
	if t.server == nil || t.home == "" {
		return nil
	}
	ap, err := t.openApprovals()
	if err != nil {
		return inv.approvalsUnavailable(t.server.Name, t.home, err)
	}
	def, err := ap.Defaults()
	if err != nil {
		inv.say("warning: %s (the safe default applies)\n", safe.Sanitize(err.Error()))
	}
	pin, newTools := manager.PinPolicy(t.server, def.Pin, def.NewTools)
	if inv.takeGiven(t, conn, given, pin, newTools) {
		for _, w := range t.surface.Warnings() {
			inv.say("warning: %s\n", safe.Sanitize(w))
		}
		return nil
	}
	if pin == config.PinOff {
		return nil
	}
	var listed []string
	tools := []*protocol.Tool{}
	if conn.Init().Capabilities.Tools != nil {
		tools, err = conn.ListTools(ctx)
		if err != nil {
			return inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
		}
	}
	for _, tl := range tools {
		listed = append(listed, tl.Name)
	}
	t.surface = manager.CheckSurface(ap, t.server, pin, newTools, tools, conn.Init().Instructions)
	t.listed, t.tools = listed, tools
	for _, w := range t.surface.Warnings() {
		inv.say("warning: %s\n", safe.Sanitize(w))
	}
	return nil
}

// heldTool refuses a call of a tool that is quarantined or held (exit 3).
func (inv *invocation) heldTool(t *target, tool string) error {
	if err := t.surface.Held(tool); err != nil {
		return &failure{code: ExitConfig, server: t.server.Name, phase: manager.PhaseApproval, err: err,
			hints: []string{"review the change with: " + inv.suggest("approve", t.server.Name)}}
	}
	return nil
}

// reviewSurface shows, on stderr, how the surface a server offered last
// differs from the one pinned at its approval, as diff classes the
// changes, with descriptions and instructions compared word by word,
// and pins it (a person approved it). It returns whether it re-pinned.
func (inv *invocation) reviewSurface(ap *config.Approvals, s *config.Server) (bool, error) {
	r, err := manager.ReviewSurface(ap, s)
	if err != nil || r == nil || r.Seen == nil {
		return false, err
	}
	changes, err := r.Changes()
	if err != nil {
		return false, err
	}
	inv.eprintf("the tool surface of %s changed since it was approved:\n", safe.Sanitize(s.Name))
	for _, class := range []string{surface.Breaking, surface.Compatible} {
		for _, c := range changes {
			if c.Class != class {
				continue
			}
			mark := inv.green("+")
			if class == surface.Breaking {
				mark = inv.red("✗")
			}
			inv.eprintf("  %s %s %s\n", mark, class, oneLine(changeLine(c), 300))
		}
	}
	for _, t := range r.Seen.Tools {
		old := r.Pinned.Tool(t.Tool.Name)
		if old != nil && old.Tool.Description != t.Tool.Description {
			inv.eprintf("  tool %s description: %s\n", safe.Sanitize(t.Tool.Name), inv.wordDiff(old.Tool.Description, t.Tool.Description))
		}
	}
	if r.Pinned.Instructions != r.Seen.Instructions {
		inv.eprintf("  instructions: %s\n", inv.wordDiff(r.Pinned.Instructions, r.Seen.Instructions))
	}
	if err := manager.AcceptSurface(ap, s, r); err != nil {
		return false, err
	}
	return true, nil
}

// wordDiff shows a text change word by word: removed words as [-…-],
// added ones as {+…+} (coloured on a terminal), every word sanitized.
func (inv *invocation) wordDiff(old, new string) string {
	var b strings.Builder
	for i, c := range surface.WordDiff(old, new) {
		if i > 0 {
			b.WriteString(" ")
		}
		text := safe.Sanitize(c.Text)
		switch c.Op {
		case '-':
			b.WriteString(inv.red("[-" + text + "-]"))
		case '+':
			b.WriteString(inv.green("{+" + text + "+}"))
		default:
			b.WriteString(text)
		}
	}
	return b.String()
}

// quarantined lists the tools a check holds back, of those listed.
func quarantined(c *manager.SurfaceCheck, listed []string) []string {
	var out []string
	for _, t := range listed {
		if c.Held(t) != nil && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
