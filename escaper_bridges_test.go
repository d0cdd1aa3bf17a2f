package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// walkBridges is the walk of the commands that serve server strings to
// another program, proxy and serve: a host session on their stdin
// (initialize, then every list, a call, a read and a prompt of the
// hostile server's), whose stdout is a JSON-RPC stream (each line JSON,
// inert for a terminal: what JSON leaves raw is \u-escaped) and whose
// stderr is a terminal's.
func walkBridges(t *testing.T, w *walkEnv, url, tool, uri, prompt string) {
	t.Helper()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"walk","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":%s}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":` + q(uri) + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":%s}}`,
	}
	for _, c := range []struct {
		args         []string
		tool, prompt string
	}{
		{[]string{"proxy", url}, tool, prompt},
		{[]string{"proxy", "h"}, tool, prompt},
		{[]string{"proxy", "d"}, "echo", "greet"},
		{[]string{"serve", "h", "d"}, "mcp__h__" + tool, "mcp__h__" + prompt},
	} {
		in := strings.Join(lines, "\n") + "\n"
		in = fmt.Sprintf(in, q(c.tool), q(c.prompt))
		stdout, stderr := w.session(c.args, in, 7)
		name := fmt.Sprintf("mcpwire %q (a host session)", c.args)
		checkSink(t, name, sinkTerminal, stderr)
		if stdout == "" {
			t.Errorf("%s: nothing answered:\n%s", name, stderr)
		}
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			checkSink(t, name, sinkJSON, line)
		}
		w.sawHostile = w.sawHostile || strings.Contains(stdout, `\u001b]52`)
	}
}

// session runs mcpwire with args, writes in to its stdin and reads its
// stdout until the answer of id last came (or a minute went by), then
// closes its stdin and waits for it.
func (w *walkEnv) session(args []string, in string, last int) (stdout, stderr string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, scriptBinary, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = w.dir, w.env, 5*time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	go func() { _, _ = stdin.Write([]byte(in)) }()
	var o strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 64<<20)
	end := fmt.Sprintf(`"id":%d,`, last)
	for sc.Scan() {
		o.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), end) {
			break
		}
	}
	stdin.Close()
	go func() {
		for sc.Scan() {
		}
	}()
	_ = cmd.Wait()
	return o.String(), e.String()
}
