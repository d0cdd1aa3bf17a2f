package manager

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/procgroup"
)

// TestSandboxedFilesystemServer: server-filesystem from npm, contained
// with network none, its package readable and its root in the write
// list, lists, writes and reads files of its root.
func TestSandboxedFilesystemServer(t *testing.T) {
	proctest.Check(t)
	needLandlockNet(t)
	argv := peers.Filesystem(t, "ROOT")
	home, root := t.TempDir(), t.TempDir()
	argv[len(argv)-1] = root
	modules := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(argv[1])))) // .deps/node_modules
	entry := map[string]any{"command": argv[0], "args": argv[1:],
		"sandbox": map[string]any{"network": "none", "read": []string{modules}, "write": []string{root}}}
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": entry}})
	if err := os.WriteFile(filepath.Join(home, config.FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: loadConfig(t, home), Home: openHome(t, home), TrustAll: true, StartupTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	if st := state(t, m, "fs"); st.State != StateConnected || !st.Sandboxed {
		t.Fatalf("state %s: %v", st.State, st.Err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	file := filepath.Join(root, "note.txt")
	res, err := m.Call(ctx, toolNamed(t, tools, "fs", "write_file"), map[string]any{"path": file, "content": "contained"})
	if err != nil || res.IsError {
		t.Fatalf("write_file: %v %+v", err, res)
	}
	res, err = m.Call(ctx, toolNamed(t, tools, "fs", "read_text_file"), map[string]any{"path": file})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "contained") {
		t.Fatalf("read_text_file: %v %+v", err, res)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "contained" {
		t.Fatalf("the file written: %q %v", b, err)
	}
}

// TestProjectCannotMoveTheDefaultsFolder: the home's projectSandbox lets
// project servers write "." (the project); a project server whose "cwd"
// is another folder (the user's home, say) still writes only the
// project folder: a default's relative path is anchored where the
// project file is, not where the project's text runs the server. The
// server, python writing a file in each, is held by the kernel.
func TestProjectCannotMoveTheDefaultsFolder(t *testing.T) {
	proctest.Check(t)
	needLandlockNet(t)
	home := t.TempDir()
	proj, victim := filepath.Join(home, "project"), t.TempDir()
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"defaults": {"projectSandbox": {"network": "none", "write": ["."]}}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	entry, _ := json.Marshal(map[string]any{"command": "/usr/bin/python3", "cwd": victim,
		"args": []string{"-c", writeEach, "planted", filepath.Join(proj, "written")}})
	if err := os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte(`{"mcpServers": {"p": `+string(entry)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: loadConfig(t, home), Home: openHome(t, home), TrustAll: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Tools(context.Background()) // starts it; it exits without speaking MCP
	waitFor(t, "the server's start to fail", func() bool { return state(t, m, "p").State == StateFailed })
	if st := state(t, m, "p"); !st.Sandboxed {
		t.Fatalf("the project server is not sandboxed: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(proj, "written")); err != nil {
		t.Errorf("the project folder, which the default allows, was not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "planted")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server's cwd, a folder the default does not name, was written: %v", err)
	}
}

// TestDefaultsExpandVariables: the home's default sandbox expands
// ${VAR} in its paths as a definition does: the folder the variable
// names is writable, another is not; an unset variable refuses the
// server with an error naming the setting, never runs it looser.
func TestDefaultsExpandVariables(t *testing.T) {
	proctest.Check(t)
	needLandlockNet(t)
	home, out, victim := t.TempDir(), t.TempDir(), t.TempDir()
	settings := `{"defaults": {"sandbox": {"network": "none", "write": ["${MCPWIRE_TEST_OUT}/box"]}}}`
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(out, "box"), 0o700); err != nil {
		t.Fatal(err)
	}
	entry, _ := json.Marshal(map[string]any{"command": "/usr/bin/python3", "cwd": victim,
		"args": []string{"-c", writeEach, filepath.Join(out, "box", "written"), filepath.Join(victim, "planted")}})
	if err := os.WriteFile(filepath.Join(home, ".mcp.json"), []byte(`{"mcpServers": {"u": `+string(entry)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func(environ []string) *Manager {
		m, err := New(Options{Config: loadConfig(t, home), Home: openHome(t, home), TrustAll: true, Environ: environ, StartupTimeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	m := start(append(os.Environ(), "MCPWIRE_TEST_OUT="+out))
	m.Tools(context.Background()) // starts it; it exits without speaking MCP
	waitFor(t, "the server's start to fail", func() bool { return state(t, m, "u").State == StateFailed })
	if st := state(t, m, "u"); !st.Sandboxed {
		t.Fatalf("the server is not sandboxed: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(out, "box", "written")); err != nil {
		t.Errorf("the folder the default names through ${MCPWIRE_TEST_OUT} was not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "planted")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a folder the default does not name was written: %v", err)
	}

	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPWIRE_TEST_OUT=") {
			environ = append(environ, kv)
		}
	}
	m = start(environ)
	st := state(t, m, "u")
	var ee *config.ExpandError
	if st.State != StateFailed || !errors.As(st.Err, &ee) || ee.Field != "defaults.sandbox.write[0]" || ee.Var != "MCPWIRE_TEST_OUT" {
		t.Fatalf("an unset variable in a default's path does not refuse the server naming the setting: %+v", st)
	}
}

// needLandlockNet skips a test (fails it in CI) on a kernel without
// Landlock's network rules (ABI 4).
func needLandlockNet(t *testing.T) {
	t.Helper()
	if abi, err := procgroup.LandlockABI(); abi < 4 {
		if peers.InCI() {
			t.Fatalf("Landlock ABI %d (%v): CI runs the sandbox tests", abi, err)
		}
		t.Skipf("Landlock ABI %d (%v)", abi, err)
	}
}

// writeEach is a Python program that writes each path it is given,
// printing the error of each it cannot.
const writeEach = `import sys
for p in sys.argv[1:]:
    try:
        open(p, "w").write("x")
    except Exception as e:
        print(p, e, file=sys.stderr)
`
