package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/config/registry"
	demoserver "github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// lockedTools is the tool surface mcp.lock in dir holds for name.
func lockedTools(t *testing.T, dir, name string) string {
	t.Helper()
	lock, err := registry.ReadLock(filepath.Join(dir, "mcp.lock"))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := lock.Servers[name]
	if !ok {
		t.Fatalf("mcp.lock has no %s", name)
	}
	return l.Tools
}

// TestInstallLocksToolSurface: install --yes of a project's entry (the
// demo over streamable HTTP on loopback) connects it once after the
// approval and locks its tool surface in the same run, so that test then
// finds the surface as approved and sync --frozen is in sync; upgrade
// locks the new version's surface the same way; --no-connect starts
// nothing and says the next sync locks it.
func TestInstallLocksToolSurface(t *testing.T) {
	proctest.Check(t)
	demo := demoserver.NewHTTPHandler(demoserver.Options{})
	var hits atomic.Int64
	mcp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		demo.ServeHTTP(w, r)
	}))
	defer demo.Close()
	defer mcp.Close()
	reg := newFakeRegistry(t, mcp.URL+"/mcp")

	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	code, out, errs := r.run("install", "io.test/demo@1.0.0", "--registry", reg.URL, "-s", "project", "--yes")
	fp := lockedTools(t, work, "demo")
	if code != 0 || !strings.HasPrefix(fp, "sha256:") || !strings.Contains(out, "locked demo 1.0.0 in "+filepath.Join(work, "mcp.lock")+" with its tool surface "+fp) {
		t.Fatalf("install: exit %d, lock tools %q\n%s%s", code, fp, out, errs)
	}
	t.Logf("install:\n%s", out)
	if code, out, errs := r.run("test", "demo", "--no-session"); code != 0 || !strings.Contains(out, "surface:      as approved") {
		t.Errorf("test after install: exit %d, want the surface as approved (pinned at install)\n%s%s", code, out, errs)
	}
	if code, out, errs := r.run("sync", "--frozen"); code != 0 || !strings.Contains(out, "in sync") {
		t.Errorf("sync --frozen after install: exit %d\n%s%s", code, out, errs)
	}

	// upgrade: the new version is approved anew, connected, its surface locked.
	code, out, errs = r.run("upgrade", "demo", "--yes", "--json")
	var doc struct{ Servers []installResult }
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Servers) != 1 {
		t.Fatalf("upgrade --json: exit %d (%v)\n%s%s", code, err, out, errs)
	}
	if got := doc.Servers[0]; got.Version != "1.1.0" || got.Tools != lockedTools(t, work, "demo") || got.Tools == "" || got.ToolsNote != "" {
		t.Errorf("upgrade --json: %+v, lock tools %q", got, lockedTools(t, work, "demo"))
	}
	if code, out, errs := r.run("sync", "--frozen"); code != 0 {
		t.Errorf("sync --frozen after upgrade: exit %d\n%s%s", code, out, errs)
	}

	// --no-connect: nothing starts; the lock waits for a sync.
	other := t.TempDir()
	o := &docRunner{t: t, home: filepath.Join(other, "home"), dir: other, env: map[string]string{"NO_COLOR": "1"}}
	before := hits.Load()
	code, out, errs = o.run("install", "io.test/demo", "--registry", reg.URL, "-s", "project", "--yes", "--no-connect")
	if code != 0 || hits.Load() != before || lockedTools(t, other, "demo") != "" ||
		!strings.Contains(out, "without its tool surface: not connected (--no-connect)") || !strings.Contains(out, "the next mcpwire sync locks the surface once the server has connected") {
		t.Errorf("install --no-connect: exit %d, %d requests to the server\n%s%s", code, hits.Load()-before, out, errs)
	}
}

// TestInstallLocksWhenItCannotConnect: a server that cannot be reached
// at install (it answers 503 with terminal escapes in its body; another
// needs a secret that is not set) is still installed, approved and
// locked, without its tool surface; install says why it could not
// connect (escaped) and that the next sync locks the surface; once the
// server answers and has connected, sync --yes locks it.
func TestInstallLocksWhenItCannotConnect(t *testing.T) {
	proctest.Check(t)
	demo := demoserver.NewHTTPHandler(demoserver.Options{})
	var up atomic.Bool
	mcp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down \x1b[2J\x1b]52;c;aGk=\x07 for maintenance", http.StatusServiceUnavailable)
			return
		}
		demo.ServeHTTP(w, r)
	}))
	defer demo.Close()
	defer mcp.Close()
	secret := fmt.Sprintf(`{"name":"io.test/keyed","description":"d","version":"1.0.0","remotes":[{"type":"streamable-http","url":%q,`+
		`"headers":[{"name":"X-Api-Key","description":"your key","isSecret":true,"isRequired":true}]}]}`, mcp.URL+"/mcp")
	down := fmt.Sprintf(`{"name":"io.test/down","description":"d","version":"1.0.0","remotes":[{"type":"streamable-http","url":%q}]}`, mcp.URL+"/mcp")
	reg := httptest.NewServer(&fakeRegistry{entries: []fakeEntry{{doc: secret, status: "active", latest: true}, {doc: down, status: "active", latest: true}}})
	defer reg.Close()

	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	code, out, errs := r.run("install", "io.test/down", "--registry", reg.URL, "-s", "project", "--yes")
	if code != 0 || lockedTools(t, work, "down") != "" || !strings.Contains(out, "locked down 1.0.0 in "+filepath.Join(work, "mcp.lock")+" without its tool surface: could not connect: ") ||
		!strings.Contains(out, "503") || !strings.Contains(out, "the next mcpwire sync locks the surface once the server has connected (mcpwire test down)") {
		t.Errorf("install of a server that is down: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("install of a server that is down:\n%s", out)
	if strings.ContainsAny(out+errs, "\x1b\x07") {
		t.Errorf("install printed the server's terminal escapes:\n%q", out+errs)
	}
	code, out, errs = r.run("install", "io.test/keyed", "--registry", reg.URL, "-s", "project", "--yes", "--json")
	var doc struct{ Servers []installResult }
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Servers) != 1 {
		t.Fatalf("install --json of a server whose secret is not set: exit %d (%v)\n%s%s", code, err, out, errs)
	}
	if got := doc.Servers[0]; got.Tools != "" || !strings.Contains(got.ToolsNote, "could not connect") || !strings.Contains(got.ToolsNote, "X_API_KEY") {
		t.Errorf("install --json of a server whose secret is not set: %+v", got)
	}

	// Installed and approved: once the server answers, test pins the
	// surface and sync locks it.
	up.Store(true)
	r.env["X_API_KEY"] = "k-0123456789"
	for _, name := range []string{"down", "keyed"} {
		if code, out, errs := r.run("test", name, "--no-session"); code != 0 {
			t.Errorf("test %s: exit %d\n%s%s", name, code, out, errs)
		}
	}
	if code, out, errs := r.run("sync", "--yes"); code != 0 || lockedTools(t, work, "down") == "" || lockedTools(t, work, "keyed") == "" {
		t.Errorf("sync --yes after the servers connected: exit %d\n%s%s", code, out, errs)
	}
}
