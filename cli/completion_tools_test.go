//go:build unix

package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// toolsSetup configures the demo server and lists it once (the home's
// list cache then holds its tools), and returns the runner and its
// environment with mcpwire on PATH.
func toolsSetup(t *testing.T) (*runner, []string) {
	t.Helper()
	r := newRunner(t)
	bin := buildMcpwire(t)
	r.run(t, "add", "demo", "--", bin, "serve-demo").want(t, 0)
	r.run(t, "list").want(t, 0) // lists the tools: the cache holds them
	bindir := filepath.Join(filepath.Dir(r.dir), "bin")
	os.MkdirAll(bindir, 0o700)
	if err := os.Symlink(bin, filepath.Join(bindir, "mcpwire")); err != nil {
		t.Fatal(err)
	}
	return r, append(slices.Clone(r.env), "PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// checkToolsAndRevisions completes the lines every shell must complete
// alike: tool names after `call SERVER` and `tool SERVER` (nothing for a
// server not configured), revisions after --protocol.
func checkToolsAndRevisions(t *testing.T, complete func(line string) []string) {
	t.Helper()
	checkOffered(t, "mcpwire call demo e", complete("mcpwire call demo e"), []string{"echo", "env"})
	checkOffered(t, "mcpwire tool demo ad", complete("mcpwire tool demo ad"), []string{"add"})
	checkOffered(t, "mcpwire call nosuch e", complete("mcpwire call nosuch e"), nil)
	checkOffered(t, "mcpwire test --protocol 2025-0", complete("mcpwire test --protocol 2025-0"), []string{"2025-03-26", "2025-06-18"})
}

// TestCompletionBashToolsAndRevisions: after `call SERVER`, bash offers
// the server's tool names as the home's list cache holds them (nothing
// is started by TAB); after --protocol, the revisions.
func TestCompletionBashToolsAndRevisions(t *testing.T) {
	bash := needShell(t, "bash")
	r, env := toolsSetup(t)
	script := mcpwireScript(t, r.dir, env, "bash", "mcpwire.bash")
	driver := filepath.Join(filepath.Dir(r.dir), "drive.bash")
	os.WriteFile(driver, []byte(bashDriver), 0o600)
	checkToolsAndRevisions(t, func(line string) []string {
		out := runShell(t, r.dir, env, bash, append([]string{"--norc", "--noprofile", driver, script}, strings.Fields(line)...)...)
		if len(out) == 0 {
			return nil
		}
		return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	})
}

// TestCompletionZshToolsAndRevisions: the same lines in an interactive
// zsh (zpty), recording what compadd is given.
func TestCompletionZshToolsAndRevisions(t *testing.T) {
	zsh := needShell(t, "zsh")
	r, env := toolsSetup(t)
	script := mcpwireScript(t, r.dir, env, "zsh", "_mcpwire")
	driver := filepath.Join(filepath.Dir(r.dir), "drive.zsh")
	os.WriteFile(driver, []byte(zshDriver), 0o600)
	checkToolsAndRevisions(t, func(line string) []string {
		out := runShell(t, r.dir, env, zsh, "-f", driver, filepath.Dir(script), line)
		if !bytes.Contains(out, []byte("\x03DONE")) {
			t.Fatalf("%q: the completion did not run:\n%q", line, out)
		}
		var got []string
		for _, part := range bytes.Split(out, []byte{1})[1:] {
			if w, _, ok := bytes.Cut(part, []byte{2}); ok {
				got = append(got, string(w))
			}
		}
		return got
	})
}

// TestCompletionFishToolsAndRevisions: the same lines in fish
// (complete -C); after `call demo ` fish offers tools, not servers.
func TestCompletionFishToolsAndRevisions(t *testing.T) {
	fish := needShell(t, "fish")
	r, env := toolsSetup(t)
	script := mcpwireScript(t, r.dir, env, "fish", "mcpwire.fish")
	complete := func(line string) []string {
		out := runShell(t, r.dir, env, fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line)
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if w, _, _ := strings.Cut(l, "\t"); w != "" {
				got = append(got, w)
			}
		}
		return got
	}
	checkToolsAndRevisions(t, complete)
	checkOffered(t, "mcpwire call de", complete("mcpwire call de"), []string{"demo"})
	if got := complete("mcpwire call demo "); slices.Contains(got, "demo") || !slices.Contains(got, "echo") {
		t.Errorf("%q offered %q: want the tools, not the servers", "mcpwire call demo ", got)
	}
}
