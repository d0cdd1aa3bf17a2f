package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
)

// commandHelp is what a command's help says besides its synopsis and
// flags: a paragraph, and examples (PROG stands for the program's name).
// An array, not a map: the compiler lays an array out as data, where a
// map literal is code that builds it at start (6,858 bytes of code for
// some 3 KB of data).
var commandHelp = [...]commandDoc{
	{"list", "Lists every configured server (the home folder's .mcp.json, then ./.mcp.json) and connects the enabled, approved ones in parallel. It exits 0 when it ran, whatever each server did; --strict exits 1 when an enabled server failed, 4 when one needs a login.",
		[]string{"PROG list", "PROG list --strict --json"}},
	{"test", "Connects to one server, initializes, lists its tools (and resources, templates and prompts when it offers them), and reports. A URL target is https, or plain http to localhost, 127.0.0.0/8 or [::1]; --allow-http allows plain http to another host (a CI service container), with a warning, and never with a token.",
		[]string{"PROG test --demo", "PROG test github --json", "PROG test -- npx -y @modelcontextprotocol/server-everything", "PROG test --allow-http http://mcp:8080/mcp"}},
	{"proxy", "Serves TARGET (a configured name, a URL, or a command after --) to the program that starts it, over stdio: the job of mcp-remote. mcpwire is the target's client (its process, transport, era and OAuth tokens stay with mcpwire; the host never sees a token) and a server of both eras to the host, so a legacy host reaches a modern-only server and the other way round; requests, progress, cancellation, log messages, list changes and the target's roots, elicitation and sampling requests are passed on (to a modern host as input requests of its call). A configured TARGET runs only once approved, and its pins apply: a tool changed since the approval is not listed and its call is refused, as call refuses it. --listen ADDR serves streamable HTTP instead (loopback only, unless --listen-public with --bearer-token-env-var NAME or, said loudly, --no-auth); requests whose Origin is another site's are refused (DNS rebinding).",
		[]string{"PROG proxy github", "PROG proxy https://mcp.example.com/mcp", "PROG proxy --listen 127.0.0.1:8080 -- npx -y @modelcontextprotocol/server-everything"}},
	{"serve", "Serves the manager as one MCP server over stdio (or --listen, with proxy's rules), for a host that should reach every configured server (or the ones named) through one entry: the tools and prompts of each approved, enabled server under the manager's names (mcp__server__tool, or the definition's prefix; enabledTools and disabledTools apply), its resources and templates under their own URIs (the first server's when two offer one), completion and subscriptions routed to their server, each list in pages of --page-size. list_changed goes out when a server joins late, fails or changes a list; each call's progress and cancellation pass through, and the servers' elicitation, sampling and roots requests go to the host. --wait bounds how long the first answer waits for servers to start; later ones are announced.",
		[]string{"PROG serve", "PROG serve github filesystem", "PROG serve --listen 127.0.0.1:8080"}},
	{"call", "Calls one tool. Arguments are k=v pairs (typed by the tool's input schema), one JSON object, or - to read the object from stdin. A tool's own error (isError) exits 5. --task runs it as a task where the server allows it and waits with its status on stderr (Ctrl-C cancels the task); with --timeout the whole wait is bounded: when it passes, tasks/cancel is sent and the call exits 1 (code timeout), while without it the wait lasts until the task ends; --detach prints the task's id and exits 0; a tool whose taskSupport is required runs as a task without either.",
		[]string{"PROG call --demo echo text=hello", "PROG call github search_issues '{\"q\":\"is:open\"}' --json", "echo '{\"a\":2,\"b\":3}' | PROG call --demo add -"}},
	{"task", "Follows a task that call --task or --detach started (the Tasks extension, or the tasks of 2025-11-25): get prints its state, wait waits for its end and prints the result as call does, cancel asks the server to cancel it. wait --timeout D gives up after D, sends tasks/cancel and exits 1 (code timeout); without it wait lasts until the task ends or Ctrl-C. The home folder keeps each task's id with its server (tasks.json, 0600).",
		[]string{"PROG call --detach build run_pipeline ref=main", "PROG task wait build 786512e2-9e0d-44bd-8f29-789f320fe840", "PROG task cancel build 786512e2-9e0d-44bd-8f29-789f320fe840 --json"}},
	{"skills", "Lists the skills a server offers (the io.modelcontextprotocol/skills extension): name, files, description. Nothing of a skill is read until it is loaded.",
		[]string{"PROG skills docs", "PROG skills docs --json"}},
	{"skill", "Loads one skill: SKILL.md first, then its other files, each verified against the listing's sha256 digest and size, and SKILL.md's frontmatter against the listing's; a mismatch is refused, naming the file, and nothing after it is read. Prints SKILL.md; --out DIR writes every file under DIR/NAME/, never through a symbolic link and never over a file unless --force.",
		[]string{"PROG skill docs pdf-processing", "PROG skill docs pdf-processing --out .skills"}},
	{"read", "Reads a resource by its URI; binary contents go to --out FILE, written whole or not at all; an existing FILE (or a symbolic link there) only with --force, which replaces it and never writes through a link.", []string{"PROG read --demo demo://readme", "PROG read --demo demo://logo.png --out logo.png"}},
	{"prompt", "Gets a prompt with its arguments as k=v pairs.", []string{"PROG prompt --demo greet name=Ada"}},
	{"complete", "Asks the server to complete an argument of a prompt or a variable of a resource template.", []string{"PROG complete --demo --prompt greet style f"}},
	{"login", "Logs in to an OAuth-protected HTTP server: opens the authorization address in the browser ($BROWSER when set: a command, its words split at spaces, %s standing for the address, else the address added last; several commands separated by ':' are tried in order), then waits for the loopback callback. With no browser here (an SSH session, no display, or --no-browser), when the authorization server offers the device authorization grant (RFC 8628), it shows a code to enter at an address on any device instead, and waits for the approval; --device forces that, --no-device refuses it. When already logged in it says so and exits 0; --force logs in again. With --json or --events the address (or the code) is an event on stdout, for an agent to show.",
		[]string{"PROG login github", "PROG login github --no-browser", "PROG login github --device", "BROWSER=firefox PROG login github"}},
	{"logout", "Forgets a server's tokens and revokes them where the server allows; the registered OAuth client is kept for the next login.", []string{"PROG logout github"}},
	{"add", "Adds a server to the home folder's .mcp.json (or the project's with --scope project) and approves it. Claude Code's forms work too: add --transport http NAME URL, add NAME -- COMMAND ARGS, -e KEY=VALUE, -s user|project.", []string{"PROG add memory -- npx -y @modelcontextprotocol/server-memory", "PROG add --transport http notion https://mcp.notion.com/mcp", "PROG add db -e DSN=postgres://localhost -s project -- db-mcp"}},
	{"add-json", "Adds a server from its definition as JSON, in .mcp.json's format, and approves it.", []string{`PROG add-json weather '{"type":"http","url":"https://weather.example.com/mcp"}'`}},
	{"get", "Reviews a server's definition: as written (${VAR} references unexpanded, a project's values in full), its file, approval, the folder a stdio server runs in, and warnings in words: env variables that change how programs load (LD_PRELOAD, BASH_ENV, NODE_OPTIONS, …), headers or URLs that send your environment to a host, secrets too short to mask. Masked (***) in all output, in every form (JSON- and URL-escaped, base64 in Basic auth): values ${VAR} takes from your environment, env and header values of your own home file, OAuth tokens, codes, verifiers and client secrets; never a project's own text, JSON keys or mcpwire's words.", []string{"PROG get github", "PROG get github --json"}},
	{"remove", "Removes a server from the home folder's .mcp.json, or the project's with --scope project.", []string{"PROG remove memory"}},
	{"enable", "Enables a server in the file that defines it.", []string{"PROG enable memory"}},
	{"disable", "Disables a server in the file that defines it; it stays listed.", []string{"PROG disable memory"}},
	{"approve", "Approves a definition after showing the same review as get: a definition runs only once approved, and again only after a change is approved. The approval covers the definition, where its file was found and the folder it runs in. --all approves every enabled definition of your own file (the home folder's .mcp.json) not approved yet, printing the review of each, for CI; --project approves the project file's instead and, on a terminal, asks once after the reviews unless --yes is given. Disabled and revoked ones stay unapproved, and one that cannot be approved exits 3.", []string{"PROG approve memory", "PROG approve --all --project --yes"}},
	{"revoke", "Revokes a server's approval; it no longer runs.", []string{"PROG revoke memory"}},
	{"doctor", "Checks one server, or every configured one, phase by phase: definition, command, spawn, DNS, TLS, HTTP, OAuth, login, initialize, tools. Exit 3 for a definition or approval problem, 4 when a login is needed, 1 when the server fails. Every server is checked at once; in a pipe (a CI log) each one's line (NAME: ok, or NAME: fail: PHASE: DETAIL) goes to stderr as it finishes, before the reports.", []string{"PROG doctor", "PROG doctor github --json"}},
	{"probe", "Asks a server which protocol revisions it accepts.", []string{"PROG probe --demo"}},
	{"import", "Reads another client's MCP configuration from its usual place (or FILE), shows what it would add, and adds it with --write. Imported definitions still need approval.", []string{"PROG import --from claude-desktop", "PROG import --from cursor --write --scope project"}},
	{"replay", "Serves a recording made with --record as an MCP server, over stdio or with --listen over streamable HTTP, offering the revisions the recorded server offered (--any-era: both eras, every revision), over either transport whatever it was recorded over: each request is answered as its recorded twin was (matched by method and parameters, _meta and ids aside; --ignore-field and --match loose relax it), after the notifications and server requests recorded meanwhile, at the recorded pace (--speed); a request the recording does not hold gets an error naming the closest recorded one. docs/recording.md describes the file.", []string{"PROG call --record rec.jsonl github search_code q=x", "PROG call github search_code q=x -- PROG replay rec.jsonl", "PROG replay --listen 127.0.0.1:8080 --speed 0 rec.jsonl"}},
	{"verify", "Sends the requests of a recording (--record FILE) to a live TARGET again, in order, with fresh ids and the recorded revision (unless --protocol), and reports where the answers differ: lists by the surface comparison of diff (a removed tool, a narrowed schema, a new version), the answers of calls, reads, prompts and completions by value, as mcpwire decodes them (the era's envelope aside), but for the --ignore paths; --accept FILE lists known list changes (KIND NAME, as diff --accept), shown as accepted. The server's own requests (elicitation, sampling, roots) are answered as the recorded client answered them (the same params first, else in the recorded order), with the capabilities it declared; a multi round-trip request is compared by its last answer, and a call answered with a task (the Tasks extension) by the task's end, which the session follows on the live server. Exits 1 when an answer differs, 0 when all are the same.", []string{"PROG call --record rec.jsonl github search_code q=x", "PROG verify rec.jsonl github --ignore result.content[0].text"}},
	{"budget", "Measures what servers put into a model's context, each and together: their tools' names, titles, descriptions and schemas, and their instructions, in bytes and in estimated tokens (4 bytes a token: an estimate, not a tokenizer's count), the costliest tools first. With no TARGET, every enabled server configured. The session declares no elicitation or sampling, so that a server offers the same tools on a terminal as in a pipe. --max-tokens N proposes an enabledTools list per server such that all of them fit in N together: the tools a recording (--from FILE of --record) called most first, then the smallest. A server that does not answer is a row with its error (the phase and what to do), the totals and the proposal are over the servers that answered, and budget exits non-zero after printing all of them: 1 when a server failed, else 4 when one needs a login, else 3 (a definition wrong or not approved).", []string{"PROG budget github", "PROG budget github linear --max-tokens 4000 --json", "PROG budget --max-tokens 8000 --from rec.jsonl"}},
	{"snapshot", "Writes a server's surface (identity, revision, capabilities, tools with their schemas and annotations, resources, templates, prompts) as JSON, sorted and normalized: two runs give the same bytes. It records what mcpwire declared (revision, capabilities, roots; no elicitation unless --elicit says so, on a terminal as in a pipe), and diff declares the same. Check it in and diff against it in CI.", []string{"PROG snapshot github -o mcp/github.snapshot.json"}},
	{"diff", "Compares two surfaces, each a snapshot file or a live TARGET, and classifies each change as breaking (removed, a new required argument, a type narrowed, an enum value removed, an output changed incompatibly) or compatible. --fail-on sets exit 1; --accept FILE lists known changes (lines KIND NAME: tool echo) that fail nothing. A live side declares what the snapshot file declared.", []string{"PROG diff mcp/github.snapshot.json github --fail-on breaking", "PROG diff mcp/github.snapshot.json github --fail-on breaking --accept mcp/known-changes.txt", "PROG diff old.json new.json --markdown"}},
	{"completion", completionUsage, []string{"source <(PROG completion bash)"}},
	{"man", "Prints the manual page in roff.", []string{"man -l <(PROG man)"}},
	{"version", "Prints mcpwire's version, the module version and VCS revision it was built from, and the protocol revisions it speaks.", []string{"PROG version --json"}},
}

// helpOf is commandHelp's entry for the command name (none: zero).
func helpOf(name string) commandDoc {
	for _, e := range commandHelp {
		if e.name == name {
			return e
		}
	}
	return commandDoc{}
}

// A commandDoc is a command's paragraph and examples.
type commandDoc struct {
	name, long string
	examples   []string
}

// printHelp prints a command's help: synopsis, what it does, its flags in
// their --long form, the global flags, and examples.
func (inv *invocation) printHelp(w io.Writer, c *command, flags []flagInfo) {
	prog := inv.prog
	fmt.Fprintf(w, "usage: %s\n\n", c.synopsis(prog))
	h := helpOf(c.name)
	if h.long != "" {
		fmt.Fprintf(w, "%s\n\n", wrap(h.long, 76, ""))
	} else if c.short != "" {
		fmt.Fprintf(w, "%s\n\n", c.short)
	}
	var own []flagInfo
	for _, f := range flags {
		if f.Name != "json" && f.Name != "help" && f.Name != "h" {
			own = append(own, f)
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(w, "flags:\n")
		printFlags(w, own)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "global flags:\n")
	printFlags(w, []flagInfo{
		{Name: "home", Value: "DIR", Usage: "the home folder (default $MCPWIRE_HOME, else $XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire)"},
		{Name: "json", Usage: "print one JSON document on stdout (\"schema\": 1, \"ok\"; see docs/json.md)"},
		{Name: "color", Value: "WHEN", Usage: "always, never or auto (default: a terminal; NO_COLOR turns it off, FORCE_COLOR or CLICOLOR_FORCE on)"},
		{Name: "wide", Usage: "tables as wide as they need: nothing cut to fit the terminal"},
		{Name: "help", Usage: "this help"},
	})
	if len(h.examples) > 0 {
		fmt.Fprintf(w, "\nexamples:\n")
		for _, e := range h.examples {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(e, "PROG", prog))
		}
	}
}

// printFlags prints flags as "  --name VALUE   usage (default d)".
func printFlags(w io.Writer, flags []flagInfo) {
	width := 0
	heads := make([]string, len(flags))
	for i, f := range flags {
		heads[i] = f.long()
		if f.Value != "" {
			heads[i] += " " + f.Value
		}
		width = max(width, len(heads[i]))
	}
	width = min(width, 28)
	for i, f := range flags {
		usage := f.Usage
		if f.Def != "" {
			usage += " (default " + f.Def + ")"
		}
		pad := width + 4
		if len(heads[i]) > width {
			fmt.Fprintf(w, "  %s\n%s%s\n", heads[i], strings.Repeat(" ", pad), wrap(usage, 78-pad, strings.Repeat(" ", pad)))
			continue
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, heads[i], wrap(usage, 78-pad, strings.Repeat(" ", pad)))
	}
}

// wrap breaks s into lines of at most width runes, each line after the
// first starting with indent.
func wrap(s string, width int, indent string) string {
	width = max(width, 20)
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		l := len([]rune(w))
		if i > 0 && n+1+l > width {
			b.WriteString("\n" + indent)
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}

// helpDoc is `mcpwire help [COMMAND] --json`: the commands (or the one
// asked for), each with its flags and examples.
type helpDoc struct {
	docHeader
	Commands []helpCommand `json:"commands"`
}

// helpCommand is one command of helpDoc.
type helpCommand struct {
	Name        string     `json:"name"`
	Usage       string     `json:"usage"` // the synopsis, with the program's name
	Short       string     `json:"short"`
	Description string     `json:"description"`
	Flags       []helpFlag `json:"flags"`
	Examples    []string   `json:"examples"`
}

// helpFlag is one flag of a command.
type helpFlag struct {
	_ [0]func() // not comparable: no equality function in the binary

	Flag    string `json:"flag"`  // as typed: --json, -o
	Value   string `json:"value"` // the value's placeholder; "" for a switch
	Usage   string `json:"usage"`
	Default string `json:"default"` // "" when it says nothing
}

// runHelp is `mcpwire help [COMMAND] [--json]`.
func runHelp(ctx context.Context, env Env, args []string) int {
	inv := newInvocation(env, &command{name: "help", usage: "help [COMMAND] [--json]"})
	inv.wantJSON = wantsJSON(args)
	var words []string
	for _, a := range args {
		switch a {
		case "--json", "-json", "--json=true", "-json=true":
			inv.json = true
		default:
			words = append(words, a)
		}
	}
	switch {
	case len(words) > 1:
		return inv.finish(ctx, usageErr("help takes one COMMAND"))
	case len(words) == 1 && words[0] == "config" && !inv.json:
		inv.printf("%s", configHelp(inv.prog))
		return ExitOK
	case len(words) == 1 && words[0] == "serve-demo" && !inv.json:
		inv.printf("usage: %s serve-demo [FLAGS]\n\n", inv.prog)
		inv.printf("The built-in demo MCP server: on stdin and stdout (stdio), or with --http ADDR\nover streamable HTTP. It is what --demo runs, and the tests' fixture; its\nflags make it misbehave on purpose.\n\nflags:\n")
		var flags strings.Builder
		demo.Main(ctx, []string{"-h"}, strings.NewReader(""), io.Discard, &flags)
		_, list, _ := strings.Cut(flags.String(), "\n") // after flag's "Usage of serve-demo:"
		inv.printf("%s", list)
		inv.printf("\nexamples:\n  %[1]s serve-demo\n  %[1]s serve-demo --http 127.0.0.1:8080\n  %[1]s test -- %[1]s serve-demo --banner\n", inv.prog)
		return ExitOK
	case len(words) == 1 && findCommand(words[0]) == nil:
		return inv.finish(ctx, inv.unknownCommand(words[0]))
	case inv.json:
		doc := helpDoc{docHeader: inv.header(true), Commands: []helpCommand{}}
		for _, c := range visibleCommands() {
			if len(words) == 1 && c.name != words[0] {
				continue
			}
			h := helpOf(c.name)
			hc := helpCommand{Name: c.name, Usage: c.synopsis(inv.prog), Short: c.short, Description: h.long, Flags: []helpFlag{}, Examples: []string{}}
			for _, f := range c.flagsOf() {
				hc.Flags = append(hc.Flags, helpFlag{Flag: f.long(), Value: f.Value, Usage: f.Usage, Default: f.Def})
			}
			for _, e := range h.examples {
				hc.Examples = append(hc.Examples, strings.ReplaceAll(e, "PROG", inv.prog))
			}
			doc.Commands = append(doc.Commands, hc)
		}
		inv.writeJSON(doc)
		return inv.finish(ctx, nil)
	case len(words) == 0:
		usage(env.Stdout, env.Program)
		return ExitOK
	}
	c := findCommand(words[0])
	cinv := newInvocation(env, c)
	return cinv.finish(ctx, c.run(ctx, cinv, []string{"--help"}))
}

// findCommand returns the visible command called name, or nil.
func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name && !c.hidden {
			return c
		}
	}
	return nil
}

// unknownCommand is the usage failure of a word that names no command:
// the command it most likely meant, or the words of another client
// (claude mcp …) that mean one of ours.
func (inv *invocation) unknownCommand(name string) *failure {
	f := usageErr("unknown command %q", name)
	var names []string
	for _, c := range visibleCommands() {
		names = append(names, c.name)
	}
	sort.Strings(names)
	switch {
	case name == "mcp":
		f.hints = append(f.hints, "the commands of 'claude mcp' are this program's own: "+inv.suggest("add", "NAME", "--", "COMMAND")+", "+inv.suggest("list")+", …")
	case name == "add-from-claude-desktop":
		f.hints = append(f.hints, "to import Claude Desktop's servers: "+inv.suggest("import", "--from", "claude-desktop"))
	case name == "ls" || name == "servers":
		f.hints = append(f.hints, "did you mean "+inv.suggest("list")+"?")
	case name == "rm" || name == "delete":
		f.hints = append(f.hints, "did you mean "+inv.suggest("remove")+"?")
	case name == "inspect" || name == "tools":
		f.hints = append(f.hints, "did you mean "+inv.suggest("test")+"?")
	default:
		if s := closest(name, names); s != "" {
			f.hints = append(f.hints, "did you mean "+inv.suggest(s)+"?")
		}
	}
	f.hints = append(f.hints, "run '"+inv.suggest("help")+"' for the list of commands")
	return f
}

// wantsJSON says whether a command line asks for --json, before any --;
// a usage error is then one JSON document too.
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true", "--json=1", "-json=1":
			return true
		}
	}
	return false
}

// closest returns the word of words nearest to w, when it is near enough
// to be what was meant: a prefix of one word only, or within an edit
// distance of about a third of its length (a swap of two neighbours
// counts one); "" otherwise.
func closest(w string, words []string) string {
	lw := strings.ToLower(w)
	var prefixed []string
	for _, c := range words {
		if len(lw) >= 2 && strings.HasPrefix(strings.ToLower(c), lw) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestD := "", len([]rune(w))/3+2
	for _, c := range words {
		if d := editDistance(lw, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b, by
// runes: insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// configHelp is `mcpwire help config`: where server definitions are
// documented, and the members a definition takes.
func configHelp(prog string) string {
	var b strings.Builder
	b.WriteString("Servers are defined in .mcp.json files: the home folder's (scope user) and\n")
	b.WriteString("the working folder's (scope project), {\"mcpServers\": {\"NAME\": {…}}}.\n\n")
	b.WriteString("Every member of a definition, with its type, default, aliases, whether the\n")
	b.WriteString("approval covers it and an example, and the environment a stdio server gets:\n")
	b.WriteString("docs/config.md of the mcpwire repository (go doc github.com/mcpwire/mcpwire/config).\n\n")
	b.WriteString("Members: ")
	line := len("Members: ")
	for i, m := range config.Members() {
		w := m
		if i < len(config.Members())-1 {
			w += ","
		}
		if line+len(w)+1 > 78 {
			b.WriteString("\n  ")
			line = 2
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	b.WriteString("\n\nExamples:\n")
	fmt.Fprintf(&b, "  %s add docs https://docs.example.com/mcp -H 'Authorization: Bearer ${DOCS_TOKEN}'\n", prog)
	fmt.Fprintf(&b, "  %s add-json memory '{\"command\": \"npx\", \"args\": [\"-y\", \"@modelcontextprotocol/server-memory\"]}'\n", prog)
	fmt.Fprintf(&b, "  %s get NAME\n", prog)
	return b.String()
}
