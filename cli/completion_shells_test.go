//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	hostiletable "github.com/mcpwire/mcpwire/internal/hostile"
)

// completionNames are what a hostile project names its servers, to make
// a completion script run or expand something when TAB is pressed.
var completionNames = []string{
	"$(touch pwned-subst)", "`touch pwned-backtick`", "x;touch pwned-semicolon",
	"y\ntouch pwned-newline", "z&&touch pwned-and", "w|touch pwned-pipe",
	"v>pwned-redirect", "*", "a*", "?", "[a]", "{b,c}", "'q", `"dq`, "$HOME",
	"${PATH}", "a b", "-rf", ".hidden", "~root", "n\tdesc", "colon:desc",
	"!!", "#comment", "back\\slash",
}

// completionValid are the valid names of the same files: the only ones
// completion may offer.
var completionValid = []string{"alpha", "alpine_2", "beta-2", "gamma.3", "mine"}

// completionSetup writes a project .mcp.json with the hostile and valid
// names and a user file, and returns the folder, the environment (mcpwire
// on PATH) and a check that nothing ran.
func completionSetup(t *testing.T) (dir string, env []string, nothingRan func()) {
	t.Helper()
	bin := buildMcpwire(t)
	base := t.TempDir()
	dir = filepath.Join(base, "project")
	home := filepath.Join(base, "home")
	bindir := filepath.Join(base, "bin")
	for _, d := range []string{dir, home, bindir, filepath.Join(home, "mcpwire")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bin, filepath.Join(bindir, "mcpwire")); err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{}
	for _, n := range completionNames {
		servers[n] = map[string]any{"command": "true"}
	}
	for _, h := range hostiletable.Strings {
		servers[h.S] = map[string]any{"command": "true"}
	}
	for _, n := range completionValid[:4] {
		servers[n] = map[string]any{"command": "true"}
	}
	write := func(p string, v any) {
		data, err := json.Marshal(map[string]any{"mcpServers": v})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, ".mcp.json"), servers)
	write(filepath.Join(home, "mcpwire", ".mcp.json"), map[string]any{"mine": map[string]any{"command": "true"}, "$(touch pwned-user)": map[string]any{"command": "true"}})
	env = []string{
		"PATH=" + bindir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "MCPWIRE_HOME=" + filepath.Join(home, "mcpwire"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "TERM=dumb", "TMPDIR=" + base,
	}
	nothingRan = func() {
		t.Helper()
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), "pwned") {
				t.Errorf("a server name ran a command: %s exists", p)
			}
			return nil
		})
	}
	return dir, env, nothingRan
}

// needShell returns the path of a shell; a missing one fails under CI
// (scripts/shells.sh installs it) and skips elsewhere.
func needShell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed; run scripts/shells.sh", name)
		}
		t.Skipf("%s is not installed (scripts/shells.sh installs it)", name)
	}
	return p
}

// runShell runs a shell program in dir and returns its stdout.
func runShell(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, stderr.String())
	}
	return out
}

// mcpwireScript writes the completion script of shell next to dir.
func mcpwireScript(t *testing.T, dir string, env []string, shell, file string) string {
	t.Helper()
	cmd := exec.Command(buildMcpwire(t), "completion", shell)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.Dir(dir), file)
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkOffered compares the server names offered with want.
func checkOffered(t *testing.T, line string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	got = slices.Compact(got)
	if !slices.Equal(got, want) {
		t.Errorf("%q offered %q, want %q", line, got, want)
	}
}

// completionCases are the lines completed and the names each must offer.
var completionCases = []struct {
	words []string
	want  []string
}{
	{[]string{"mcpwire", "test", ""}, completionValid},
	{[]string{"mcpwire", "call", "al"}, []string{"alpha", "alpine_2"}},
	{[]string{"mcpwire", "get", "q"}, nil},
	{[]string{"mcpwire", "approve", "x"}, nil},
}

const bashDriver = `source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
COMPREPLY=()
_mcpwire
(( ${#COMPREPLY[@]} )) && printf '%s\0' "${COMPREPLY[@]}"
exit 0
`

// TestCompletionBashHostileNames: bash's completion offers the valid
// names only, and nothing a project named its servers runs (issue 20,
// item 1).
func TestCompletionBashHostileNames(t *testing.T) {
	bash := needShell(t, "bash")
	dir, env, nothingRan := completionSetup(t)
	script := mcpwireScript(t, dir, env, "bash", "mcpwire.bash")
	driver := filepath.Join(filepath.Dir(dir), "drive.bash")
	os.WriteFile(driver, []byte(bashDriver), 0o600)
	for _, c := range completionCases {
		out := runShell(t, dir, env, bash, append([]string{"--norc", "--noprofile", driver, script}, c.words...)...)
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if len(out) == 0 {
			got = nil
		}
		checkOffered(t, strings.Join(c.words, " "), got, c.want)
	}
	// The hidden word list itself gives the valid names only.
	words := runShell(t, dir, env, buildMcpwire(t), "__complete", "servers")
	checkOffered(t, "__complete servers", strings.Fields(string(words)), completionValid)
	// diff offers servers and files: the names among them are valid.
	out := runShell(t, dir, env, bash, "--norc", "--noprofile", driver, script, "mcpwire", "diff", "")
	for _, w := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if _, err := os.Lstat(filepath.Join(dir, w)); err != nil && !slices.Contains(completionValid, w) {
			t.Errorf("diff offered %q, neither a valid name nor a file", w)
		}
	}
	nothingRan()
}

const zshDriver = `zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PS1=''; PS2=''; unsetopt beep; fpath=(${1:q} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd() { if (( ${@[(I)-[OAD]]} )); then builtin compadd "$@"; return; fi; local -a _m; builtin compadd -O _m "$@"; local w; for w in "${_m[@]}"; do print -rn -- $'\''\x01'\''"$w"$'\''\x02'\''; done; builtin compadd "$@"; }'
zpty -w z '_t_complete() { zle complete-word; print -rn -- $'\''\x03'\''DONE; }; zle -N _t_complete; bindkey "^I" _t_complete; print -r -- READY$((1+1))'
local line out
zpty -r -m z line '*READY2*'
zpty -w -n z "$2"$'\t'
zpty -r -m z out "*"$'\x03'"DONE*"
print -rn -- "$out"
zpty -w z $'\x15exit'
zpty -d z
`

// TestCompletionZshHostileNames: zsh's completion, run by an interactive
// zsh in a pseudo-terminal (zpty) that records what compadd is given,
// offers the valid names only and runs nothing.
func TestCompletionZshHostileNames(t *testing.T) {
	zsh := needShell(t, "zsh")
	dir, env, nothingRan := completionSetup(t)
	script := mcpwireScript(t, dir, env, "zsh", "_mcpwire")
	driver := filepath.Join(filepath.Dir(dir), "drive.zsh")
	os.WriteFile(driver, []byte(zshDriver), 0o600)
	for _, c := range completionCases {
		line := strings.Join(c.words, " ")
		out := runShell(t, dir, env, zsh, "-f", driver, filepath.Dir(script), line)
		if !bytes.Contains(out, []byte("\x03DONE")) {
			t.Fatalf("%q: the completion did not run:\n%q", line, out)
		}
		var got []string
		for _, part := range bytes.Split(out, []byte{1})[1:] {
			if w, _, ok := bytes.Cut(part, []byte{2}); ok {
				got = append(got, string(w))
			}
		}
		checkOffered(t, line, got, c.want)
	}
	nothingRan()
}

// TestCompletionFishHostileNames: fish's completion (complete -C)
// offers the valid names only and runs nothing.
func TestCompletionFishHostileNames(t *testing.T) {
	fish := needShell(t, "fish")
	dir, env, nothingRan := completionSetup(t)
	script := mcpwireScript(t, dir, env, "fish", "mcpwire.fish")
	for _, c := range completionCases {
		line := strings.Join(c.words, " ")
		out := runShell(t, dir, env, fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line)
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if w, _, _ := strings.Cut(l, "\t"); w != "" {
				got = append(got, w)
			}
		}
		checkOffered(t, line, got, c.want)
	}
	nothingRan()
}
