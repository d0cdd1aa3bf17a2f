package cli_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestBridgesEverythingHTTP: server-everything over streamable HTTP (its
// own sessions, legacy era, 2025-11-25 alone) behind proxy and serve, with
// hosts of ours and not ours in front. mcpwire call, modern and legacy,
// through proxy over stdio; the Go SDK's client (v1.8.0; 2026-07-28 and
// 2025-11-25 over HTTP) and the TypeScript SDK's (legacy) through proxy
// over stdio and --listen, and through serve --listen under the manager's
// name; mcpwire call through serve over stdio. Each lists the tools and
// calls echo.
func TestBridgesEverythingHTTP(t *testing.T) {
	proctest.Check(t)
	ev := peers.EverythingHTTP(t, "streamable")
	r := newRunner(t)
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
		res := r.run(t, "call", pin, "echo", "message=through the proxy", "--", r.bin, "proxy", ev).want(t, 0)
		if !strings.Contains(res.stdout, "Echo: through the proxy") {
			t.Fatalf("%s: echo of server-everything (HTTP) through proxy:\n%s", pin, res)
		}
	}
	url, stop := startProxyListen(t, r, ev)
	defer stop()
	r.run(t, "add", "ev", "--url", ev).want(t, 0)
	res := r.run(t, "call", "mcp__ev__echo", "message=through serve", "--", r.bin, "--home", r.home, "serve").want(t, 0)
	if !strings.Contains(res.stdout, "Echo: through serve") {
		t.Fatalf("echo of server-everything (HTTP) through serve:\n%s", res)
	}
	serveURL, stopServe := startListen(t, r, "serve", "--listen", "127.0.0.1:0")
	defer stopServe()

	for _, c := range foreignClients {
		t.Run(c.name, func(t *testing.T) {
			call := func(tool string) []string { return []string{"-call", tool, "-args", `{"message":"hi"}`} }
			seesEcho(t, c.name+", proxy (stdio)", "echo", runSteps(t, r, c, call("echo"), r.bin, "proxy", ev))
			protocols := []string{""} // the TypeScript SDK's own (2025-11-25)
			if c.name == "go-sdk" {
				protocols = []string{"2026-07-28", "2025-11-25"}
			}
			for _, p := range protocols {
				over := func(u string) []string {
					if p == "" {
						return []string{"-url", u}
					}
					return []string{"-url", u, "-protocol", p}
				}
				seesEcho(t, c.name+" "+p+", proxy --listen", "echo", runSteps(t, r, c, append(over(url), call("echo")...)))
				seesEcho(t, c.name+" "+p+", serve --listen", "mcp__ev__echo", runSteps(t, r, c, append(over(serveURL), call("mcp__ev__echo")...)))
			}
		})
	}
}

// runSteps is runClient's steps alone.
func runSteps(t *testing.T, r *runner, c foreignClient, flags []string, server ...string) []sdkStep {
	t.Helper()
	steps, _ := runClient(t, r, c, flags, server...)
	return steps
}

// seesEcho fails t unless a foreign client connected, listed tool and
// had server-everything's echo of "hi" from it.
func seesEcho(t *testing.T, what, tool string, steps []sdkStep) {
	t.Helper()
	if len(steps) != 3 || steps[0].Error != nil || steps[1].Error != nil || !strings.Contains(string(steps[1].Tools), `"name":"`+tool+`"`) ||
		steps[2].Result == nil || !strings.Contains(string(steps[2].Result), "Echo: hi") {
		t.Fatalf("%s: %+v", what, steps)
	}
	t.Logf("%s: spoke %s", what, steps[0].Protocol)
}
