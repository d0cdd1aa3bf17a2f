// Package cli implements the mcpwire command line: subcommands, flags,
// tables for people and --json for scripts.
//
// Main is the whole program; it takes its I/O and environment from an
// [Env], so it can run in-process in tests and in an embedding agent.
package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpwire/mcpwire/manager"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// Exit codes, documented and stable.
const (
	ExitOK      = 0 // success
	ExitServer  = 1 // the server failed: spawn, connect, initialize, list, timeout
	ExitUsage   = 2 // the command line is wrong
	ExitConfig  = 3 // configuration or approval
	ExitAuth    = 4 // login needed or refused
	ExitToolErr = 5 // the tool answered isError
	ExitSignal  = 130
)

// Env is what Main takes from the world.
//
// An agent mounts the command line under its own name by setting Program
// (the words that run it, "magi-code mcp") and Home (its own folder):
// usage lines, hints and messages then name Program, and --demo runs
// Executable with Program's words after the first, then serve-demo.
type Env struct {
	// Program is the command that runs this command line, as a person
	// types it: the executable's name, then the words that reach this
	// command line (default "mcpwire").
	Program        string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// LookupEnv tells a variable set to "" from an unset one, for ${VAR}
	// in definitions; nil means Getenv, for which "" is unset.
	LookupEnv func(string) (string, bool)
	Environ   func() []string
	Dir       string // the working directory
	// Home is the home folder (--home); "" means config.Home's choice.
	Home       string
	Executable string // this program, for the built-in demo server
	// StdinIsTerminal, StdoutIsTerminal and StderrIsTerminal say whether
	// each stream is a terminal (colour, spinners, prompts).
	StdinIsTerminal, StdoutIsTerminal, StderrIsTerminal bool
	// Columns is the terminal's width (stdout's, else stderr's); 0 when
	// unknown. Tables on a terminal fit in it; in a pipe they are never
	// cut.
	Columns int
	// Hurry, when closed, cuts the stop of the servers short: what is left
	// of them is killed at once (close it on a second signal).
	Hurry <-chan struct{}
	// ReapOrphans stops, with a stdio server, its descendants that left
	// its process group (setsid, daemons). On Linux it makes this process
	// a child subreaper, for good (see manager.DialOptions.ReapOrphans):
	// the mcpwire command sets it; a program that runs Main in-process
	// and starts children of its own should not.
	ReapOrphans bool

	// homeArg is --home as given on the command line: the hints' command
	// lines keep it, so that pasting one reaches the same home.
	homeArg string
	// color is --color (always, never or auto; "" is auto); wide is
	// --wide: tables are never fitted to the terminal.
	color string
	wide  bool
}

// OSEnv returns the Env of this process.
func OSEnv() Env {
	dir, _ := os.Getwd()
	exe, _ := os.Executable()
	return Env{
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Getenv:           os.Getenv,
		LookupEnv:        os.LookupEnv,
		Environ:          os.Environ,
		Dir:              dir,
		Executable:       exe,
		StdinIsTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		StderrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Columns:          terminalColumns(),
	}
}

// terminalColumns is the width of the terminal on stdout, else stderr;
// 0 when neither is one.
func terminalColumns() int {
	for _, f := range []*os.File{os.Stdout, os.Stderr} {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// A command is one subcommand.
type command struct {
	name   string
	usage  string // the synopsis after the program's name
	short  string
	hidden bool
	run    func(ctx context.Context, inv *invocation, args []string) error
}

func commands() []*command {
	return []*command{
		{name: "list", usage: "list [--json]", short: "every configured server, connected in parallel", run: runList},
		{name: "test", usage: "test TARGET [--json]", short: "connect, initialize, list tools, resources and prompts; report", run: runTest},
		{name: "call", usage: "call TARGET TOOL [ARGS] [--task | --detach] [--json] [--events]", short: "call a tool; ARGS: a JSON object, '-' for stdin, or k=v pairs", run: runCall},
		{name: "task", usage: "task get|wait|cancel TARGET ID [--json]", short: "a task a call started: its state, its result, or cancel it", run: runTask},
		{name: "skills", usage: "skills TARGET [--json]", short: "the server's skills (the Skills extension): names, descriptions, files; nothing is fetched", run: runSkills},
		{name: "skill", usage: "skill TARGET NAME [--out DIR [--force]] [--json]", short: "load one skill: every file verified (sha256, size, frontmatter); --out writes them", run: runSkill},
		{name: "tool", usage: "tool TARGET NAME [--json]", short: "one tool for a person: its parameters (types, required), description and an example call", run: runTool},
		{name: "read", usage: "read TARGET URI [--out FILE [--force]] [--json]", short: "read a resource", run: runRead},
		{name: "prompt", usage: "prompt TARGET NAME [k=v…] [--json]", short: "get a prompt", run: runPrompt},
		{name: "complete", usage: "complete TARGET (--prompt NAME | --resource URI) ARG VALUE", short: "ask for completions of an argument", run: runComplete},
		{name: "proxy", usage: "proxy TARGET [--listen ADDR [--listen-public] [--bearer-token-env-var NAME | --no-auth]]", short: "serve TARGET to a host over stdio (or --listen: streamable HTTP), mcpwire keeping its tokens and process", run: runProxy},
		{name: "connect", usage: "connect NAME [--idle 30m] [--json]", short: "start a configured server once and keep it in a session: call, read, prompt, test and list use it", run: runConnect},
		{name: "sessions", usage: "sessions [--json]", short: "the sessions connect keeps: pid, since, idle, calls, state", run: runSessions},
		{name: "disconnect", usage: "disconnect NAME | --all [--json]", short: "end a session (its server stops)", run: runDisconnect},
		{name: "serve", usage: "serve [NAMES…] [--wait DURATION]", short: "the configured servers as one MCP server over stdio: their tools under the manager's names", run: runServe},
		{name: "login", usage: "login NAME [--no-browser] [--device | --no-device] [--scopes S] [--force] [--json | --events]", short: "log in to an OAuth-protected server", run: runLogin},
		{name: "logout", usage: "logout NAME", short: "forget (and revoke) a server's tokens", run: runLogout},
		{name: "search", usage: "search [TERM] [--registry URL] [--json]", short: "servers of the MCP Registry whose name holds TERM: version, transports, status", run: runSearch},
		{name: "install", usage: "install NAME[@VERSION] [-s user|project] [--remote | --package npm|pypi|nuget|oci|mcpb] [--env K=V] [--header 'K: V'] [--var K=V] [--as LOCALNAME] [--registry URL] [--yes] [--no-connect]", short: "install a server from the MCP Registry: pinned, reviewed, approved; a project's is locked in mcp.lock with its tool surface", run: runInstall},
		{name: "outdated", usage: "outdated [--json]", short: "servers installed from a registry that have a newer version, or are deprecated or deleted", run: runOutdated},
		{name: "upgrade", usage: "upgrade NAME | --all [--yes] [--no-connect] [--json]", short: "upgrade servers installed from a registry to their latest version, reviewed first", run: runUpgrade},
		{name: "sync", usage: "sync [--frozen] [--yes] [--json]", short: "install what ./mcp.lock says; --frozen fails (exit 3) on any drift", run: runSync},
		{name: "add", usage: "add NAME (URL | -- COMMAND ARGS…) [--scope user|project] [-e KEY=VALUE] [-H 'Name: value'] [--bearer-token-env-var VAR] [--transport stdio|http|sse] [--replace]", short: "add a server and approve it", run: runAdd},
		{name: "add-json", usage: "add-json NAME JSON [--scope user|project] [--replace]", short: "add a server from its JSON definition and approve it", run: runAddJSON},
		{name: "rename", usage: "rename OLD NEW [--scope user|project]", short: "rename a server (its approval follows it)", run: runRename},
		{name: "get", usage: "get NAME [--json]", short: "review a definition: as written, where it runs, warnings; your secrets masked", run: runGet},
		{name: "remove", usage: "remove NAME [--scope user|project]", short: "remove a server", run: runRemove},
		{name: "enable", usage: "enable NAME", short: "enable a server", run: runEnable},
		{name: "disable", usage: "disable NAME", short: "disable a server", run: runDisable},
		{name: "approve", usage: "approve NAME | approve --all [--project [--yes]] [--json]", short: "review and approve a server's definition, or every one not approved yet (for CI)", run: runApprove},
		{name: "revoke", usage: "revoke NAME", short: "revoke a server's approval", run: runRevoke},
		{name: "doctor", usage: "doctor [TARGET] [--fail-on warn] [--json]", short: "check a server phase by phase", run: runDoctor},
		{name: "import", usage: "import --from CLIENT [FILE] [--write] [--project]", short: "another client's MCP servers (Claude, Cursor, VS Code, Windsurf, Gemini, zut, Codex, Blitz, orb), previewed; --write adds them", run: runImport},
		{name: "probe", usage: "probe TARGET [--json]", short: "which MCP revisions the server accepts (2024-11-05 … 2026-07-28), its era, and its capabilities per revision", run: runProbe},
		{name: "replay", usage: "replay RECORDING [--listen ADDR] [--server NAME] [--match exact|loose] [--ignore-field NAME] [--speed N] [--inject FAULT=…] [--seed N]", short: "an MCP server (stdio or --listen) that answers as a recording (--record FILE) did", run: runReplay},
		{name: "verify", usage: "verify RECORDING TARGET [--ignore PATH…] [--accept FILE] [--server NAME] [--json]", short: "send a recording's requests to a live server again; exit 1 where its answers differ", run: runVerify},
		{name: "budget", usage: "budget [TARGET…] [--max-tokens N [--from RECORDING]] [--top N] [--json]", short: "what servers cost in a model's context, each and together: bytes and estimated tokens of tools and instructions", run: runBudget},
		{name: "snapshot", usage: "snapshot TARGET [-o FILE] [--json]", short: "the server's surface (tools, schemas, resources, prompts) as a deterministic JSON file", run: runSnapshot},
		{name: "diff", usage: "diff OLD NEW [--fail-on breaking|any] [--accept FILE] [--json | --markdown | --format github] [--junit FILE]", short: "compare two surfaces (snapshot files or live TARGETs); classify each change", run: runDiff},
		{name: "completion", usage: "completion bash|zsh|fish", short: "the shell completion script (commands, flags, configured servers)", run: runCompletion},
		{name: "man", usage: "man", short: "the manual page, as roff (man -l <(mcpwire man))", run: runMan},
		{name: "version", usage: "version", short: "print the version", run: runVersion},
		{name: "serve-demo", hidden: true, run: runServeDemo},
		{name: "session-daemon", hidden: true, run: runSessionDaemon},
		{name: "__complete", hidden: true, run: runCompleteWords},
	}
}

const usageHead = `PROG is a client for MCP servers (mcpwire).

Usage: PROG <command> [arguments]

TARGET is a configured server name or an http(s):// URL, given first; or a
command given last, after --, which takes the rest of the line; or --demo
(--demo=http) for the built-in demo server.

Commands:
`

const usageTail = `
Exit codes: 0 ok; 1 the server failed; 2 usage; 3 configuration or approval;
4 login needed or refused; 5 the tool answered isError; 130, 143, 129 stopped
by SIGINT, SIGTERM, SIGHUP (a second one cuts the servers' stop short). list
exits 0 when it ran.

Server definitions (.mcp.json), member by member: docs/config.md of the
repository, or PROG help config. Every --json document: docs/json.md.

Examples:
  PROG test --demo
  PROG call --demo echo text=hello
  PROG test -- npx -y @modelcontextprotocol/server-everything
  PROG call https://example.com/mcp search query=mcp --json
`

// usage prints the list of commands, naming the program prog.
func usage(w io.Writer, prog string) {
	fmt.Fprint(w, strings.ReplaceAll(usageHead, "PROG", prog))
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(w, "  %-10s %s\n", c.name, c.short)
		}
	}
	fmt.Fprint(w, strings.ReplaceAll(usageTail, "PROG", prog))
}

// Main runs the command line args (without the program name) and returns
// the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	// Started as the sandbox launcher of a stdio server: contain this
	// process and run the server (never returns).
	manager.RunSandboxLauncher()
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Environ == nil {
		env.Environ = func() []string { return nil }
	}
	if strings.TrimSpace(env.Program) == "" {
		env.Program = "mcpwire"
	}
	args, home, err := takeHome(args)
	if err == nil {
		args, env.color, env.wide, err = takeDisplay(args, env.color, env.wide)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: error: %v\n", env.Program, err)
		return ExitUsage
	}
	if home != "" {
		env.Home, env.homeArg = home, home
	}
	if len(args) == 0 {
		usage(env.Stderr, env.Program)
		return ExitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		usage(env.Stdout, env.Program)
		return ExitOK
	case "help":
		return runHelp(ctx, env, args[1:])
	case "--json", "-json":
		if len(args) == 1 { // the help document, as help --json
			return runHelp(ctx, env, args)
		}
		if !strings.HasPrefix(args[1], "-") { // --json before the command: the command's own flag
			return Main(ctx, append([]string{args[1], "--json"}, args[2:]...), env)
		}
	case "--version", "-version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		inv := newInvocation(env, c)
		inv.wantJSON = wantsJSON(args[1:])
		err := c.run(inv.withLockWait(ctx), inv, args[1:])
		code := inv.finish(ctx, err)
		inv.runAtExit() // the servers stop after the output is out
		if sig, _, ok := interrupted(ctx); ok && code != ExitUsage {
			code = sig
		}
		return code
	}
	inv := newInvocation(env, &command{name: name})
	inv.wantJSON = wantsJSON(args[1:])
	return inv.finish(ctx, inv.unknownCommand(name))
}

// takeHome removes --home DIR (or --home=DIR) from args, wherever it
// stands before a "--".
func takeHome(args []string) (rest []string, home string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i:]...), home, nil
		case a == "--home" || a == "-home":
			if i+1 >= len(args) {
				return nil, "", errors.New("--home needs a folder")
			}
			home = args[i+1]
			i++
		case strings.HasPrefix(a, "--home=") || strings.HasPrefix(a, "-home="):
			home = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
		}
	}
	return rest, home, nil
}

// takeDisplay removes the display flags --color=always|never|auto (or
// --color WHEN) and --wide from args, wherever they are before "--".
func takeDisplay(args []string, color string, wide bool) (rest []string, _ string, _ bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i:]...), color, wide, nil
		case a == "--wide" || a == "-wide":
			wide = true
		case a == "--color" || a == "-color":
			if i+1 >= len(args) {
				return nil, "", false, errors.New("--color needs always, never or auto")
			}
			color = args[i+1]
			i++
		case strings.HasPrefix(a, "--color=") || strings.HasPrefix(a, "-color="):
			color = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
			continue
		}
		switch color {
		case "", "always", "never", "auto":
		default:
			return nil, "", false, fmt.Errorf("--color takes always, never or auto, not %q", color)
		}
	}
	return rest, color, wide, nil
}

// synopsis is the usage line of a command run as prog.
func (c *command) synopsis(prog string) string { return prog + " " + c.usage }
