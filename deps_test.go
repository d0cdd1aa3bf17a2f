package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowedImports is the import graph of DESIGN.md: for each package of
// ours, the packages of ours and the modules outside the standard library
// it may import. internal/... may import anything of ours (test harnesses
// and the demo server), but nothing of ours may import internal/ except
// cli (for the demo server) and tests.
var allowedImports = map[string][]string{
	"mcpwire":           {"mcpwire/cli"},
	"mcpwire/jsonrpc":   {},
	"mcpwire/procgroup": {"golang.org/x/sys"},
	"mcpwire/transport": {"mcpwire/jsonrpc", "mcpwire/procgroup"},
	"mcpwire/protocol":  {"mcpwire/jsonrpc"},
	"mcpwire/config":    {},
	"mcpwire/oauth":     {},
	"mcpwire/manager":   {"mcpwire/config", "mcpwire/transport", "mcpwire/protocol", "mcpwire/oauth", "mcpwire/jsonrpc"},
	"mcpwire/cli":       {"mcpwire/manager", "mcpwire/config", "mcpwire/transport", "mcpwire/protocol", "mcpwire/oauth", "mcpwire/jsonrpc", "mcpwire/internal/demo", "golang.org/x/term"},
}

func TestDependencies(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := "mcpwire"
		if dir := filepath.ToSlash(filepath.Dir(path)); dir != "." {
			pkg += "/" + dir
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !allowed(pkg, p) {
				t.Errorf("%s: package %s may not import %s (see DESIGN.md, layers)", path, pkg, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func allowed(pkg, imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	isStd := !strings.Contains(first, ".") && first != "mcpwire"
	if isStd {
		return true
	}
	if strings.HasPrefix(pkg, "mcpwire/internal/") || strings.HasPrefix(pkg, "mcpwire/scripts/") {
		// Test harnesses and the demo server: anything of ours and x/.
		return first == "mcpwire" || strings.HasPrefix(imp, "golang.org/x/")
	}
	rules, ok := allowedImports[pkg]
	if !ok {
		return false
	}
	for _, r := range rules {
		if imp == r || strings.HasPrefix(imp, r+"/") {
			return true
		}
	}
	return false
}
