// Command bareclient is the floor of mcpwire's start-up: a bare Go
// program that spawns an MCP server over stdio, does the exchange that
// `mcpwire test` does with a server that offers only tools, and ends. It
// writes prebuilt requests, reads one answer line per request without
// decoding it, closes the server's stdin and waits for it to exit: what
// any client must do, and nothing more (no configuration, no approvals,
// no JSON work, no output).
//
//	bareclient [-legacy] -- COMMAND ARGS…
//
// By default it speaks the 2026-07-28 era (server/discover, then
// tools/list); -legacy speaks initialize, notifications/initialized and
// tools/list. It exits 1, with a line on stderr, when the server does not
// answer.
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

func exchange(legacy bool) []message {
	if legacy {
		return []message{
			{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bareclient","version":"1"}}}`, true},
			{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
			{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, true},
		}
	}
	return []message{
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, true},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`, true},
	}
}

func main() {
	args := os.Args[1:]
	legacy := len(args) > 0 && args[0] == "-legacy"
	if legacy {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fail("usage: bareclient [-legacy] -- COMMAND ARGS…")
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
	for _, m := range exchange(legacy) {
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
