package manager

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
)

// TestNewDefaultHome: New without a Home uses the home folder of the
// mcpwire command ($MCPWIRE_HOME first): a definition approved there
// runs, and Manager.Home says which folder it is. When no folder can be
// found, New fails and says what to set (issue 21, item 9).
func TestNewDefaultHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MCPWIRE_HOME", dir)
	writeConfig(t, dir, demoServer{name: "s"})
	cfg := loadConfig(t, dir)
	approvals, err := config.OpenApprovals(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := approvals.Approve(cfg.Server("s")); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: cfg, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if got := m.Home().Dir(); got != dir {
		t.Fatalf("Home().Dir() = %q, want $MCPWIRE_HOME %q", got, dir)
	}
	if tools := mustTools(t, m); len(tools) != demoTools {
		t.Fatalf("%d tools from a server approved in the default home, want %d", len(tools), demoTools)
	}

	xdg := t.TempDir()
	t.Setenv("MCPWIRE_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	m2, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	m2.Close()
	if got, want := m2.Home().Dir(), filepath.Join(xdg, "mcpwire"); got != want {
		t.Fatalf("Home().Dir() = %q, want %q", got, want)
	}

	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return // os.UserHomeDir reads other variables there
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	_, err = New(Options{Config: cfg})
	if err == nil || !strings.Contains(err.Error(), "MCPWIRE_HOME") || !strings.Contains(err.Error(), "Options.Home") {
		t.Fatalf("New without any home folder = %v, want an error naming MCPWIRE_HOME and Options.Home", err)
	}
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "Options.Config") {
		t.Fatalf("New without a configuration = %v", err)
	}
}

// TestOpenHome: a Home is absolute, need not exist, and refuses "".
func TestOpenHome(t *testing.T) {
	if _, err := OpenHome(""); err == nil {
		t.Fatal(`OpenHome("") succeeded`)
	}
	t.Chdir(t.TempDir())
	h := openHome(t, "sub")
	if !filepath.IsAbs(h.Dir()) || filepath.Base(h.Dir()) != "sub" {
		t.Fatalf("Dir() = %q, want an absolute path ending in sub", h.Dir())
	}
	if h.EraCache() == nil {
		t.Fatal("no era cache")
	}
	// Nothing exists yet: every reading method says so without failing.
	if st := h.Auth("x"); st.State != AuthNotLoggedIn {
		t.Errorf("Auth = %+v", st)
	}
	if su, err := h.StepUp("x"); su != nil || err != nil {
		t.Errorf("StepUp = %+v, %v", su, err)
	}
	if res, err := h.Logout(context.Background(), "x"); err != nil || res.LoggedIn {
		t.Errorf("Logout = %+v, %v", res, err)
	}
	// Approvals create the folder and the key.
	if _, err := h.Approvals(); err != nil {
		t.Fatal(err)
	}
}

// TestAPIHidesOAuth: no exported name of the package hands out a type
// of the oauth package (a token store, its states, its errors), and no
// exported function takes a home path: an agent reaches what lives in
// the home folder through Home and branches on this package's errors.
func TestAPIHidesOAuth(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Name.IsExported() {
				for _, p := range fd.Type.Params.List {
					for _, id := range p.Names {
						if typ, ok := p.Type.(*ast.Ident); ok && typ.Name == "string" && strings.EqualFold(id.Name, "home") {
							t.Errorf("%s: %s takes a home path: make it a method of Home", fset.Position(fd.Pos()), fd.Name.Name)
						}
					}
				}
			}
			for _, n := range exportedParts(decl) {
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "oauth" {
							t.Errorf("%s: an exported name hands out oauth.%s", fset.Position(sel.Pos()), sel.Sel.Name)
						}
					}
					return true
				})
			}
		}
	}
}

// exportedParts are the parts of decl an importer sees: the signatures
// of exported functions and methods, and the exported types with their
// exported fields (values are left out: a constant or variable that
// re-exports a sentinel error is an error value, not a type).
func exportedParts(decl ast.Decl) []ast.Node {
	var out []ast.Node
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if d.Name.IsExported() {
			out = append(out, d.Type)
		}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				out = append(out, ts.Type)
				continue
			}
			for _, field := range st.Fields.List {
				if len(field.Names) == 0 || field.Names[0].IsExported() {
					out = append(out, field.Type)
				}
			}
		}
	}
	return out
}
