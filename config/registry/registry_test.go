package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fakeRegistry is an httptest server answering /v0.1 as the registry's
// OpenAPI says, from documents written here; pages of two.
func fakeRegistry(t *testing.T, docs ...string) *httptest.Server {
	t.Helper()
	var entries []json.RawMessage
	for _, d := range docs {
		entries = append(entries, json.RawMessage(d))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v0.1/servers" {
			start := 0
			fmt.Sscan(r.URL.Query().Get("cursor"), &start)
			var page []json.RawMessage
			for i := start; i < len(entries) && len(page) < 2; i++ {
				if s := r.URL.Query().Get("search"); s == "" || strings.Contains(string(entries[i]), s) {
					page = append(page, entries[i])
				}
			}
			next := ""
			if start+2 < len(entries) {
				next = fmt.Sprint(start + 2)
			}
			json.NewEncoder(w).Encode(map[string]any{"servers": page, "metadata": map[string]any{"count": len(page), "nextCursor": next}})
			return
		}
		rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/v0.1/servers/")
		name, version, ok2 := strings.Cut(rest, "/versions/")
		if !ok || !ok2 || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		for _, e := range entries {
			var se serverResponse
			json.Unmarshal(e, &se)
			var s Server
			json.Unmarshal(se.Server, &s)
			if strings.ReplaceAll(name, "%2F", "/") == s.Name && (version == s.Version || version == "latest") {
				w.Write(e)
				return
			}
		}
		http.Error(w, `{"title":"Not Found"}`, 404)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func entryDoc(server, status string) string {
	return fmt.Sprintf(`{"server":%s,"_meta":{"io.modelcontextprotocol.registry/official":{"status":%q,"statusMessage":"use b instead","publishedAt":"2026-01-02T03:04:05Z","isLatest":true}}}`, server, status)
}

const npmDoc = `{"name":"io.github.x/everything","description":"all \u001b[31mred","version":"1.2.3",
 "packages":[{"registryType":"npm","identifier":"@x/everything","version":"1.2.3","transport":{"type":"stdio"},
  "packageArguments":[{"type":"positional","valueHint":"mode","default":"stdio"},
   {"type":"named","name":"--dir","isRequired":true,"isRepeated":true},
   {"type":"named","name":"--level","choices":["low","high"]}],
  "environmentVariables":[{"name":"API_KEY","isSecret":true,"isRequired":true},{"name":"REGION","default":"eu"}]}],
 "remotes":[{"type":"sse","url":"https://sse.example.com/{tenant}","variables":{"tenant":{"isRequired":true}}},
  {"type":"streamable-http","url":"https://{tenant}.example.com/mcp","variables":{"tenant":{"isRequired":true,"choices":["a","b"]}},
   "headers":[{"name":"X-Api-Key","isSecret":true,"isRequired":true},{"name":"X-Team","value":"team-{team}","variables":{"team":{"default":"core"}}}]}]}`

func TestSearchPagesAndSkipsBadEntries(t *testing.T) {
	srv := fakeRegistry(t,
		entryDoc(npmDoc, "active"),
		entryDoc(`{"name":"nonsense","version":"1"}`, "active"),
		entryDoc(`{"name":"io.github.x/two","description":"d","version":"0.1.0"}`, "deprecated"),
		entryDoc(`{"name":"io.github.x/three","description":"d","version":"3"}`, "active"))
	c, err := New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, skipped, err := c.Search(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Server.Name)
	}
	if want := []string{"io.github.x/everything", "io.github.x/two", "io.github.x/three"}; !reflect.DeepEqual(names, want) || skipped != 1 {
		t.Fatalf("search: %v (skipped %d), want %v (skipped 1)", names, skipped, want)
	}
	e, err := c.Get(context.Background(), "io.github.x/two", "0.1.0")
	if err != nil || e.Official.Status != StatusDeprecated || e.Official.StatusMessage != "use b instead" {
		t.Fatalf("get: %+v, %v", e, err)
	}
	if _, err := c.Get(context.Background(), "io.github.x/gone", "latest"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get of a missing name: %v, want ErrNotFound", err)
	}
}

func TestNewRefusesPlainHTTPAndUserinfo(t *testing.T) {
	for _, u := range []string{"http://registry.example.com", "https://u:p@registry.example.com", "ftp://x", "https://r.example.com/?q=1"} {
		if _, err := New(u, nil); err == nil {
			t.Errorf("New(%q): no error", u)
		}
	}
	for _, u := range []string{"", "https://r.example.com/sub", "http://127.0.0.1:8080", "http://localhost:1"} {
		if _, err := New(u, nil); err != nil {
			t.Errorf("New(%q): %v", u, err)
		}
	}
}

func TestResponseBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte(" "), MaxResponse+10))
	}))
	defer srv.Close()
	c, _ := New(srv.URL, nil)
	if _, _, err := c.Search(context.Background(), "x"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("a huge answer: %v", err)
	}
}

func TestRedirectRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example.com/", http.StatusFound)
	}))
	defer srv.Close()
	c, _ := New(srv.URL, nil)
	if _, err := c.Get(context.Background(), "io.github.x/y", "1"); err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("a redirect: %v", err)
	}
}

func mustEntry(t *testing.T, server, status string) *Entry {
	t.Helper()
	e, err := ParseEntry([]byte(entryDoc(server, status)))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func haveAll(string) (string, error) { return "/usr/bin/x", nil }

func TestPlanRemoteBindsVariablesAndSecretHeaders(t *testing.T) {
	e := mustEntry(t, npmDoc, "active")
	p, err := MakePlan(e, "https://r.example", Options{Values: Values{Vars: map[string][]string{"tenant": {"a"}}, Headers: map[string][]string{"X-Api-Key": {"literal-secret"}}}, LookPath: haveAll})
	if err != nil {
		t.Fatal(err)
	}
	if p.Entry["url"] != "https://a.example.com/mcp" || p.Entry["type"] != "http" {
		t.Fatalf("url %v type %v", p.Entry["url"], p.Entry["type"])
	}
	h := p.Entry["headers"].(map[string]string)
	if h["X-Api-Key"] != "${X_API_KEY}" || h["X-Team"] != "team-core" {
		t.Fatalf("headers %v", h)
	}
	if data, _ := json.Marshal(p.Entry); strings.Contains(string(data), "literal-secret") {
		t.Fatalf("a secret's literal reached the entry: %s", data)
	}
	if !slices.Equal(p.Secrets, []string{"X_API_KEY"}) || len(p.Warnings) == 0 {
		t.Fatalf("secrets %v warnings %v", p.Secrets, p.Warnings)
	}
	if _, err := MakePlan(e, "u", Options{Values: Values{Vars: map[string][]string{"tenant": {"z"}}}}); err == nil || !strings.Contains(err.Error(), "not one of") {
		t.Fatalf("a value outside choices: %v", err)
	}
	p, _ = MakePlan(e, "u", Options{})
	if len(p.Missing) != 1 || p.Missing[0].Name != "tenant" || p.Missing[0].Flag() != "--var tenant=…" {
		t.Fatalf("missing %+v", p.Missing)
	}
}

func TestPlanNPMPinsExactlyAndBindsArguments(t *testing.T) {
	e := mustEntry(t, npmDoc, "deprecated")
	p, err := MakePlan(e, "u", Options{Choice: Choice{Package: "npm"}, Values: Values{Vars: map[string][]string{"dir": {"/a", "/b"}, "level": {"high"}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-y", "@x/everything@1.2.3", "stdio", "--dir", "/a", "--dir", "/b", "--level", "high"}
	if p.Entry["command"] != "npx" || !slices.Equal(p.Entry["args"].([]string), want) {
		t.Fatalf("command %v args %q", p.Entry["command"], p.Entry["args"])
	}
	// The first start downloads the package: more than the default 30 s.
	if p.Entry["startupTimeout"] != FirstStartTimeout {
		t.Fatalf("startupTimeout %v, want %d", p.Entry["startupTimeout"], FirstStartTimeout)
	}
	if env := p.Entry["env"].(map[string]string); env["API_KEY"] != "${API_KEY}" || env["REGION"] != "eu" {
		t.Fatalf("env %v", env)
	}
	if !strings.Contains(strings.Join(p.Warnings, "\n"), "deprecated: use b instead") {
		t.Fatalf("warnings %v", p.Warnings)
	}
	if p.Provenance.Artifact != "npm:@x/everything@1.2.3" || p.Entry["registry"].(map[string]string)["version"] != "1.2.3" {
		t.Fatalf("provenance %+v", p.Provenance)
	}
	p, _ = MakePlan(e, "u", Options{Choice: Choice{Package: "npm"}})
	if len(p.Missing) != 1 || p.Missing[0].Name != "dir" {
		t.Fatalf("missing %+v", p.Missing)
	}
	if _, err := MakePlan(e, "u", Options{Choice: Choice{Package: "npm"}, Values: Values{Vars: map[string][]string{"dir": {"/a"}, "level": {"x", "y"}}}}); err == nil {
		t.Fatal("a value given twice to an argument that is not repeated: no error")
	}
}

func TestPlanPackagesOfEachType(t *testing.T) {
	doc := `{"name":"io.github.x/p","description":"d","version":"2.0.0","packages":[
	 {"registryType":"pypi","identifier":"mcp-x","version":"2.0.0","transport":{"type":"stdio"}},
	 {"registryType":"nuget","identifier":"X.Mcp","version":"2.0.0","transport":{"type":"stdio"}},
	 {"registryType":"oci","identifier":"ghcr.io/x/p:2.0.0","transport":{"type":"stdio"},"environmentVariables":[{"name":"TOKEN","isSecret":true}]},
	 {"registryType":"npm","identifier":"x","version":"^2.0.0","transport":{"type":"stdio"}}]}`
	e := mustEntry(t, doc, "active")
	for typ, want := range map[string]string{"pypi": "uvx mcp-x==2.0.0", "nuget": "dnx X.Mcp@2.0.0 --yes", "oci": "docker run -i --rm -e TOKEN ghcr.io/x/p:2.0.0"} {
		p, err := MakePlan(e, "u", Options{Choice: Choice{Package: typ}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Entry["command"].(string) + " " + strings.Join(p.Entry["args"].([]string), " "); got != want {
			t.Errorf("%s: %q, want %q", typ, got, want)
		}
		if typ == "oci" && !strings.Contains(strings.Join(p.Warnings, " "), "by tag") {
			t.Errorf("oci by tag: no warning: %v", p.Warnings)
		}
	}
	if _, err := MakePlan(e, "u", Options{Choice: Choice{Package: "npm"}}); err == nil || !strings.Contains(err.Error(), "exact version") {
		t.Fatalf("a version range: %v", err)
	}
	none := func(string) (string, error) { return "", errors.New("no") }
	if _, err := MakePlan(e, "u", Options{LookPath: none}); err == nil || !strings.Contains(err.Error(), "uvx on PATH") {
		t.Fatalf("no runtime on PATH: %v", err)
	}
	if _, err := MakePlan(mustEntry(t, doc, "deleted"), "u", Options{}); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Fatalf("a deleted entry: %v", err)
	}
}

func TestPostInstallInstructions(t *testing.T) {
	doc := `{"name":"io.github.x/p","description":"d","version":"1","remotes":[{"type":"streamable-http","url":"https://x.example.com/mcp"}],
	 "_meta":{"io.modelcontextprotocol.registry/publisher-provided":{"postInstallInstructions":["rm -rf ~ \u001b[2J", "sign in at x"]}}}`
	p, err := MakePlan(mustEntry(t, doc, "active"), "u", Options{})
	if err != nil || len(p.PostInstall) != 2 {
		t.Fatalf("%v %v", p.PostInstall, err)
	}
}

// bundleZip returns a zip of files (name → content; a name ending in
// "@" is a symbolic link to its content).
func bundleZip(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		h := &zip.FileHeader{Name: strings.TrimSuffix(name, "@"), Method: zip.Deflate}
		h.SetMode(0o644)
		if strings.HasSuffix(name, "@") {
			h.SetMode(os.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

const manifest = `{"name":"b","server":{"type":"node","entry_point":"server/index.js","mcp_config":{"command":"node","args":["${__dirname}/server/index.js","--key","${user_config.api_key}","--root","${user_config.root}"],"env":{"MODE":"${user_config.mode}"}}},
 "user_config":{"api_key":{"type":"string","sensitive":true,"required":true},"root":{"type":"directory","required":true},"mode":{"type":"string","default":"fast"}}}`

func TestBundleFetchChecksAndUnpacks(t *testing.T) {
	good := bundleZip(t, map[string]string{"manifest.json": manifest, "server/index.js": "console.log(1)"})
	slip := bundleZip(t, map[string]string{"manifest.json": manifest, "../evil": "x"})
	link := bundleZip(t, map[string]string{"manifest.json": manifest, "out@": "/etc/passwd"})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good.mcpb":
			w.Write(good)
		case "/slip.mcpb":
			w.Write(slip)
		case "/link.mcpb":
			w.Write(link)
		}
	}))
	defer srv.Close()
	home := t.TempDir()
	b := &Bundles{Dir: filepath.Join(home, "bundles"), HTTP: srv.Client()}
	ctx := context.Background()
	if _, _, err := b.Fetch(ctx, srv.URL+"/good.mcpb", sum([]byte("other"))); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("a wrong sha256: %v", err)
	}
	for _, bad := range []struct{ path, sha, want string }{{"/slip.mcpb", sum(slip), "outside"}, {"/link.mcpb", sum(link), "symbolic"}} {
		if _, _, err := b.Fetch(ctx, srv.URL+bad.path, bad.sha); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("%s: %v", bad.path, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, "evil")); err == nil {
		t.Fatal("a member was written outside the bundle's folder")
	}
	if _, _, err := b.Fetch(ctx, strings.Replace(srv.URL, "https", "http", 1)+"/good.mcpb", sum(good)); err == nil {
		t.Fatal("a download over plain http: no error")
	}
	doc := fmt.Sprintf(`{"name":"io.github.x/b","description":"d","version":"1.0.0","packages":[{"registryType":"mcpb","identifier":%q,"fileSha256":%q,"transport":{"type":"stdio"}}]}`, srv.URL+"/good.mcpb", sum(good))
	opts := Options{Values: Values{Vars: map[string][]string{"root": {"/data"}}}, Bundle: func(u, s string) (string, *Manifest, error) { return b.Fetch(ctx, u, s) }}
	p, err := MakePlan(mustEntry(t, doc, "active"), "u", opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(b.Dir, sum(good))
	wantArgs := []string{dir + "/server/index.js", "--key", "${API_KEY}", "--root", "/data"}
	if p.Entry["command"] != "node" || !slices.Equal(p.Entry["args"].([]string), wantArgs) || p.Entry["env"].(map[string]string)["MODE"] != "fast" {
		t.Fatalf("bundle entry %v", p.Entry)
	}
	if p.Provenance.Digest != "sha256:"+sum(good) {
		t.Fatalf("digest %s", p.Provenance.Digest)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "server", "index.js")); err != nil || string(data) != "console.log(1)" {
		t.Fatalf("unpacked: %q %v", data, err)
	}
}

func TestLockIsSortedAndStable(t *testing.T) {
	l := &Lock{Servers: map[string]Locked{
		"zeta":  {Registry: "u", Name: "io.x/z", Version: "1", Via: "npm", Artifact: "npm:z@1", Digest: "sha256:1", Document: "sha256:1"},
		"alpha": {Registry: "u", Name: "io.x/a", Version: "2", Via: "remote", Artifact: "https://a", Digest: "sha256:2", Document: "sha256:2"},
	}}
	path := filepath.Join(t.TempDir(), LockName)
	if err := l.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), l.Encode()) || bytes.Index(l.Encode(), []byte("alpha")) > bytes.Index(l.Encode(), []byte("zeta")) {
		t.Fatalf("not stable or not sorted:\n%s", l.Encode())
	}
	if _, err := ParseLock("x", []byte(`{"lockfileVersion":1,"servers":{"a":{"name":"n"}}}`)); err == nil {
		t.Fatal("an entry with no version: no error")
	}
	if empty, err := ReadLock(filepath.Join(t.TempDir(), "none")); err != nil || len(empty.Servers) != 0 {
		t.Fatalf("a missing lock: %v %v", empty, err)
	}
}
