package cli

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	demoserver "github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestUpgradeKeepsURLVariables: a remote whose URL has a variable
// (--var path=mcp at install) keeps its value through upgrade, which
// binds it again from the installed URL and the template the provenance
// recorded; the upgraded server still connects. Before, upgrade lost it
// (a required variable: the upgrade failed asking for --var path).
func TestUpgradeKeepsURLVariables(t *testing.T) {
	proctest.Check(t)
	demo := demoserver.NewHTTPHandler(demoserver.Options{})
	mcp := httptest.NewServer(demo)
	defer demo.Close()
	defer mcp.Close()
	doc := func(v string) string {
		return fmt.Sprintf(`{"name":"io.test/tenant","description":"a remote with a URL variable","version":%q,"remotes":[{"type":"streamable-http","url":%q,`+
			`"variables":{"path":{"description":"the endpoint's path","isRequired":true}}}]}`, v, mcp.URL+"/{path}")
	}
	reg := httptest.NewServer(&fakeRegistry{entries: []fakeEntry{
		{doc: doc("1.0.0"), status: "active"},
		{doc: doc("1.1.0"), status: "active", latest: true},
	}})
	defer reg.Close()
	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	if code, out, errs := r.run("install", "io.test/tenant@1.0.0", "--registry", reg.URL, "-s", "project", "--var", "path=mcp", "--yes"); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := r.run("upgrade", "tenant", "--yes")
	if code != 0 {
		t.Fatalf("upgrade: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(work, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"url": "`+mcp.URL+`/mcp"`) || !strings.Contains(string(data), `"version": "1.1.0"`) {
		t.Errorf("after upgrade, the URL variable or the version is lost:\n%s", data)
	}
	if code, out, errs := r.run("test", "tenant"); code != 0 {
		t.Errorf("test after upgrade: exit %d\n%s%s", code, out, errs)
	}
}

// TestUpgradeKeepsArguments: a package's positional and named arguments
// given at install with --var (--var root=/srv/data --var tag=a --var
// tag=b) are bound again by upgrade from the provenance's "vars"; a
// secret argument stays a ${VAR} reference and is not recorded. Before,
// upgrade lost them (a required one failed asking for --var again).
func TestUpgradeKeepsArguments(t *testing.T) {
	doc := func(v string) string {
		return fmt.Sprintf(`{"name":"io.test/files","description":"a package with arguments","version":%q,"packages":[{"registryType":"npm","identifier":"@test/files","version":%q,"transport":{"type":"stdio"},`+
			`"packageArguments":[{"type":"positional","valueHint":"root","isRequired":true},{"type":"named","name":"--tag","isRepeated":true},{"type":"named","name":"--token","isSecret":true}]}]}`, v, v)
	}
	reg := httptest.NewServer(&fakeRegistry{entries: []fakeEntry{
		{doc: doc("1.0.0"), status: "active"},
		{doc: doc("1.1.0"), status: "active", latest: true},
	}})
	defer reg.Close()
	work := t.TempDir()
	r := &docRunner{t: t, home: filepath.Join(work, "home"), dir: work, env: map[string]string{"NO_COLOR": "1"}}
	if code, out, errs := r.run("install", "io.test/files@1.0.0", "--registry", reg.URL, "--package", "npm", "-s", "project",
		"--var", "root=/srv/data", "--var", "tag=a", "--var", "tag=b", "--var", "token=hunter2", "--yes", "--no-connect"); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := r.run("upgrade", "files", "--yes", "--no-connect")
	if code != 0 {
		t.Fatalf("upgrade: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(work, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		MCPServers map[string]struct {
			Args     []string
			Registry map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	got := file.MCPServers["files"]
	want := []string{"-y", "@test/files@1.1.0", "/srv/data", "--tag", "a", "--tag", "b", "--token", "${TOKEN}"}
	if !slices.Equal(got.Args, want) {
		t.Errorf("args after upgrade: %q, want %q\n%s", got.Args, want, data)
	}
	if v := got.Registry["vars"]; v != "root=%2Fsrv%2Fdata&tag=a&tag=b" {
		t.Errorf("the provenance's vars: %q", v)
	}
	if strings.Contains(string(data), "hunter2") {
		t.Errorf("a secret argument's value was written:\n%s", data)
	}
}
