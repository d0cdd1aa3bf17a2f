package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	demoserver "github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// cloneProject copies a project's .mcp.json and mcp.lock into a new
// folder, as a clone of its repository on another machine has them.
func cloneProject(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	for _, f := range []string{".mcp.json", "mcp.lock"} {
		data, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// TestSyncFrozenApprovesOnAnotherMachine: a clone of a project whose
// .mcp.json and mcp.lock hold a registry-installed server, on a machine
// (a home) that never approved it: sync --frozen --yes checks the entry
// against the lock and the registry and approves it, so that the server
// then runs; without --yes and without a terminal it fails (exit 3)
// asking for the approval, and writes nothing. Before, sync --frozen
// said "in sync" and the server then failed as never approved.
func TestSyncFrozenApprovesOnAnotherMachine(t *testing.T) {
	proctest.Check(t)
	demo := demoserver.NewHTTPHandler(demoserver.Options{})
	mcp := httptest.NewServer(demo)
	defer demo.Close()
	defer mcp.Close()
	reg := newFakeRegistry(t, mcp.URL+"/mcp")
	alice := t.TempDir()
	a := &docRunner{t: t, home: filepath.Join(alice, "home"), dir: alice, env: map[string]string{"NO_COLOR": "1"}}
	if code, out, errs := a.run("install", "io.test/demo", "--registry", reg.URL, "-s", "project", "--yes"); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	bob := cloneProject(t, alice)
	b := &docRunner{t: t, home: filepath.Join(t.TempDir(), "home"), dir: bob, env: map[string]string{"NO_COLOR": "1"}}
	mcpBefore, _ := os.ReadFile(filepath.Join(bob, ".mcp.json"))
	lockBefore, _ := os.ReadFile(filepath.Join(bob, "mcp.lock"))

	code, out, errs := b.run("sync", "--frozen")
	if code != ExitConfig || !strings.Contains(errs, "approval") {
		t.Errorf("sync --frozen without --yes on another machine: exit %d, want %d asking for approval\n%s%s", code, ExitConfig, out, errs)
	}
	if code, _, _ := b.run("test", "demo"); code == 0 {
		t.Errorf("test after a refused sync: exit 0, want the server unapproved")
	}

	code, out, errs = b.run("sync", "--frozen", "--yes")
	if code != 0 || !strings.Contains(out, "demo  io.test/demo@1.1.0  approved") {
		t.Fatalf("sync --frozen --yes on another machine: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := b.run("test", "demo"); code != 0 {
		t.Errorf("test after sync --frozen --yes: exit %d\n%s%s", code, out, errs)
	}
	mcpAfter, _ := os.ReadFile(filepath.Join(bob, ".mcp.json"))
	lockAfter, _ := os.ReadFile(filepath.Join(bob, "mcp.lock"))
	if string(mcpAfter) != string(mcpBefore) || string(lockAfter) != string(lockBefore) {
		t.Errorf("sync --frozen rewrote the files:\n%s\n%s", mcpAfter, lockAfter)
	}
	if code, out, errs := b.run("sync", "--frozen"); code != 0 || !strings.Contains(out, "in sync") {
		t.Errorf("sync --frozen once approved: exit %d\n%s%s", code, out, errs)
	}
}

// TestSyncFrozenNamesEachDrift: sync --frozen fails (exit 3) naming each
// entry that drifted: another version in .mcp.json than in the lock, a
// registry document that changed since it was locked, an entry gone from
// the registry; the entry still as locked is not named.
func TestSyncFrozenNamesEachDrift(t *testing.T) {
	doc := func(name, v, url string) string {
		return fmt.Sprintf(`{"name":"io.test/%s","description":"d","version":%q,"remotes":[{"type":"streamable-http","url":%q}]}`, name, v, url)
	}
	f := &fakeRegistry{entries: []fakeEntry{
		{doc: doc("same", "1.0.0", "https://same.example/mcp"), status: "active", latest: true},
		{doc: doc("ver", "1.0.0", "https://ver.example/mcp"), status: "active"},
		{doc: doc("ver", "2.0.0", "https://ver.example/mcp"), status: "active", latest: true},
		{doc: doc("doc", "1.0.0", "https://doc.example/mcp"), status: "active", latest: true},
		{doc: doc("gone", "1.0.0", "https://gone.example/mcp"), status: "active", latest: true},
	}}
	var mu sync.Mutex // the registry's entries change between requests
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		f.ServeHTTP(w, r)
	}))
	defer reg.Close()
	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	for _, name := range []string{"io.test/same", "io.test/ver@1.0.0", "io.test/doc", "io.test/gone"} {
		if code, out, errs := r.run("install", name, "--registry", reg.URL, "-s", "project", "--yes", "--no-connect"); code != 0 {
			t.Fatalf("install %s: exit %d\n%s%s", name, code, out, errs)
		}
	}
	if code, out, errs := r.run("sync", "--frozen"); code != 0 {
		t.Fatalf("sync --frozen before any drift: exit %d\n%s%s", code, out, errs)
	}
	// ver: .mcp.json moves to 2.0.0 (the lock still says 1.0.0).
	if code, out, errs := r.run("upgrade", "ver", "--yes"); code != 0 {
		t.Fatalf("upgrade: exit %d\n%s%s", code, out, errs)
	}
	lock := filepath.Join(work, "mcp.lock")
	data, _ := os.ReadFile(lock)
	// The upgrade locked 2.0.0; put the lock back as it was committed.
	os.WriteFile(lock, []byte(strings.Replace(string(data), `"version": "2.0.0"`, `"version": "1.0.0"`, 1)), 0o644)
	mu.Lock()
	f.entries[3].doc = doc("doc", "1.0.0", "https://doc.example/other")
	f.entries = f.entries[:4]
	mu.Unlock()
	code, out, errs := r.run("sync", "--frozen")
	if code != ExitConfig {
		t.Fatalf("sync --frozen after drifts: exit %d, want %d\n%s%s", code, ExitConfig, out, errs)
	}
	for _, want := range []string{"ver: .mcp.json has io.test/ver@2.0.0", "doc: the registry's document of io.test/doc@1.0.0 changed", "gone: io.test/gone@1.0.0 is gone"} {
		if !strings.Contains(errs, want) {
			t.Errorf("sync --frozen does not name %q:\n%s%s", want, out, errs)
		}
	}
	if strings.Contains(errs, "same:") {
		t.Errorf("sync --frozen names an entry as locked:\n%s", errs)
	}
}

// TestSyncLeavesAHandEdit: an entry edited by hand after its approval
// (here a header added) is left as it is by sync, frozen or not, for its
// user to review; in a home that never approved it, sync --frozen --yes
// installs what the lock says over it, after the review.
func TestSyncLeavesAHandEdit(t *testing.T) {
	reg := newFakeRegistry(t, "https://demo.example/mcp")
	alice := t.TempDir()
	a := &docRunner{t: t, home: filepath.Join(alice, "home"), dir: alice, env: map[string]string{"NO_COLOR": "1"}}
	if code, out, errs := a.run("install", "io.test/demo", "--registry", reg.URL, "-s", "project", "--yes", "--no-connect"); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	file := filepath.Join(alice, ".mcp.json")
	data, _ := os.ReadFile(file)
	edited := strings.Replace(string(data), `"type": "http",`, `"type": "http", "headers": {"X-Debug": "1"},`, 1)
	if edited == string(data) {
		t.Fatalf("no place for the edit in:\n%s", data)
	}
	os.WriteFile(file, []byte(edited), 0o644)
	for _, args := range [][]string{{"sync", "--yes"}, {"sync", "--frozen", "--yes"}} {
		code, out, errs := a.run(args...)
		if got, _ := os.ReadFile(file); code != 0 || string(got) != edited || !strings.Contains(out, "demo  io.test/demo@1.1.0  in sync") {
			t.Errorf("%v on a hand edit: exit %d, file\n%s\n%s%s", args, code, got, out, errs)
		}
	}
	bob := cloneProject(t, alice)
	b := &docRunner{t: t, home: filepath.Join(t.TempDir(), "home"), dir: bob, env: map[string]string{"NO_COLOR": "1"}}
	code, out, errs := b.run("sync", "--frozen", "--yes")
	got, _ := os.ReadFile(filepath.Join(bob, ".mcp.json"))
	if code != 0 || strings.Contains(string(got), "X-Debug") || !strings.Contains(out, "demo  io.test/demo@1.1.0  installed") {
		t.Errorf("sync --frozen --yes in a home that never approved the edit: exit %d, file\n%s\n%s%s", code, got, out, errs)
	}
}
