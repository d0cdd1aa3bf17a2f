package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// completionUsage says how to load each shell's script.
const completionUsage = `load it in the shell:
  bash:  source <(mcpwire completion bash)       (or save it as ~/.local/share/bash-completion/completions/mcpwire)
  zsh:   mcpwire completion zsh > "${fpath[1]}/_mcpwire"   (then start a new shell)
  fish:  mcpwire completion fish > ~/.config/fish/completions/mcpwire.fish`

func runCompletion(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("completion")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout, the script in it")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		f := usageErr("completion takes one shell: bash, zsh or fish")
		f.hints = []string{completionUsage}
		return f
	}
	var script string
	switch pos[0] {
	case "bash":
		script = bashCompletion()
	case "zsh":
		script = zshCompletion()
	case "fish":
		script = fishCompletion()
	default:
		f := usageErr("no completion for %q: bash, zsh or fish", pos[0])
		f.hints = []string{completionUsage}
		return f
	}
	if inv.json {
		inv.writeJSON(struct {
			docHeader
			Shell  string `json:"shell"`
			Script string `json:"script"`
		}{inv.header(true), pos[0], script})
		return nil
	}
	_, err = inv.env.Stdout.Write([]byte(script))
	return err
}

// runCompleteWords is the hidden `mcpwire __complete servers`: the
// configured servers' names, one a line, for the completion scripts. Only
// valid names ([config.ValidName]: letters, digits, _ - .) are given: a
// project file's other names may hold what a shell would run or expand,
// and no script must ever see them. The scripts check the names again.
func runCompleteWords(ctx context.Context, inv *invocation, args []string) error {
	switch {
	case len(args) == 2 && args[0] == "tools":
		return inv.completeTools(args[1])
	case len(args) != 1 || args[0] != "servers":
		return usageErr("__complete takes: servers, or tools SERVER")
	}
	home := inv.env.Home
	if home == "" {
		h, err := config.Home(inv.env.Getenv)
		if err != nil {
			return nil
		}
		home = h
	}
	cfg, _ := config.Load(config.LoadOptions{Home: home, Dir: inv.env.Dir, Getenv: inv.env.Getenv})
	if cfg == nil {
		return nil
	}
	var names []string
	for _, s := range cfg.Servers {
		if config.ValidName(s.Name) == nil {
			names = append(names, s.Name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		inv.printf("%s\n", n)
	}
	return nil
}

// completionWords are the values some flags take.
var completionWords = map[string][]string{
	"from":      config.ImportClients(),
	"fail-on":   {"breaking", "any"},
	"scope":     {"user", "project"},
	"s":         {"user", "project"},
	"transport": {"stdio", "http", "sse"},
	"elicit":    {"defaults", "decline", "cancel"},
	"log-level": {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"},
	"protocol":  protocol.SupportedVersions(),
}

// toolNameWord is what a completion offers as a tool name: MCP's tool
// name characters only, so that no word reaching the shell means more.
func toolNameWord(n string) bool {
	if n == "" || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// completeTools prints the tool names of the configured server name, as
// the home's list cache holds them: completion starts no server.
func (inv *invocation) completeTools(name string) error {
	home := inv.env.Home
	if home == "" {
		h, err := config.Home(inv.env.Getenv)
		if err != nil {
			return nil
		}
		home = h
	}
	cfg, _ := config.Load(config.LoadOptions{Home: home, Dir: inv.env.Dir, Getenv: inv.env.Getenv})
	if cfg == nil || cfg.Server(name) == nil || cfg.Server(name).Err != nil {
		return nil
	}
	spec, err := manager.SpecFromConfig(cfg.Server(name))
	if err != nil {
		return nil
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		return nil
	}
	names := h.CachedToolNames(spec)
	sort.Strings(names)
	for _, n := range names {
		if toolNameWord(n) {
			inv.printf("%s\n", n)
		}
	}
	return nil
}

func bashCompletion() string {
	var b strings.Builder
	b.WriteString(`# bash completion for mcpwire (made by: mcpwire completion bash)
# Words reach COMPREPLY one a line, as they are: never through compgen -W
# or an unquoted $(...), which would expand them.
_mcpwire_add() {
    local w
    while IFS= read -r w; do COMPREPLY+=("$w"); done
}
# The configured servers whose name is valid and starts with $cur.
_mcpwire_servers() {
    local name re='^[A-Za-z0-9_][A-Za-z0-9_.-]*$'
    while IFS= read -r name; do
        [[ $name =~ $re && $name == "$cur"* ]] && COMPREPLY+=("$name")
    done < <(mcpwire "${home[@]}" __complete servers 2>/dev/null)
}
# The cached tool names of the server $arg1 that start with $cur.
_mcpwire_tools() {
    local name re='^[A-Za-z0-9_.-]+$'
    while IFS= read -r name; do
        [[ $name =~ $re && $name == "$cur"* ]] && COMPREPLY+=("$name")
    done < <(mcpwire "${home[@]}" __complete tools "$arg1" 2>/dev/null)
}
_mcpwire() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local i cmd= home=() nargs=0 arg1=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --) return 0 ;;  # a server's own command line
        --home) home=(--home "${COMP_WORDS[i+1]}"); ((i++)) ;;
        -*) ;;
        *) if [[ -z $cmd ]]; then cmd=${COMP_WORDS[i]}; else ((nargs++)); ((nargs == 1)) && arg1=${COMP_WORDS[i]}; fi ;;
        esac
    done
    local flags= values= words=
    COMPREPLY=()
    case $cmd in
`)
	for _, c := range visibleCommands() {
		var names []string
		var withValue []string
		for _, f := range c.flagsOf() {
			names = append(names, f.long())
			if f.Value != "" {
				withValue = append(withValue, f.long())
			}
		}
		fmt.Fprintf(&b, "    %s) flags=%s; values=%s ;;\n", c.name, shellQuote(strings.Join(names, " ")), shellQuote(" "+strings.Join(withValue, " ")+" "))
	}
	b.WriteString(`    esac
    case $prev in
`)
	for _, k := range slices.Sorted(maps.Keys(completionWords)) {
		dashes := "--"
		if len(k) == 1 {
			dashes = "-"
		}
		fmt.Fprintf(&b, "    %s%s) _mcpwire_add < <(compgen -W %s -- \"$cur\"); return 0 ;;\n", dashes, k, shellQuote(strings.Join(completionWords[k], " ")))
	}
	b.WriteString(`    --home) _mcpwire_add < <(compgen -d -- "$cur"); return 0 ;;
    esac
    if [[ $values == *" $prev "* ]]; then
        compopt -o filenames 2>/dev/null  # bash quotes the file names it inserts
        _mcpwire_add < <(compgen -f -- "$cur")
        return 0
    fi
    if [[ -z $cmd ]]; then
        _mcpwire_add < <(compgen -W "$(printf '%s ' `)
	var names []string
	for _, c := range visibleCommands() {
		names = append(names, c.name)
	}
	b.WriteString(shellQuote(strings.Join(names, " ")))
	b.WriteString(`) help --home --help --version" -- "$cur")
        return 0
    fi
    if [[ $cur == -* ]]; then
        _mcpwire_add < <(compgen -W "$flags --home --help" -- "$cur")
        return 0
    fi
    case $cmd in
    help) ((nargs == 0)) && _mcpwire_add < <(compgen -W "$(printf '%s ' `)
	b.WriteString(shellQuote(strings.Join(names, " ")))
	b.WriteString(`)" -- "$cur") ;;
    completion) ((nargs == 0)) && _mcpwire_add < <(compgen -W "bash zsh fish" -- "$cur") ;;
    diff) _mcpwire_servers; compopt -o filenames 2>/dev/null; _mcpwire_add < <(compgen -f -- "$cur") ;;
`)
	b.WriteString("    call|tool) ((nargs == 0)) && _mcpwire_servers; ((nargs == 1)) && _mcpwire_tools ;;\n")
	var serverCmds []string
	for _, c := range visibleCommands() {
		if c.takesServer() && c.name != "diff" && c.name != "call" && c.name != "tool" {
			serverCmds = append(serverCmds, c.name)
		}
	}
	fmt.Fprintf(&b, "    %s) ((nargs == 0)) && _mcpwire_servers ;;\n", strings.Join(serverCmds, "|"))
	b.WriteString(`    esac
    return 0
}
complete -o default -o bashdefault -F _mcpwire mcpwire
`)
	return b.String()
}

// zshQuote quotes s inside a zsh _arguments spec: brackets and colons
// escaped, the whole in single quotes.
func zshQuote(s string) string {
	r := strings.NewReplacer(`[`, `\[`, `]`, `\]`, `:`, `\:`)
	return r.Replace(s)
}

func zshCompletion() string {
	var b strings.Builder
	b.WriteString(`#compdef mcpwire
# zsh completion for mcpwire (made by: mcpwire completion zsh)

# The configured servers whose name is valid, added as words (compadd
# quotes what it inserts; nothing is evaluated).
_mcpwire_servers() {
  local -a servers
  local name
  for name in ${(f)"$(mcpwire __complete servers 2>/dev/null)"}; do
    [[ $name =~ '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' ]] && servers+=("$name")
  done
  local expl
  _wanted servers expl 'configured server' compadd -- "${servers[@]}"
}

# The cached tool names of the server named after the command.
_mcpwire_tools() {
  local -a tools
  local name w server
  for w in ${words[2,-1]}; do [[ $w != -* ]] && { server=$w; break; }; done
  for name in ${(f)"$(mcpwire __complete tools "$server" 2>/dev/null)"}; do
    [[ $name =~ '^[A-Za-z0-9_.-]+$' ]] && tools+=("$name")
  done
  local expl
  _wanted tools expl 'tool' compadd -- "${tools[@]}"
}

_mcpwire() {
  local -a commands
  commands=(
`)
	for _, c := range visibleCommands() {
		fmt.Fprintf(&b, "    %s\n", shellQuote(c.name+":"+zshQuote(c.short)))
	}
	b.WriteString(`  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'mcpwire command' commands
    return
  fi
  local cmd=${words[2]}
  shift words
  (( CURRENT-- ))
  case $cmd in
`)
	for _, c := range visibleCommands() {
		fmt.Fprintf(&b, "  %s)\n    _arguments -s \\\n", c.name)
		for _, f := range c.flagsOf() {
			spec := f.long() + "[" + zshQuote(f.Usage) + "]"
			if f.Value != "" {
				action := "_files"
				if ws, ok := completionWords[f.Name]; ok {
					action = "(" + strings.Join(ws, " ") + ")"
				}
				spec = f.long() + "=[" + zshQuote(f.Usage) + "]:" + zshQuote(strings.ToLower(f.Value)) + ":" + action
			}
			fmt.Fprintf(&b, "      %s \\\n", shellQuote(spec))
		}
		fmt.Fprintf(&b, "      '--home=[the home folder]:folder:_files -/' \\\n")
		switch {
		case c.name == "help":
		case c.name == "completion":
			b.WriteString("      '1:shell:(bash zsh fish)' \\\n")
		case c.name == "call" || c.name == "tool":
			b.WriteString("      '1:server:_mcpwire_servers' '2:tool:_mcpwire_tools' '*:: :_files' \\\n")
		case c.name == "diff":
			b.WriteString("      '*:snapshot file or server:{_mcpwire_servers; _files}' \\\n")
		case c.takesServer():
			b.WriteString("      '1:server:_mcpwire_servers' '*:: :_files' \\\n")
		default:
			b.WriteString("      '*:file:_files' \\\n")
		}
		b.WriteString("      && return\n    ;;\n")
	}
	b.WriteString(`  help)
    _describe -t commands 'mcpwire command' commands
    ;;
  esac
}

_mcpwire "$@"
`)
	return b.String()
}

// fishTools starts the fish script: its functions find the words typed
// so far (--home's value kept, other flags skipped) and offer the cached
// tool names of `call SERVER` and `tool SERVER`, checked again here and
// taken by fish as one literal word a line.
const fishTools = `# fish completion for mcpwire (made by: mcpwire completion fish)
complete -c mcpwire -f
complete -c mcpwire -l home -r -F -d 'the home folder'
# The words typed before the cursor that are not flags, the command first.
function __mcpwire_args
    set -l words (commandline -opc)
    set -l skip 0
    for w in $words[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case --home
                set skip 1
            case '-*'
            case '*'
                printf '%s\n' $w
        end
    end
end
# --home and its value, when typed.
function __mcpwire_home
    set -l words (commandline -opc)
    if set -l i (contains -i -- --home $words)
        and test (count $words) -gt $i
        printf '%s\n' --home $words[(math $i + 1)]
    end
end
# The first word after a command of $argv (after diff: any word).
function __mcpwire_want_server
    set -l args (__mcpwire_args)
    contains -- "$args[1]" $argv; or return 1
    test (count $args) -eq 1; or test $args[1] = diff
end
function __mcpwire_want_tool
    set -l args (__mcpwire_args)
    test (count $args) -eq 2; and contains -- $args[1] call tool
end
function __mcpwire_tools
    set -l args (__mcpwire_args)
    mcpwire (__mcpwire_home) __complete tools $args[2] 2>/dev/null | string match -r -- '^[A-Za-z0-9_.-]+$'
end
`

// fishQuote quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString(fishTools)
	fmt.Fprintf(&b, "complete -c mcpwire -n __fish_use_subcommand -a help -d %s\n", fishQuote("a command's help"))
	var names []string
	for _, c := range visibleCommands() {
		names = append(names, c.name)
		fmt.Fprintf(&b, "complete -c mcpwire -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.short))
	}
	fmt.Fprintf(&b, "complete -c mcpwire -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(names, " ")))
	b.WriteString("complete -c mcpwire -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	var serverCmds []string
	for _, c := range visibleCommands() {
		if c.takesServer() {
			serverCmds = append(serverCmds, c.name)
		}
		for _, f := range c.flagsOf() {
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			extra := ""
			if f.Value != "" {
				extra = " -r -F"
				if ws, ok := completionWords[f.Name]; ok {
					extra = " -x -a " + fishQuote(strings.Join(ws, " "))
				}
			}
			fmt.Fprintf(&b, "complete -c mcpwire -n '__fish_seen_subcommand_from %s' %s%s -d %s\n", c.name, opt, extra, fishQuote(f.Usage))
		}
	}
	// The names come one a line, valid ones only (checked again here);
	// fish takes each line as one literal word.
	fmt.Fprintf(&b, "complete -c mcpwire -n '__mcpwire_want_server %s' -a '(mcpwire (__mcpwire_home) __complete servers 2>/dev/null | string match -r -- \\'^[A-Za-z0-9_][A-Za-z0-9_.-]*$\\')' -d 'configured server'\n", strings.Join(serverCmds, " "))
	b.WriteString("complete -c mcpwire -n '__fish_seen_subcommand_from diff' -F\n")
	b.WriteString("complete -c mcpwire -n __mcpwire_want_tool -a '(__mcpwire_tools)' -d tool\n")
	return b.String()
}
