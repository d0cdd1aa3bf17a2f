package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is the import graph of DESIGN.md ("Layers and who may
// import whom"), exactly: for each package of ours (by its path inside the
// module, "." for the command), the packages of ours (also inside the
// module) and the modules outside the standard library it may import.
// Every layer may import the shared safety package, internal/safe, which
// imports nothing of ours; nothing else of ours may import internal/
// except cli (the demo server, for serve-demo). Test harnesses, the demo
// server, scripts and examples (internal/..., scripts/..., examples/...)
// may import anything of ours.
var allowedImports = map[string][]string{
	".":       {"cli"},
	"jsonrpc": {safe, "jsonrpc/jsonscan"},
	// jsonrpc's JSON toolkit (validator, cursor, unquoting, line reader):
	// part of jsonrpc's layer, a package of its own so that jsonrpc holds
	// the JSON-RPC story alone; those that may import jsonrpc may import it.
	"jsonrpc/jsonscan": {},
	"procgroup":        {safe, "golang.org/x/sys"},
	"transport":        {safe, "jsonrpc", "procgroup"},
	"protocol":         {safe, "jsonrpc"},
	// The surface engine (snapshot, diff, fingerprints): below manager,
	// beside the session; it knows protocol's types and nothing else.
	"protocol/surface": {"protocol"},
	// The server side of MCP (both eras, both transports): protocol's
	// layer, on jsonrpc; used by the demo, proxy, serve and replay.
	"protocol/server": {safe, "jsonrpc", "jsonrpc/jsonscan", "protocol"},
	"config":          {safe},
	// The registry client and lock file: config's layer, below manager
	// and cli.
	"config/registry": {safe, "config"},
	"oauth":           {safe},
	"manager":         {safe, "config", "transport", "protocol", "oauth"},
	"cli":             {safe, "manager", "config", "config/registry", "protocol", "protocol/server", "internal/demo", "golang.org/x/term"},
	"internal/safe":   {"golang.org/x/sys"},
}

// safe is the shared safety package.
const safe = "internal/safe"

// modulePath reads the module line of go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod: no module line")
	return ""
}

func TestModulePath(t *testing.T) {
	if got, want := modulePath(t), "github.com/mcpwire/mcpwire"; got != want {
		t.Fatalf("module path %q, want %q (DESIGN.md: go install …@latest must work)", got, want)
	}
}

func TestDependencies(t *testing.T) {
	mod := modulePath(t)
	for _, path := range goSources(t) {
		pkg := filepath.ToSlash(filepath.Dir(path))
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !allowed(mod, pkg, p) {
				t.Errorf("%s: package %s may not import %s (see DESIGN.md, layers)", path, pkg, p)
			}
		}
	}
}

// allowed reports whether the package at pkg (a path inside the module)
// may import imp (a full import path).
func allowed(mod, pkg, imp string) bool {
	ours := imp == mod || strings.HasPrefix(imp, mod+"/")
	first, _, _ := strings.Cut(imp, "/")
	if !ours && !strings.Contains(first, ".") {
		return true // the standard library
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(imp, mod), "/")
	if pkg != safe && (strings.HasPrefix(pkg, "internal/") || strings.HasPrefix(pkg, "scripts/") || strings.HasPrefix(pkg, "examples/")) {
		// Test harnesses, the demo server and examples: anything of ours and x/.
		return ours || strings.HasPrefix(imp, "golang.org/x/")
	}
	rules, ok := allowedImports[pkg]
	if !ok {
		return false
	}
	for _, r := range rules {
		if ours && (rel == r || strings.HasPrefix(rel, r+"/")) {
			return true
		}
		if !ours && (imp == r || strings.HasPrefix(imp, r+"/")) {
			return true
		}
	}
	return false
}
