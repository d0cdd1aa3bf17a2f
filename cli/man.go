package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

func runMan(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("man")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout, the page in it")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("man takes no arguments")
	}
	if inv.json {
		inv.writeJSON(struct {
			docHeader
			Roff string `json:"roff"`
		}{inv.header(true), manPage()})
		return nil
	}
	_, err = inv.env.Stdout.Write([]byte(manPage()))
	return err
}

// roff is text of the page (safe.Roff): every text of the page, ours
// included, is written through it.
func roff(s string) string { return safe.Roff(s) }

// manSections are the prose of the man page, after the commands.
var manSections = []struct{ title, body string }{
	{"TARGETS", `TARGET is a configured server's name or an http(s):// URL, given first; or a command given last, after --, which takes the rest of the line (mcpwire call echo text=hi -- node server.js); or --demo (--demo=http) for the built-in demo server.
A configured server runs only once its definition is approved: mcpwire add approves what it writes; mcpwire approve NAME approves a definition from elsewhere, after review (mcpwire get NAME).`},
	{"GLOBAL FLAGS", `--home DIR
the home folder, instead of $MCPWIRE_HOME
--json
print one JSON document on stdout, with "schema": 1 and "ok" (every command)
-h, --help
the command's help`},
	{"EXIT STATUS", `0 ok; 1 the server failed (spawn, connect, initialize, list, timeout), or diff --fail-on tripped; 2 usage; 3 configuration or approval; 4 login needed or refused; 5 the tool answered isError; 130, 143, 129 on SIGINT, SIGTERM, SIGHUP, after the servers stopped.
list exits 0 when it ran, whatever each server did; list --strict does not.
budget measures every server given, and prints one that did not answer as a row with its error (its phase and what to do), the totals over those that answered; then it exits 1 when one failed, else 4 when one needs a login, else 3 (a definition wrong, unknown or not approved).`},
	{"ENVIRONMENT", `MCPWIRE_HOME
the home folder; else $XDG_CONFIG_HOME/mcpwire; else ~/.config/mcpwire
MCPWIRE_PROTOCOL
pin the MCP revision of every server whose definition pins none (--protocol wins); a legacy pin accepts an older legacy answer
TRACEPARENT, TRACESTATE, BAGGAGE
the W3C trace every request joins (in _meta), unless --traceparent says otherwise
NO_COLOR
no colour, even on a terminal
BROWSER
the program login opens the authorization address with
CI
in mcpwire's own tests: a missing test peer fails instead of skipping`},
	{"FILES", `<home>/.mcp.json
the user's servers (Claude's format: {"mcpServers": {...}})
./.mcp.json
the project's servers (the working directory only)
<home>/settings.json
approvals
<home>/mcp-tokens/
OAuth tokens, one file a server, 0600`},
	{"EXAMPLES", `mcpwire test --demo
mcpwire add memory -- npx -y @modelcontextprotocol/server-memory
mcpwire add notion --url https://mcp.notion.com/mcp
mcpwire call memory read_graph --json
mcpwire snapshot memory -o mcp/memory.snapshot.json
mcpwire diff mcp/memory.snapshot.json memory --fail-on breaking --junit mcp-report.xml
mcpwire import --from claude-desktop`},
}

// manPage is the manual page, in roff, made from the command table.
// Every text of it goes through roff (safe.Roff), so that no word of a
// command's help becomes a request (TestEscaperWriters holds this
// function to that).
func manPage() string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH MCPWIRE 1 \"\" \"mcpwire %s\" \"User Commands\"\n", roff(clientVersion()))
	b.WriteString(".SH NAME\nmcpwire \\- a client for MCP (Model Context Protocol) servers\n")
	b.WriteString(".SH SYNOPSIS\n.B mcpwire\n.RB [ \\-\\-home\n.IR DIR ]\n.I command\n.RI [ arguments ]\n")
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(roff("mcpwire starts MCP servers (a local command over stdio, or a URL over streamable HTTP or the older HTTP+SSE transport), negotiates the protocol version, lists their tools, resources and prompts, calls tools, and logs in to servers that need OAuth. Servers come from .mcp.json files or from the command line. People get tables; scripts get --json and exit codes; CI gets snapshots, diffs and JUnit reports.") + "\n")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range visibleCommands() {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff("mcpwire "+c.usage), roff(c.short))
		flags := c.flagsOf()
		if len(flags) == 0 {
			continue
		}
		b.WriteString(".RS\n")
		for _, f := range flags {
			head := "\\fB" + roff(f.long()) + "\\fR"
			if f.Value != "" {
				head += " \\fI" + roff(f.Value) + "\\fR"
			}
			usage := f.Usage
			if f.Def != "" {
				usage += " (default " + f.Def + ")"
			}
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", head, roff(usage))
		}
		b.WriteString(".RE\n")
	}
	for _, s := range manSections {
		fmt.Fprintf(&b, ".SH %s\n", roff(s.title))
		switch s.title {
		case "GLOBAL FLAGS", "ENVIRONMENT", "FILES":
			lines := strings.Split(s.body, "\n")
			for i := 0; i+1 < len(lines); i += 2 {
				fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(lines[i]), roff(lines[i+1]))
			}
		case "EXAMPLES":
			b.WriteString(".nf\n.RS\n")
			b.WriteString(roff(s.body) + "\n")
			b.WriteString(".RE\n.fi\n")
		default:
			for i, p := range strings.Split(s.body, "\n") {
				if i > 0 {
					b.WriteString(".PP\n")
				}
				b.WriteString(roff(p) + "\n")
			}
		}
	}
	b.WriteString(".SH SEE ALSO\nThe README, docs/config.md (every member of a server definition) and docs/json.md (every --json document) of the mcpwire repository; the MCP specification at modelcontextprotocol.io.\n")
	return b.String()
}
