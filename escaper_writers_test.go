package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// markupWriters are the one function of each sink that writes its
// markup: the Markdown of diff --markdown, the JUnit XML, the man page.
// Each writes every value through its sink's escaper (internal/safe).
var markupWriters = map[string]string{
	"diffMarkdown": "Markdown",
	"encode":       "XML", // (*junitReport).encode
	"manPage":      "roff",
}

// markupMarkers are pieces of markup that only a markup writer writes.
var markupMarkers = map[string][]string{
	"Markdown": {"|---", "### "},
	"XML":      {"<?xml", "<testsuite", "<testcase", "<failure", "<skipped", "<system-"},
	"roff":     {".TH ", ".SH ", ".TP\n", ".RS\n", ".PP\n"},
}

// escapers are the calls whose result is inert in a sink; ours are calls
// that give mcpwire's own words or numbers.
var (
	escapers = map[string]bool{"safe.MarkdownText": true, "safe.MarkdownCode": true, "safe.XMLText": true, "safe.XMLAttr": true,
		"safe.Roff": true, "xmlAttr": true, "xmlText": true, "roff": true}
	ours = map[string]bool{"changeSummary": true, "seconds": true}
	// oursFields are fields of the report that hold numbers or times of
	// mcpwire's making.
	oursFields = map[string]bool{"Tests": true, "Failures": true, "Errors": true, "Skipped": true, "Time": true, "Timestamp": true}
)

// TestEscaperWriters holds cli to one writer per markup sink: markup is
// written only by markupWriters, and there every value that reaches the
// output (an argument of Fprintf, Sprintf or WriteString) is a literal,
// an escaper's result, mcpwire's own number or word, a sum of those, or a
// variable only ever given such values. Code that writes a server's text
// to Markdown, XML or roff without its escaper fails here (issue 20,
// item 4).
func TestEscaperWriters(t *testing.T) {
	found := map[string]bool{}
	fset := token.NewFileSet()
	for _, fn := range cliFuncs(t, fset, func(string) bool { return true }) {
		sink, writer := markupWriters[fn.Name.Name]
		if writer {
			found[fn.Name.Name] = true
			checkWriter(t, fset, fn)
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			v, _ := strconv.Unquote(lit.Value)
			for s, markers := range markupMarkers {
				for _, m := range markers {
					if strings.Contains(v, m) && (!writer || s != sink) {
						t.Errorf("%s: %s writes %s markup (%q): only %s does, through its escaper", fset.Position(lit.Pos()), fn.Name.Name, s, m, writerOf(s))
					}
				}
			}
			return true
		})
	}
	for name := range markupWriters {
		if !found[name] {
			t.Errorf("cli has no function %s: update markupWriters", name)
		}
	}
}

// cliFuncs parses the non-test files of cli whose names keep says yes to
// and returns their functions that have a body.
func cliFuncs(t *testing.T, fset *token.FileSet, keep func(base string) bool) []*ast.FuncDecl {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("cli", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.FuncDecl
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") || !keep(filepath.Base(path)) {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				out = append(out, fn)
			}
		}
	}
	return out
}

func writerOf(sink string) string {
	for f, s := range markupWriters {
		if s == sink {
			return f
		}
	}
	return "?"
}

// checkWriter checks every value a markup writer writes.
func checkWriter(t *testing.T, fset *token.FileSet, fn *ast.FuncDecl) {
	t.Helper()
	assigned := map[string][]ast.Expr{}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && i < len(s.Rhs) && len(s.Lhs) == len(s.Rhs) {
					assigned[id.Name] = append(assigned[id.Name], s.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, id := range s.Names {
				if i < len(s.Values) {
					assigned[id.Name] = append(assigned[id.Name], s.Values[i])
				}
			}
		}
		return true
	})
	var inert func(e ast.Expr, seen map[string]bool) bool
	inert = func(e ast.Expr, seen map[string]bool) bool {
		switch x := e.(type) {
		case *ast.BasicLit:
			return true
		case *ast.ParenExpr:
			return inert(x.X, seen)
		case *ast.BinaryExpr:
			return x.Op == token.ADD && inert(x.X, seen) && inert(x.Y, seen)
		case *ast.CallExpr:
			name := callName(x.Fun)
			return escapers[name] || ours[name]
		case *ast.SelectorExpr:
			return oursFields[x.Sel.Name]
		case *ast.Ident:
			if seen[x.Name] {
				return true
			}
			seen[x.Name] = true
			vals := assigned[x.Name]
			for _, v := range vals {
				if !inert(v, seen) {
					return false
				}
			}
			return len(vals) > 0
		}
		return false
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var vals []ast.Expr
		switch name := callName(call.Fun); {
		case name == "fmt.Fprintf" && len(call.Args) > 2:
			vals = call.Args[2:]
		case name == "fmt.Sprintf" && len(call.Args) > 1:
			vals = call.Args[1:]
		case strings.HasSuffix(name, ".WriteString") || strings.HasSuffix(name, ".Write"):
			vals = call.Args
		}
		for _, v := range vals {
			if !inert(v, map[string]bool{}) {
				t.Errorf("%s: %s writes a value that is not escaped (through %s): %s", fset.Position(v.Pos()), fn.Name.Name,
					"internal/safe's "+markupWriters[fn.Name.Name]+" escaper", types.ExprString(v))
			}
		}
		return true
	})
}

// callName is "pkg.F", "x.M" or "f" for a call's function.
func callName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok {
			return id.Name + "." + f.Sel.Name
		}
		return "." + f.Sel.Name
	}
	return ""
}

// directWriters are the functions of cli, besides its writers (ui.go,
// output.go, jsonout.go: printf, say, table, writeJSON, the live line),
// that touch stdout or stderr themselves, and why what they write is
// inert there.
var directWriters = map[string]string{
	"emit":             "--events: each line through safe.EscapeJSON",
	"Main":             "before any server: mcpwire's own usage and flag errors",
	"runHelp":          "mcpwire's own help",
	"runCompletion":    "a script of mcpwire's own words (names come at TAB time, valid ones only)",
	"runMan":           "manPage, all through safe.Roff",
	"runSnapshot":      "the snapshot through safe.EscapeJSON",
	"stderrRelay":      "a server's stderr through safe.NewTextWriter, each line after its name",
	"runServeDemo":     "the demo server's own stdio",
	"runServe":         "stdout is the MCP stream to the host (JSON-RPC, encoded by jsonrpc); diagnostics go to stderr through safe.NewTextWriter",
	"runProxy":         "stdout is the MCP stream to the host (JSON-RPC, encoded by jsonrpc); the server's diagnostics go to stderr through safe.NewTextWriter",
	"runCompleteWords": "valid server names only",
	"runReplay":        "stdout is the MCP stream to the client (JSON-RPC, encoded by jsonrpc); diagnostics go to stderr through safe.NewTextWriter",
	"OSEnv":            "hands the process's streams to Env; writes nothing",
	"terminalColumns":  "asks the terminal's width; writes nothing",
	"sessionInv":       "sets a session's streams (stdout to io.Discard) for the daemon; writes nothing",
	"dial":             "a session's server diagnostics go to the daemon's log through safe.NewTextWriter",
}

// TestEscaperDirectWrites fails when a function of cli that is not one
// of directWriters touches stdout or stderr itself, instead of going
// through the writers that sanitize, mask and escape: a new one must
// say here why its output is inert (issue 20, item 4).
func TestEscaperDirectWrites(t *testing.T) {
	fset := token.NewFileSet()
	writers := func(base string) bool { return base != "ui.go" && base != "output.go" && base != "jsonout.go" }
	for _, fn := range cliFuncs(t, fset, writers) {
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Stdout" && sel.Sel.Name != "Stderr" {
				return true
			}
			if x := types.ExprString(sel.X); (x == "env" || strings.HasSuffix(x, ".env") || x == "os") && directWriters[fn.Name.Name] == "" {
				t.Errorf("%s: %s writes to %s itself: print through inv.printf/eprintf/say/writeJSON, or add it to directWriters saying why its output is inert",
					fset.Position(sel.Pos()), fn.Name.Name, types.ExprString(sel))
			}
			return true
		})
	}
}
