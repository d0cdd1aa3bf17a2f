// Command bareclient is the floor of mcpwire's start-up: a bare Go
// program that spawns an MCP server over stdio, does the exchange that
// `mcpwire test` does with a server that offers only tools, and ends. It
// writes prebuilt requests, reads one answer line per request without
// decoding it, closes the server's stdin and waits for it to exit: what
// any client must do, and nothing more (no configuration, no approvals,
// no JSON work, no output).
//
//	bareclient [-legacy] [-probe] [-all] -- COMMAND ARGS…
//
// By default it speaks the 2026-07-28 era (server/discover, then
// tools/list); -legacy speaks initialize, notifications/initialized and
// tools/list; -probe sends server/discover first and then speaks legacy
// (what mcpwire does with a legacy server); -all lists resources,
// resource templates and prompts too (what mcpwire test does with a
// server that offers them). It exits 1, with a line on stderr, when the
// server does not answer.
package main

import (
	"bufio"
	"os"
	"os/exec"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bareclient","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// A message is a request line to write, and whether an answer line is
// read for it (not for a notification).
type message struct {
	line     string
	answered bool
}

func exchange(legacy, probe, all bool) []message {
	var out []message
	if legacy || probe {
		if probe {
			out = append(out, message{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, true})
		}
		out = append(out,
			message{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bareclient","version":"1"}}}`, true},
			message{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
			message{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, true})
		if all {
			out = append(out,
				message{`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`, true},
				message{`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`, true},
				message{`{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`, true})
		}
		return out
	}
	out = append(out,
		message{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, true},
		message{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`, true})
	if all {
		out = append(out,
			message{`{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{` + meta + `}}`, true},
			message{`{"jsonrpc":"2.0","id":4,"method":"resources/templates/list","params":{` + meta + `}}`, true},
			message{`{"jsonrpc":"2.0","id":5,"method":"prompts/list","params":{` + meta + `}}`, true})
	}
	return out
}

func main() {
	args := os.Args[1:]
	var legacy, probe, all bool
	for len(args) > 0 && args[0] != "--" {
		switch args[0] {
		case "-legacy":
			legacy = true
		case "-probe":
			probe = true
		case "-all":
			all = true
		default:
			fail("unknown flag " + args[0])
		}
		args = args[1:]
	}
	if len(args) > 0 {
		args = args[1:]
	}
	if len(args) == 0 {
		fail("usage: bareclient [-legacy] [-probe] [-all] -- COMMAND ARGS…")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err.Error())
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err.Error())
	}
	if err := cmd.Start(); err != nil {
		fail(err.Error())
	}
	r := bufio.NewReader(out)
	for _, m := range exchange(legacy, probe, all) {
		if _, err := in.Write([]byte(m.line + "\n")); err != nil {
			fail(err.Error())
		}
		if !m.answered {
			continue
		}
		for { // one line, however long
			_, err := r.ReadSlice('\n')
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				fail("no answer: " + err.Error())
			}
		}
	}
	in.Close()
	cmd.Wait()
}

func fail(msg string) {
	os.Stderr.WriteString("bareclient: " + msg + "\n")
	os.Exit(1)
}
