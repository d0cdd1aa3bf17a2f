package config

import (
	"fmt"
	"slices"
)

// Defaults are the home's defaults for every definition that does not
// say otherwise, in <home>/settings.json at "defaults":
//
//	{"defaults": {"pin": "enforce", "newTools": "offer"}}
//
// They live in the home, never in a project: a project file cannot
// change them.
type Defaults struct {
	Pin      string // PinEnforce, PinWarn, PinOff; "" when not set
	NewTools string // NewToolsOffer, NewToolsHold; "" when not set
	// Sandbox is the sandbox of every stdio server whose definition gives
	// none ("defaults.sandbox", as a definition's "sandbox"); a user's
	// own definition may replace it. ProjectSandbox
	// ("defaults.projectSandbox") is that of project servers: a project
	// definition's own sandbox only narrows it. nil when not set.
	Sandbox, ProjectSandbox *Sandbox
	// Registry is the MCP Registry that `mcpwire search` and `install`
	// ask ("defaults.registry": a base URL); "" when not set (the
	// official one).
	Registry string
}

// Defaults returns the home's defaults as of the last read of
// settings.json. A value that is not one of its choices is an error
// naming the file and the member; the other values are still returned,
// and the wrong one is left unset (so that its safe default applies).
func (a *Approvals) Defaults() (Defaults, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var d Defaults
	if a.root == nil {
		return d, nil
	}
	m, count := a.root.lookup("defaults")
	switch {
	case count == 0:
		return d, nil
	case count > 1 || m.val.kind != '{':
		// Fail closed: what a wrong "defaults" meant is unknown, so the
		// strictest sandbox stands for it (and pinning is enforced).
		d.Sandbox = &Sandbox{Network: NetworkNone}
		return d, fmt.Errorf("%s: \"defaults\" must be one object (every stdio server runs in the strictest sandbox until it is fixed)", a.path)
	}
	var errs []error
	choice := func(key string, out *string, choices ...string) {
		f, n := m.val.lookup(key)
		if n == 0 {
			return
		}
		if n > 1 || f.val.kind != '"' || !slices.Contains(choices, f.val.str) {
			errs = append(errs, fmt.Errorf("%s: defaults.%s must be one of %v", a.path, key, choices))
			return
		}
		*out = f.val.str
	}
	choice("pin", &d.Pin, PinEnforce, PinWarn, PinOff)
	choice("newTools", &d.NewTools, NewToolsOffer, NewToolsHold)
	box := func(key string, out **Sandbox) {
		f, n := m.val.lookup(key)
		if n == 0 {
			return
		}
		sb, problem := readSandbox(f.val)
		if n > 1 {
			problem = "given twice"
		}
		if problem != "" {
			// Fail closed: the strictest sandbox stands for a wrong one.
			*out = &Sandbox{Network: NetworkNone}
			errs = append(errs, fmt.Errorf("%s: defaults.%s: %s (the strictest sandbox applies)", a.path, key, problem))
			return
		}
		*out = sb
	}
	if f, n := m.val.lookup("registry"); n > 0 {
		if n > 1 || f.val.kind != '"' || f.val.str == "" {
			errs = append(errs, fmt.Errorf("%s: defaults.registry must be one URL", a.path))
		} else {
			d.Registry = f.val.str
		}
	}
	box("sandbox", &d.Sandbox)
	box("projectSandbox", &d.ProjectSandbox)
	if len(errs) > 0 {
		return d, errs[0]
	}
	return d, nil
}
