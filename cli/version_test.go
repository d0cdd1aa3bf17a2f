package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionFromBuildInfo builds mcpwire with the VCS stamp on, from a
// clone of this checkout (Go stamps a build only where .git is a folder,
// and a git worktree's is a file), and checks that `version --json`
// carries the module and the commit that git names HEAD there.
func TestVersionFromBuildInfo(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no git under CI=true: %v", err)
		}
		t.Skipf("no git here: %v", err)
	}
	src := filepath.Join(t.TempDir(), "src")
	if out, err := exec.Command("git", "clone", "--quiet", "--local", root, src).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	root = src
	bin := filepath.Join(t.TempDir(), "mcpwire")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Schema        int
		OK            bool
		Version       string
		Module        string
		ModuleVersion string
		Revision      string
		RevisionTime  string
		Platform      string
		Protocols     []string
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Schema != 1 || !v.OK || v.Version == "" || v.Module != "github.com/mcpwire/mcpwire" || v.ModuleVersion == "" || v.Platform == "" || len(v.Protocols) == 0 {
		t.Fatalf("version --json:\n%s", out)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	if want := strings.TrimSpace(string(head)); v.Revision != want || v.RevisionTime == "" {
		t.Fatalf("revision %q at %q, want %q:\n%s", v.Revision, v.RevisionTime, want, out)
	}
	human, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.Contains(string(human), "revision:  "+v.Revision) {
		t.Fatalf("version: %v\n%s", err, human)
	}
}
