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
)

// TestSearchAsksTheHomesRegistry: without --registry, search and install
// ask the registry the home's settings.json names (defaults.registry, a
// subregistry); --registry wins over it.
func TestSearchAsksTheHomesRegistry(t *testing.T) {
	reg := newFakeRegistry(t, "https://demo.example/mcp")
	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	if err := os.MkdirAll(r.home, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := fmt.Sprintf(`{"defaults": {"registry": %q}}`, reg.URL)
	if err := os.WriteFile(filepath.Join(r.home, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := r.run("search", "demo")
	if code != 0 || !strings.Contains(out, "io.test/demo 1.1.0") {
		t.Fatalf("search with the home's registry: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = r.run("install", "io.test/demo", "-s", "project", "--yes", "--no-connect")
	if code != 0 || !strings.Contains(out, "installed io.test/demo 1.1.0") {
		t.Fatalf("install with the home's registry: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = r.run("search", "demo", "--registry", "http://127.0.0.1:1")
	if code == 0 || !strings.Contains(errs, "127.0.0.1:1") {
		t.Fatalf("--registry did not win over the home's: exit %d\n%s%s", code, out, errs)
	}
}

// TestDeletedVersionsRefused: an installed version the registry then
// deletes is warned about by outdated (with its message), and upgrade
// refuses a latest version that is deleted (exit 3), leaving the entry.
func TestDeletedVersionsRefused(t *testing.T) {
	doc := func(v string) string {
		return fmt.Sprintf(`{"name":"io.test/del","description":"d","version":%q,"remotes":[{"type":"streamable-http","url":"https://del.example/mcp"}]}`, v)
	}
	f := &fakeRegistry{entries: []fakeEntry{
		{doc: doc("1.0.0"), status: "active", latest: true},
		{doc: doc("2.0.0"), status: "deleted", message: "a bad build"},
	}}
	var mu sync.Mutex
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		f.ServeHTTP(w, r)
	}))
	defer reg.Close()
	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	if code, out, errs := r.run("install", "io.test/del@2.0.0", "--registry", reg.URL, "-s", "project", "--yes", "--no-connect"); code != ExitConfig || !strings.Contains(errs, "deleted: a bad build") {
		t.Fatalf("install of a deleted version: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := r.run("install", "io.test/del", "--registry", reg.URL, "-s", "project", "--yes", "--no-connect"); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	mu.Lock()
	f.entries[0] = fakeEntry{doc: doc("1.0.0"), status: "deleted", message: "withdrawn"}
	f.entries[1].latest = true
	mu.Unlock()
	code, out, errs := r.run("outdated")
	if code != 0 || !strings.Contains(out, "the registry marks it deleted: withdrawn") {
		t.Errorf("outdated of a deleted version: exit %d\n%s%s", code, out, errs)
	}
	before, _ := os.ReadFile(filepath.Join(work, ".mcp.json"))
	code, out, errs = r.run("upgrade", "del", "--yes", "--no-connect")
	if code != ExitConfig || !strings.Contains(errs, "deleted; not upgraded") {
		t.Errorf("upgrade to a deleted latest: exit %d\n%s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(work, ".mcp.json")); string(after) != string(before) {
		t.Errorf("a refused upgrade changed .mcp.json:\n%s", after)
	}
}
