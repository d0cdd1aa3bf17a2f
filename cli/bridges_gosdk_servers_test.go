package cli_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestBridgesGoSDKServers: the Go SDK's example server (v1.8.0's
// "everything") behind proxy and serve, over stdio (both eras) and over
// HTTP (its sessions, legacy), with hosts of ours and not ours in front.
// mcpwire call of each era calls greet through proxy, and answers the
// roots/list the example asks of it (a server request, legacy era only:
// proxy pinned to 2025-11-25 toward the example; a modern host gets it as
// an input request); the Go SDK's and the TypeScript SDK's clients call
// greet through proxy over stdio, and through serve --listen under the
// manager's names.
func TestBridgesGoSDKServers(t *testing.T) {
	proctest.Check(t)
	example := peers.GoSDK(t, "everything")
	httpURL := "http://" + peers.GoSDKHTTP(t, "everything", func(host, port string) []string {
		return []string{"-http", host + ":" + port}
	}, nil) + "/mcp"
	r := newRunner(t)
	greet := func(tool string) []string { return []string{"-call", tool, "-args", `{"name":"Ada"}`} }
	for _, tc := range []struct {
		name, server string
		target       []string // the proxy's words for the example
	}{
		{"stdio", "gss", []string{"--", example}},
		{"http", "gsh", []string{httpURL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := append([]string{"--", r.bin, "proxy"}, tc.target...)
			pinned := append([]string{"--", r.bin, "proxy", "--protocol", "2025-11-25"}, tc.target...)
			for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
				res := r.run(t, append([]string{"call", pin, "greet", "name=Ada"}, proxy...)...).want(t, 0)
				if strings.TrimSpace(res.stdout) != "Hi Ada" {
					t.Fatalf("%s: greet through proxy:\n%s", pin, res)
				}
				res = r.run(t, append([]string{"call", pin, "--root", r.dir, "roots"}, pinned...)...).want(t, 0)
				if !strings.Contains(res.stdout, "file://"+r.dir) {
					t.Fatalf("%s: the example's roots/list through proxy:\n%s", pin, res)
				}
			}
			for _, c := range foreignClients {
				steps := runSteps(t, r, c, greet("greet"), proxy[1:]...)
				if len(steps) != 3 || steps[2].Result == nil || !strings.Contains(string(steps[2].Result), "Hi Ada") {
					t.Fatalf("the %s client through proxy: %+v", c.name, steps)
				}
			}
			add := append([]string{"add", tc.server}, tc.target...)
			if tc.target[0] != "--" {
				add = []string{"add", tc.server, "--url", tc.target[0]}
			}
			r.run(t, add...).want(t, 0)
		})
	}
	url, stop := startListen(t, r, "serve", "--listen", "127.0.0.1:0")
	defer stop()
	for _, c := range foreignClients {
		for _, server := range []string{"gss", "gsh"} {
			tool := "mcp__" + server + "__greet"
			steps := runSteps(t, r, c, append([]string{"-url", url}, greet(tool)...))
			if len(steps) != 3 || steps[2].Result == nil || !strings.Contains(string(steps[2].Result), "Hi Ada") {
				t.Fatalf("the %s client through serve --listen, %s: %+v", c.name, tool, steps)
			}
		}
	}
}
