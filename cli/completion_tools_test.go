//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCompletionBashToolsAndRevisions: after `call SERVER`, bash offers
// the server's tool names as the home's list cache holds them (nothing
// is started by TAB); after --protocol, the revisions.
func TestCompletionBashToolsAndRevisions(t *testing.T) {
	bash := needShell(t, "bash")
	r := newRunner(t)
	bin := buildMcpwire(t)
	r.run(t, "add", "demo", "--", bin, "serve-demo").want(t, 0)
	r.run(t, "list").want(t, 0) // lists the tools: the cache holds them
	bindir := filepath.Join(filepath.Dir(r.dir), "bin")
	os.MkdirAll(bindir, 0o700)
	if err := os.Symlink(bin, filepath.Join(bindir, "mcpwire")); err != nil {
		t.Fatal(err)
	}
	env := append(slices.Clone(r.env), "PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
	script := mcpwireScript(t, r.dir, env, "bash", "mcpwire.bash")
	driver := filepath.Join(filepath.Dir(r.dir), "drive.bash")
	os.WriteFile(driver, []byte(bashDriver), 0o600)
	complete := func(words ...string) []string {
		out := runShell(t, r.dir, env, bash, append([]string{"--norc", "--noprofile", driver, script}, words...)...)
		if len(out) == 0 {
			return nil
		}
		return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	}
	checkOffered(t, "mcpwire call demo e", complete("mcpwire", "call", "demo", "e"), []string{"echo", "env"})
	checkOffered(t, "mcpwire tool demo ad", complete("mcpwire", "tool", "demo", "ad"), []string{"add"})
	checkOffered(t, "mcpwire call nosuch e", complete("mcpwire", "call", "nosuch", "e"), nil)
	checkOffered(t, "mcpwire test --protocol 2025-0", complete("mcpwire", "test", "--protocol", "2025-0"), []string{"2025-03-26", "2025-06-18"})
}
