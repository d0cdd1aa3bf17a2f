package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/manager"
)

// sandboxDoc is what the tests read of a server's sandbox in --json.
type sandboxDoc struct {
	Network    string
	BestEffort bool
	Layers     []struct {
		From, Network string
		Read, Write   []string
		BestEffort    bool
	}
}

// layersOf is a sandbox's layers for a message: "from:network" each.
func (d *sandboxDoc) layersOf() string {
	if d == nil {
		return "null"
	}
	var out []string
	for _, l := range d.Layers {
		out = append(out, l.From+":"+l.Network)
	}
	return strings.Join(out, " ")
}

// listSandboxes runs list --json and returns each server's sandbox.
func listSandboxes(t *testing.T, r *runner, args ...string) map[string]*sandboxDoc {
	t.Helper()
	res := r.run(t, append([]string{"list", "--json"}, args...)...).want(t, 0)
	var doc struct {
		Servers []struct {
			Server  string
			Sandbox *sandboxDoc
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	out := map[string]*sandboxDoc{}
	for _, s := range doc.Servers {
		out[s.Server] = s.Sandbox
	}
	return out
}

// TestListShowsTheSandbox: list and test --json say whether a stdio
// server runs sandboxed, with each layer (the home's default, the
// project default, the definition's own), its network and paths; the
// table marks it; an unconfined server's sandbox is null.
func TestListShowsTheSandbox(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "add", "plain", "--", r.bin, "serve-demo").want(t, 0)
	r.run(t, "add", "boxed", "--", r.bin, "serve-demo").want(t, 0)
	userFile := filepath.Join(r.home, ".mcp.json")
	editJSON(t, userFile, func(d map[string]any) {
		d["mcpServers"].(map[string]any)["boxed"].(map[string]any)["sandbox"] = map[string]any{"network": "any", "write": []string{"~/out"}}
	})
	writeJSON(t, filepath.Join(r.dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": r.bin, "args": []string{"serve-demo"}, "sandbox": map[string]any{"network": "any", "read": []string{"/srv/data"}}}}})
	r.run(t, "approve", "boxed").want(t, 0)
	home := filepath.Dir(r.home)

	boxes := listSandboxes(t, r, "--no-connect")
	if boxes["plain"] != nil {
		t.Errorf("an unconfined server's sandbox: %+v", boxes["plain"])
	}
	b := boxes["boxed"]
	if b == nil || b.Network != "any" || b.BestEffort || len(b.Layers) != 1 || b.Layers[0].From != "definition" ||
		strings.Join(b.Layers[0].Write, " ") != filepath.Join(home, "out") || len(b.Layers[0].Read) != 0 {
		t.Errorf("boxed: %+v", b)
	}
	if p := boxes["proj"]; p.layersOf() != "definition:any" || strings.Join(p.Layers[0].Read, " ") != "/srv/data" {
		t.Errorf("proj: %s %+v", p.layersOf(), p)
	}
	res := r.run(t, "list", "--no-connect").want(t, 0)
	if !strings.Contains(res.stdout, "stdio sandboxed") || strings.Count(res.stdout, "sandboxed") != 2 {
		t.Errorf("the table does not mark the two sandboxed servers:\n%s", res)
	}

	// The home's defaults: every user server without its own, and a
	// project default under the project's own sandbox.
	editJSON(t, filepath.Join(r.home, "settings.json"), func(d map[string]any) {
		d["defaults"] = map[string]any{"sandbox": map[string]any{"network": "any"}, "projectSandbox": true}
	})
	boxes = listSandboxes(t, r, "--no-connect")
	for name, want := range map[string]string{"plain": "defaults.sandbox:any", "boxed": "definition:any", "proj": "defaults.projectSandbox:none definition:any"} {
		if got := boxes[name].layersOf(); got != want {
			t.Errorf("%s: layers %s, want %s", name, got, want)
		}
	}
	if boxes["proj"].Network != "none" {
		t.Errorf("proj: a layer says none, together %q", boxes["proj"].Network)
	}
	// The review (get, approve) shows the sandbox with its layers.
	res = r.run(t, "get", "proj").want(t, 0)
	if !strings.Contains(res.stdout, "  sandbox:   network none (defaults.projectSandbox) within network any, read /srv/data (definition)\n") {
		t.Errorf("get does not show the sandbox:\n%s", res)
	}
	editJSON(t, userFile, func(d map[string]any) {
		d["mcpServers"].(map[string]any)["plain"].(map[string]any)["sandbox"] = false
	})
	res = r.run(t, "approve", "plain").want(t, 0)
	if !strings.Contains(res.stderr, "  sandbox:   none (it runs with all of your rights)\n") {
		t.Errorf("approve does not show that the server runs unconfined:\n%s", res)
	}
	editJSON(t, userFile, func(d map[string]any) {
		delete(d["mcpServers"].(map[string]any)["plain"].(map[string]any), "sandbox")
	})
	r.run(t, "approve", "plain").want(t, 0)

	if runtime.GOOS != "linux" || strings.HasPrefix(manager.SandboxSupport(), "none") {
		if peers.InCI() && runtime.GOOS == "linux" {
			t.Fatalf("CI runs the sandbox tests: %s", manager.SandboxSupport())
		}
		t.Skipf("connecting sandboxed: %s on %s", manager.SandboxSupport(), runtime.GOOS)
	}
	if err := os.MkdirAll(filepath.Join(home, "out"), 0o700); err != nil {
		t.Fatal(err)
	}
	res = r.run(t, "test", "boxed", "--json").want(t, 0)
	var tr struct{ Sandbox *sandboxDoc }
	if err := json.Unmarshal([]byte(res.stdout), &tr); err != nil || tr.Sandbox.layersOf() != "definition:any" {
		t.Errorf("test --json: %v %s\n%s", err, tr.Sandbox.layersOf(), res)
	}
	res = r.run(t, "test", "boxed").want(t, 0)
	if !strings.Contains(res.stdout, "sandbox:      network any, write "+filepath.Join(home, "out")+" (definition)") {
		t.Errorf("test does not show the sandbox:\n%s", res)
	}
	boxes = listSandboxes(t, r)
	if boxes["boxed"].layersOf() != "definition:any" || boxes["plain"].layersOf() != "defaults.sandbox:any" {
		t.Errorf("connected: boxed %s, plain %s", boxes["boxed"].layersOf(), boxes["plain"].layersOf())
	}
}

// editJSON changes the JSON object of a file in place.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := map[string]any{}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	edit(d)
	writeJSON(t, path, d)
}
