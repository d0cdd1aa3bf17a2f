package procgroup

import (
	"errors"
	"strings"
	"testing"
)

// TestEnforceableRefuses: a rule the kernel cannot enforce refuses the
// server with what is missing (no Landlock; "network": "none" below ABI
// 4), unless every layer says bestEffort: a project's best-effort layer
// under the user's strict default does not make the whole best effort.
func TestEnforceableRefuses(t *testing.T) {
	strict := &Sandbox{Network: NetworkNone}
	loose := &Sandbox{Network: NetworkNone, BestEffort: true}
	files := &Sandbox{Network: NetworkAny}
	noLandlock := errors.New("Landlock is not available: function not implemented")
	cases := []struct {
		abi     int
		boxes   []*Sandbox
		missing string // "" when enforceable
	}{
		{0, []*Sandbox{files}, "Landlock is not available"},
		{3, []*Sandbox{strict}, "needs TCP rules (Landlock ABI 4"},
		{3, []*Sandbox{files}, ""},
		{3, []*Sandbox{loose}, ""},
		{0, []*Sandbox{loose}, ""},
		{3, []*Sandbox{strict, loose}, "needs TCP rules"},
		{7, []*Sandbox{strict, loose}, ""},
	}
	for _, c := range cases {
		err := enforceable(c.abi, noLandlock, c.boxes)
		var se *SandboxError
		switch {
		case c.missing == "" && err != nil:
			t.Errorf("ABI %d, %d layers: refused: %v", c.abi, len(c.boxes), err)
		case c.missing != "" && (!errors.As(err, &se) || !strings.Contains(se.Missing, c.missing) || !strings.Contains(err.Error(), "the server is not run")):
			t.Errorf("ABI %d, %d layers: %v, want a *SandboxError naming %q", c.abi, len(c.boxes), err, c.missing)
		}
	}
}
