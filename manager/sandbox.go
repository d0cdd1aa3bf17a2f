package manager

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/transport"
)

// A SandboxError says that a sandbox cannot be enforced on this system:
// the server is refused, never run unconfined.
type SandboxError = transport.SandboxError

// RunSandboxLauncher runs this process as the sandbox launcher when it
// was started as one, and then never returns; otherwise it returns at
// once. On Linux a sandboxed stdio server is started through a launcher
// that applies the sandbox (Landlock) to itself and then executes the
// server: by default this program. An embedding program that runs
// sandboxed servers calls RunSandboxLauncher first thing in main (and
// TestMain), or sets Options.SandboxLauncher to a program that does (the
// mcpwire binary does).
func RunSandboxLauncher() { transport.RunSandboxLauncher() }

// SandboxSupport says what this system can enforce of a sandbox.
func SandboxSupport() string { return transport.SandboxSupport() }

// sandboxLayers are the sandboxes a stdio server of def runs in, outer
// first, each narrowing the ones before: the home's default
// (defaults.projectSandbox, else defaults.sandbox, for a project server;
// defaults.sandbox for a user's), then the definition's own. A project
// server is any of someone else's text (config.Server.ProjectText: also
// one imported from a project's file into the user's). A user's
// own definition replaces the default (its "sandbox": false lifts it); a
// project's only adds a layer, so it can tighten the user's default,
// never loosen it.
// from says where each layer comes from (Spec.SandboxFrom). A default's
// paths are expanded as a definition's (${VAR}, ~); a reference that
// cannot be expanded is an *config.ExpandError naming the setting, and
// the layer is kept with what could be expanded.
func sandboxLayers(def *config.Server, d config.Defaults, environ []string) (out []*transport.Sandbox, from []string, err error) {
	if def.Type != config.TypeStdio {
		return nil, nil, nil
	}
	outer, outerFrom := d.Sandbox, "defaults.sandbox"
	if def.ProjectText() && d.ProjectSandbox != nil {
		outer, outerFrom = d.ProjectSandbox, "defaults.projectSandbox"
	}
	own := def.Sandbox
	if !def.ProjectText() && own != nil {
		outer = nil // the user's own file says
	}
	if outer != nil && !outer.Off {
		var read, write []string
		read, write, err = outer.ExpandPaths(def.Name, outerFrom, envLookup(environ))
		if def.ProjectText() {
			base := projectFolder(def)
			read, write = anchored(read, base), anchored(write, base)
		}
		out = append(out, &transport.Sandbox{Network: outer.Network, BestEffort: outer.BestEffort, Read: read, Write: write})
		from = append(from, outerFrom)
	}
	if own != nil && !own.Off && def.Expanded != nil {
		out = append(out, &transport.Sandbox{Network: own.Network, BestEffort: own.BestEffort,
			Read: def.Expanded.SandboxRead, Write: def.Expanded.SandboxWrite})
		from = append(from, "definition")
	}
	return out, from, err
}

// projectFolder is the folder a relative path of the home's default
// means for a project server: the folder of the project file that
// defines it, or, for one imported into the user's file, mcpwire's
// working folder; never the folder the server runs in, which the
// project's text chooses ("cwd"): a default's "." must not become the
// user's home. "" when it cannot be known.
func projectFolder(def *config.Server) string {
	if def.Scope == config.ScopeProject && def.Source != "" {
		return filepath.Dir(def.Source)
	}
	wd, _ := os.Getwd()
	return wd
}

// anchored makes the relative paths absolute under base; without a base
// they are left out (fewer rights, never more).
func anchored(paths []string, base string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		switch {
		case filepath.IsAbs(p):
			out = append(out, p)
		case base != "":
			out = append(out, filepath.Join(base, p))
		}
	}
	return out
}

// envLookup looks a variable up in environ (the last setting wins);
// nil environ is this process's.
func envLookup(environ []string) func(string) (string, bool) {
	if environ == nil {
		return os.LookupEnv
	}
	return func(key string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(environ[i], key+"="); ok {
				return v, true
			}
		}
		return "", false
	}
}

// WithSandbox returns spec with the sandboxes of def under the home's
// defaults d (see the sandbox member of a definition); environ gives
// the defaults' ${VAR} and $HOME for their ~ (nil: this process's). An
// error (*config.ExpandError) says a default's path cannot be expanded:
// the server must not run; spec still shows its layers.
func WithSandbox(spec *Spec, def *config.Server, d config.Defaults, environ []string) (*Spec, error) {
	if spec == nil {
		return nil, nil
	}
	var err error
	spec.Sandbox, spec.SandboxFrom, err = sandboxLayers(def, d, environ)
	return spec, err
}

// sandboxDenials are what a program says when the kernel denied it
// something.
var sandboxDenials = []string{"Permission denied", "EACCES", "Operation not permitted", "EPERM"}

// SandboxDenied says whether a contained server's stderr (or an error
// it gave) reads as the sandbox having denied it something.
func SandboxDenied(text string) bool {
	for _, d := range sandboxDenials {
		if strings.Contains(text, d) {
			return true
		}
	}
	return false
}

// SandboxHint is what to do when the sandbox of spec denied something.
func SandboxHint(spec *Spec) string {
	return "the server runs in a sandbox, which denies what its sandbox does not list: allow a path with " +
		`"sandbox": {"read": [...]} or {"write": [...]}, the network with "network": "any" (` + SandboxSupport() + ")"
}
