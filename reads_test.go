package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readAllowed lists the files that may open a file for reading without
// safe.ReadFile, each with its reason. Keep it short.
var readAllowed = map[string]string{
	// The bounded reader itself, and the fsync of a folder after a rename.
	"internal/safe/read.go":         "the one reader",
	"internal/safe/read_unix.go":    "the one reader (open without blocking)",
	"internal/safe/read_other.go":   "the one reader",
	"internal/safe/write.go":        "opens a folder to fsync it, reads nothing",
	"internal/safe/lock_unix.go":    "opens a lock file to lock it, reads nothing",
	"internal/safe/lock_windows.go": "opens a lock file to lock it, reads nothing",
	"internal/safe/lock_other.go":   "opens a lock file to lock it, reads nothing",
	// The controlling terminal: the answer to a prompt, typed by the
	// person at it, one line at a time; not a file of anyone's.
	"cli/prompt_unix.go": "the terminal (/dev/tty) of a prompt",
	// The session daemon's log (appended to, never read) and the pipe
	// that tells its starter it listens (written, never read).
	"cli/daemon_unix.go":    "opens the session daemon's log to append to it, and its ready pipe to write it; reads nothing",
	"cli/daemon_windows.go": "opens the session daemon's log to append to it, and its ready pipe to write it; reads nothing",
	"cli/daemonready.go":    "writes the session daemon's ready pipe (Unix and Windows); reads nothing",
	// A named pipe of the user's (the session daemon's), not a file.
	"internal/safe/pipe_windows.go": "opens and wraps named pipes (the session daemon's), not files",
	// A sandbox's paths, opened with O_PATH to name them to Landlock.
	"procgroup/sandbox_linux.go": "opens sandbox paths with O_PATH for Landlock rules, reads nothing",
}

// fileReaders are the calls that read a file, or open one that could be
// read, by package path and function name.
var fileReaders = map[string]map[string]bool{
	"os":        {"ReadFile": true, "Open": true, "OpenFile": true, "NewFile": true, "DirFS": true, "OpenInRoot": true, "OpenRoot": true},
	"io/ioutil": {"ReadFile": true, "ReadAll": true},
	"io/fs":     {"ReadFile": true},
	"syscall":   {"Open": true, "Openat": true, "Read": true},
	"golang.org/x/sys/unix": {
		"Open": true, "Openat": true, "Openat2": true, "Read": true, "Pread": true,
	},
	"golang.org/x/sys/windows": {"CreateFile": true, "ReadFile": true},
}

// TestOneReader: every file mcpwire reads goes through the one bounded
// reader, safe.ReadFile (DESIGN.md, "By construction"): no other code
// calls os.ReadFile, os.Open, os.OpenFile for reading, ioutil.ReadFile,
// fs.ReadFile, io.ReadAll of os.Stdin or of a file it opened, or the
// system calls behind them. os.OpenFile with write-only flags is allowed.
func TestOneReader(t *testing.T) {
	for _, path := range goSources(t) {
		rel := filepath.ToSlash(path)
		if _, ok := readAllowed[rel]; ok {
			continue
		}
		for _, bad := range fileReads(t, path, nil) {
			t.Errorf("%s; read files with safe.ReadFile (the one bounded reader), or add the file to readAllowed with its reason", bad)
		}
	}
}

// goSources lists the module's non-test Go files (hidden folders,
// testdata and node_modules left out).
func goSources(t *testing.T) []string {
	t.Helper()
	var out []string
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
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fileReads returns the positions and calls in the Go file at path that
// read a file other than through safe.ReadFile.
func fileReads(t *testing.T, path string, src any) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		pkg, fn := callee(call, names)
		switch {
		case fileReaders[pkg][fn] && !(pkg == "os" && fn == "OpenFile" && writeOnly(call, names)):
		case (pkg == "io" || pkg == "io/ioutil") && fn == "ReadAll" && len(call.Args) == 1 && readsFile(call.Args[0], names):
		case pkg == "bufio" && len(call.Args) >= 1 && readsFile(call.Args[0], names):
		default:
			return true
		}
		out = append(out, fmt.Sprintf("%s: %s.%s", fset.Position(call.Pos()), pkg, fn))
		return true
	})
	return out
}

// callee returns the import path and name of a call of pkg.Name.
func callee(call *ast.CallExpr, names map[string]string) (pkg, fn string) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	return names[id.Name], sel.Sel.Name
}

// readsFile: e is os.Stdin or a file os.Open-like calls give (the calls
// themselves are caught; this catches the standard input).
func readsFile(e ast.Expr, names map[string]string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && names[id.Name] == "os" && sel.Sel.Name == "Stdin"
}

// writeOnly: the flags of an os.OpenFile call hold O_WRONLY and not
// O_RDWR or O_RDONLY (a file opened to write cannot be read).
func writeOnly(call *ast.CallExpr, names map[string]string) bool {
	if len(call.Args) < 2 {
		return false
	}
	flags := map[string]bool{}
	ast.Inspect(call.Args[1], func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			flags[sel.Sel.Name] = true
		}
		return true
	})
	return flags["O_WRONLY"] && !flags["O_RDWR"] && !flags["O_RDONLY"]
}

// TestOneReaderCatches: the walk of TestOneReader finds each way around
// the reader, and lets a write-only open pass.
func TestOneReaderCatches(t *testing.T) {
	src := `package x

import (
	"bufio"
	"io"
	"io/ioutil"
	xos "os"
	"golang.org/x/sys/unix"
)

func f() {
	xos.ReadFile("a")
	ioutil.ReadFile("b")
	xos.Open("c")
	xos.OpenFile("d", xos.O_RDWR|xos.O_CREATE, 0)
	io.ReadAll(xos.Stdin)
	bufio.NewScanner(xos.Stdin)
	unix.Open("e", unix.O_RDONLY, 0)
	xos.OpenFile("log", xos.O_WRONLY|xos.O_APPEND|xos.O_CREATE, 0o600)
}
`
	got := fileReads(t, "x.go", src)
	if len(got) != 7 {
		t.Errorf("found %d reads, want 7:\n%s", len(got), strings.Join(got, "\n"))
	}
}
