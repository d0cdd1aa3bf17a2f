package manager

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// A ToolChangedError refuses a call of a tool whose surface (description,
// schemas, annotations) changed since its server was approved, or that
// is new and held by "newTools": "hold", or that cannot be checked (the
// pinned surface cannot be read or trusted).
type ToolChangedError struct {
	Server, Tool string
	// Why is "changed", "new" or "unverified".
	Why string
}

func (e *ToolChangedError) Error() string {
	switch e.Why {
	case "new":
		return fmt.Sprintf("tool %s of server %s is new since the server was approved (newTools: hold): run `mcpwire approve %s` to review", e.Tool, e.Server, e.Server)
	case "unverified":
		return fmt.Sprintf("tool %s of server %s cannot be checked against its approved surface: run `mcpwire approve %s` to review", e.Tool, e.Server, e.Server)
	}
	return fmt.Sprintf("tool %s of server %s changed since it was approved: run `mcpwire approve %s` to review", e.Tool, e.Server, e.Server)
}

// A SurfaceCheck is how a server's tools compare with the surface pinned
// when the server first connected after its approval.
type SurfaceCheck struct {
	Server string
	// Pin and NewTools are the policy applied (config.PinEnforce, …).
	Pin, NewTools string
	// Pinned says the surface was compared with a pinned one; false when
	// it was pinned now (the first connection after the approval) or the
	// policy is off.
	Pinned bool
	// Changed are the tools whose surface changed since the approval;
	// with Pin enforce they are quarantined. Added are tools the pinned
	// surface does not hold (held with NewTools hold, pinned with offer);
	// Removed are pinned tools no longer listed. All sorted.
	Changed, Added, Removed []string
	// InstructionsChanged says the server's instructions changed; with
	// Pin enforce the approved ones are handed out instead.
	InstructionsChanged bool
	// Instructions are the instructions to hand out.
	Instructions string
	// Err says the pinned surface could not be read, written or trusted
	// (a *config.PinError); with Pin enforce every tool is then held.
	Err error
}

// pinRecord is what the Manager keeps in a pin file: the pinned surface,
// and the last surface seen that differs from it (for the review).
type pinRecord struct {
	Pinned *surface.Pin `json:"pinned"`
	Seen   *surface.Pin `json:"seen,omitempty"`
}

// PinPolicy is the pin policy of def: its "pin" and "newTools", else
// the defaults given (an Options' or the home's), else enforce and offer.
// A project's definition (config.Server.ProjectText: also one imported
// from a project's file) only tightens the defaults, never loosens them:
// its "pin": "off" stands only where the defaults say "off" too.
func PinPolicy(def *config.Server, pin, newTools string) (string, string) {
	pin, newTools = pinChoice(pin), newToolsChoice(newTools)
	p, n := pinChoice(def.Pin), newToolsChoice(def.NewTools)
	if def.Pin == "" || def.ProjectText() && pinRank(p) < pinRank(pin) {
		p = pin
	}
	if def.NewTools == "" || def.ProjectText() && newTools == config.NewToolsHold {
		n = newTools
	}
	return p, n
}

func pinChoice(p string) string {
	if p != config.PinWarn && p != config.PinOff {
		return config.PinEnforce
	}
	return p
}

func newToolsChoice(n string) string {
	if n != config.NewToolsHold {
		return config.NewToolsOffer
	}
	return n
}

// pinRank orders the pin policies from the loosest (off) up.
func pinRank(p string) int {
	return map[string]int{config.PinOff: 0, config.PinWarn: 1, config.PinEnforce: 2}[p]
}

// CheckSurface compares the tools and instructions a server just gave
// with the surface pinned at its approval (approvals' pin file of def),
// pinning them when none is yet, and records a changed surface as seen,
// for `mcpwire approve` to show. pin and newTools are the policy
// (PinPolicy). It reads and writes the pin file: call it without locks.
func CheckSurface(approvals *config.Approvals, def *config.Server, pin, newTools string, tools []*protocol.Tool, instructions string) *SurfaceCheck {
	c := &SurfaceCheck{Server: def.Name, Pin: pin, NewTools: newTools, Instructions: instructions}
	if pin == config.PinOff || approvals == nil {
		return c
	}
	now, err := surface.NewPin(tools, instructions)
	if err != nil {
		c.Err = fmt.Errorf("the tools of server %s cannot be pinned: %v", def.Name, err)
		return c.closed()
	}
	rec, err := LoadPins(approvals, def)
	if err != nil {
		c.Err = err
		return c.closed()
	}
	if rec == nil {
		c.Err = savePins(approvals, def, &pinRecord{Pinned: now})
		return c.closed()
	}
	c.Pinned = true
	before, _ := rec.encode()
	v := rec.Pinned.Compare(now)
	c.Changed, c.Added, c.Removed, c.InstructionsChanged = v.Changed, v.Added, v.Removed, v.InstructionsChanged
	if c.InstructionsChanged && pin == config.PinEnforce {
		c.Instructions = rec.Pinned.Instructions
	}
	if len(c.Added) > 0 && newTools == config.NewToolsOffer {
		// New tools are offered, and pinned from now on: a later change
		// of one is caught like any other.
		for _, name := range c.Added {
			rec.Pinned.Tools = append(rec.Pinned.Tools, now.Tool(name))
		}
		slices.SortStableFunc(rec.Pinned.Tools, func(a, b *surface.PinnedTool) int { return strings.Compare(a.Tool.Name, b.Tool.Name) })
		c.Added = nil
	}
	// The surface seen is kept while it differs from the pinned one
	// (removals alone need no review: a removed tool is gone).
	rec.Seen = nil
	if len(c.Changed) > 0 || len(c.Added) > 0 || c.InstructionsChanged {
		rec.Seen = now
	}
	if after, err := rec.encode(); err != nil || string(after) != string(before) {
		c.Err = savePins(approvals, def, rec)
	}
	return c.closed()
}

// closed applies failing closed: a surface that could not be checked
// holds every tool (with Pin enforce).
func (c *SurfaceCheck) closed() *SurfaceCheck {
	if c.Err != nil && c.Pin == config.PinEnforce {
		c.Instructions = ""
	}
	return c
}

// Held says why tool may not be offered or called now, or nil: changed
// (quarantined), new and held, or unverifiable, by the policy.
func (c *SurfaceCheck) Held(tool string) error {
	if c == nil || c.Pin != config.PinEnforce {
		return nil
	}
	switch {
	case c.Err != nil:
		return &ToolChangedError{Server: c.Server, Tool: tool, Why: "unverified"}
	case slices.Contains(c.Changed, tool):
		return &ToolChangedError{Server: c.Server, Tool: tool, Why: "changed"}
	case c.NewTools == config.NewToolsHold && slices.Contains(c.Added, tool):
		return &ToolChangedError{Server: c.Server, Tool: tool, Why: "new"}
	}
	return nil
}

// Warnings are what a person should read about the check: each tool
// quarantined or held, changed instructions, a pinned surface that could
// not be used. Tool and server names are the server's: sanitize them
// for a terminal.
func (c *SurfaceCheck) Warnings() []string {
	if c == nil {
		return nil
	}
	var out []string
	if c.Err != nil {
		what := "every tool is held"
		if c.Pin != config.PinEnforce {
			what = "its tools are offered unchecked (pin: " + c.Pin + ")"
		}
		out = append(out, fmt.Sprintf("%v: %s; run `mcpwire approve %s` to review", c.Err, what, c.Server))
	}
	for _, t := range c.Changed {
		if err := c.Held(t); err != nil {
			out = append(out, err.Error())
		} else {
			out = append(out, fmt.Sprintf("tool %s of server %s changed since it was approved (offered: pin is %s): run `mcpwire approve %s` to review", t, c.Server, c.Pin, c.Server))
		}
	}
	for _, t := range c.Added {
		if err := c.Held(t); err != nil {
			out = append(out, err.Error())
		}
	}
	if c.InstructionsChanged {
		what := "the approved ones are handed out"
		if c.Pin != config.PinEnforce {
			what = "the new ones are handed out (pin: " + c.Pin + ")"
		}
		out = append(out, fmt.Sprintf("the instructions of server %s changed since it was approved (%s): run `mcpwire approve %s` to review", c.Server, what, c.Server))
	}
	return out
}

// LoadPins reads the pinned surface of def (nil when none is pinned
// under its current approval); an error is a *config.PinError.
func LoadPins(approvals *config.Approvals, def *config.Server) (*pinRecord, error) {
	raw, err := approvals.LoadPin(def)
	if err != nil || raw == nil {
		return nil, err
	}
	var rec pinRecord
	var parts struct {
		Pinned json.RawMessage `json:"pinned"`
		Seen   json.RawMessage `json:"seen"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, &config.PinError{Server: def.Name, Path: approvals.PinPath(def), Err: err}
	}
	if rec.Pinned, err = surface.ReadPin(parts.Pinned); err != nil {
		return nil, &config.PinError{Server: def.Name, Path: approvals.PinPath(def), Err: err}
	}
	if len(parts.Seen) > 0 && string(parts.Seen) != "null" {
		if rec.Seen, err = surface.ReadPin(parts.Seen); err != nil {
			return nil, &config.PinError{Server: def.Name, Path: approvals.PinPath(def), Err: err}
		}
	}
	return &rec, nil
}

// encode is the record's JSON.
func (rec *pinRecord) encode() ([]byte, error) {
	p, err := rec.Pinned.Encode()
	if err != nil {
		return nil, err
	}
	raw := append([]byte(`{"pinned":`), p...)
	if rec.Seen != nil {
		s, err := rec.Seen.Encode()
		if err != nil {
			return nil, err
		}
		raw = append(append(raw, `,"seen":`...), s...)
	}
	return append(raw, '}'), nil
}

// savePins writes def's pin record.
func savePins(approvals *config.Approvals, def *config.Server, rec *pinRecord) error {
	raw, err := rec.encode()
	if err != nil {
		return err
	}
	return approvals.SavePin(def, raw)
}

// A SurfaceReview is what a review of a server's surface shows: the
// surface pinned at its approval, and the last one seen that differs from
// it (nil when none did).
type SurfaceReview struct {
	Server string
	Pinned *surface.Pin
	Seen   *surface.Pin
	text   []byte // the record as read, to refuse a stale acceptance
}

// ReviewSurface reads the pinned surface of def: nil when none is pinned
// under its current approval (it is pinned when the server next
// connects). An error is a *config.PinError.
func ReviewSurface(approvals *config.Approvals, def *config.Server) (*SurfaceReview, error) {
	rec, err := LoadPins(approvals, def)
	if err != nil || rec == nil {
		return nil, err
	}
	text, _ := rec.encode()
	return &SurfaceReview{Server: def.Name, Pinned: rec.Pinned, Seen: rec.Seen, text: text}, nil
}

// Changes lists how the surface seen differs from the pinned one, as
// surface.Diff classes them (none when nothing different was seen).
func (r *SurfaceReview) Changes() ([]surface.Change, error) {
	if r.Seen == nil {
		return nil, nil
	}
	return surface.Diff(r.Pinned.Snapshot(r.Server), r.Seen.Snapshot(r.Server))
}

// A StaleSurfaceError refuses to accept a surface that changed since the
// review was read: review it again.
type StaleSurfaceError struct{ Server string }

func (e *StaleSurfaceError) Error() string {
	return fmt.Sprintf("the surface of server %s changed since it was shown: review it again", e.Server)
}

// AcceptSurface pins the surface the review showed as seen (a person
// approved it); a review with nothing seen changes nothing. When the pin
// file changed since the review was read, it refuses with a
// *StaleSurfaceError.
func AcceptSurface(approvals *config.Approvals, def *config.Server, r *SurfaceReview) error {
	if r == nil || r.Seen == nil {
		return nil
	}
	now, err := ReviewSurface(approvals, def)
	if err != nil {
		return err
	}
	if now == nil || string(now.text) != string(r.text) {
		return &StaleSurfaceError{Server: def.Name}
	}
	return savePins(approvals, def, &pinRecord{Pinned: r.Seen})
}

// SurfaceReview reads the surface pinned for def in the home (see
// ReviewSurface): nil when none is pinned under its current approval.
func (h *Home) SurfaceReview(def *config.Server) (*SurfaceReview, error) {
	a, err := h.Approvals()
	if err != nil {
		return nil, err
	}
	return ReviewSurface(a, def)
}

// AcceptSurface pins, in the home, the surface the review showed as seen
// (see AcceptSurface): a person approved it.
func (h *Home) AcceptSurface(def *config.Server, r *SurfaceReview) error {
	a, err := h.Approvals()
	if err != nil {
		return err
	}
	return AcceptSurface(a, def, r)
}
