package manager

import (
	"testing"

	"github.com/mcpwire/mcpwire/config"
)

// TestImportedPolicies: a definition imported from a project's file
// into the user's own (importedFrom) is held as a project's: it runs in
// defaults.projectSandbox, its "sandbox": false lifts nothing, and its
// "pin": "off" does not loosen the home's enforce.
func TestImportedPolicies(t *testing.T) {
	d := config.Defaults{Sandbox: &config.Sandbox{Network: config.NetworkAny},
		ProjectSandbox: &config.Sandbox{Network: config.NetworkNone, Read: []string{"/only"}}}
	imported := &config.Server{Name: "s", Type: config.TypeStdio, Scope: config.ScopeUser,
		ImportedFrom: "/repo/.cursor/mcp.json", Sandbox: &config.Sandbox{Off: true}, Pin: config.PinOff}
	layers, _, _ := sandboxLayers(imported, d, []string{"HOME=/h"})
	if len(layers) != 1 || layers[0].Network != config.NetworkNone || len(layers[0].Read) != 1 {
		t.Fatalf("an imported project definition's sandbox layers: %+v", layers)
	}
	if p, _ := PinPolicy(imported, "", ""); p != config.PinEnforce {
		t.Fatalf("an imported project definition's pin off loosened enforce: %s", p)
	}
	own := *imported
	own.ImportedFrom = ""
	if layers, _, _ := sandboxLayers(&own, d, nil); len(layers) != 0 {
		t.Fatalf("the user's own sandbox false still sandboxed: %+v", layers)
	}
	if p, _ := PinPolicy(&own, "", ""); p != config.PinOff {
		t.Fatalf("the user's own pin off: %s", p)
	}
}
