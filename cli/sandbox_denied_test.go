package cli_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/manager"
)

// TestSandboxDeniedSaysSo: a sandboxed server that reads a fake
// ~/.ssh/id_ed25519 at its start gets the kernel's "Permission denied"
// and exits; test and doctor show its stderr and add that the sandbox
// denied it, and how to allow a path. The same server unsandboxed reads
// the key (and then fails for speaking no MCP), with no such hint.
func TestSandboxDeniedSaysSo(t *testing.T) {
	proctest.Check(t)
	if runtime.GOOS != "linux" || strings.HasPrefix(manager.SandboxSupport(), "none") {
		if peers.InCI() && runtime.GOOS == "linux" {
			t.Fatalf("CI runs the sandbox tests: %s", manager.SandboxSupport())
		}
		t.Skipf("no sandbox here: %s", manager.SandboxSupport())
	}
	r := newRunner(t)
	key := filepath.Join(filepath.Dir(r.home), ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const python = "/usr/bin/python3" // the system's: its installation is readable
	prog := "import sys; open(sys.argv[1]).read(); print('read the key', file=sys.stderr)"
	for _, name := range []string{"boxed", "plain"} {
		r.run(t, "add", name, "--", python, "-c", prog, key).want(t, 0)
	}
	editJSON(t, filepath.Join(r.home, ".mcp.json"), func(d map[string]any) {
		d["mcpServers"].(map[string]any)["boxed"].(map[string]any)["sandbox"] = true
	})
	r.run(t, "approve", "boxed").want(t, 0)
	const hint = "the server runs in a sandbox, which denies"

	res := r.run(t, "test", "boxed").want(t, 1)
	if !strings.Contains(res.stderr, "Permission denied") || !strings.Contains(res.stderr, hint) {
		t.Errorf("test of a denied server does not say the sandbox denied it:\n%s", res)
	}
	checks, res := doctorJSON(t, r, "boxed")
	if c := checks["initialize"]; c.Status != "fail" || !strings.Contains(c.Hint, hint) || !strings.Contains(c.Hint, "Permission denied") {
		t.Errorf("doctor of a denied server: %+v\n%s", c, res)
	}
	res = r.run(t, "doctor", "boxed")
	if !strings.Contains(res.stdout+res.stderr, hint) {
		t.Errorf("doctor's table does not say the sandbox denied it:\n%s", res)
	}

	res = r.run(t, "test", "plain").want(t, 1)
	if !strings.Contains(res.stderr, "read the key") || strings.Contains(res.stderr, hint) {
		t.Errorf("test of the server unsandboxed:\n%s", res)
	}
	checks, res = doctorJSON(t, r, "plain")
	if c := checks["initialize"]; strings.Contains(c.Hint, hint) || !strings.Contains(c.Hint, "read the key") {
		t.Errorf("doctor of the server unsandboxed: %+v\n%s", c, res)
	}
}
