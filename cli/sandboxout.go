package cli

import (
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// sandboxJSON is how a stdio server runs contained, in list and test
// --json: nil (null) when it runs unconfined or is not a stdio server.
type sandboxJSON struct {
	// Network is what the layers leave of the network together: none
	// when any says none, else any.
	Network string `json:"network"`
	// BestEffort says the server runs with what this system can enforce
	// (every layer says bestEffort), not refused where a rule cannot be.
	BestEffort bool               `json:"bestEffort"`
	Layers     []sandboxLayerJSON `json:"layers"` // outer first; each narrows the ones before
}

// sandboxLayerJSON is one sandbox of a server, with where it comes from.
type sandboxLayerJSON struct {
	From       string   `json:"from"` // defaults.sandbox, defaults.projectSandbox or definition
	Network    string   `json:"network"`
	Read       []string `json:"read"`  // the paths it may read beyond the defaults, expanded
	Write      []string `json:"write"` // the paths it may write beyond the defaults, expanded
	BestEffort bool     `json:"bestEffort"`
}

// newSandboxJSON is how spec runs contained (nil: unconfined).
func newSandboxJSON(spec *manager.Spec) *sandboxJSON {
	if spec == nil || len(spec.Sandbox) == 0 {
		return nil
	}
	sj := &sandboxJSON{Network: config.NetworkAny, BestEffort: true, Layers: []sandboxLayerJSON{}}
	for i, b := range spec.Sandbox {
		from := "definition"
		if i < len(spec.SandboxFrom) {
			from = spec.SandboxFrom[i]
		}
		if b.Network != config.NetworkAny {
			sj.Network = config.NetworkNone
		}
		sj.BestEffort = sj.BestEffort && b.BestEffort
		sj.Layers = append(sj.Layers, sandboxLayerJSON{From: from, Network: b.Network, Read: nonNil(b.Read), Write: nonNil(b.Write), BestEffort: b.BestEffort})
	}
	return sj
}

// sandboxOf is how a configured server's definition runs contained
// under the home's defaults d.
func (inv *invocation) sandboxOf(s *config.Server, d config.Defaults) *sandboxJSON {
	spec, _ := manager.WithSandbox(&manager.Spec{}, s, d, inv.env.Environ()) // running it says the error
	return newSandboxJSON(spec)
}

// sandboxLine is a sandbox for people, on one line, each layer with
// where it comes from: "network none, read /data (definition)"; layers
// are joined by " within " (each narrows the ones before).
func sandboxLine(sj *sandboxJSON) string {
	var layers []string
	for _, l := range sj.Layers {
		parts := []string{"network " + l.Network}
		if len(l.Read) > 0 {
			parts = append(parts, "read "+strings.Join(l.Read, " "))
		}
		if len(l.Write) > 0 {
			parts = append(parts, "write "+strings.Join(l.Write, " "))
		}
		if l.BestEffort {
			parts = append(parts, "best effort")
		}
		layers = append(layers, strings.Join(parts, ", ")+" ("+l.From+")")
	}
	return safe.Sanitize(strings.Join(layers, " within "))
}
