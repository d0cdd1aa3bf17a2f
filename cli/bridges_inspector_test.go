package cli_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// An inspectorCase is a server the MCP Inspector's CLI reaches directly
// and through proxy, with the arguments of each of its methods.
type inspectorCase struct {
	name string
	// direct is the server the Inspector's answers through proxy are
	// compared with; behind is the one behind proxy (a modern-only
	// demo cannot be reached directly by the Inspector, a legacy client).
	direct, behind []string
	modernOnly     bool
	stdio          bool // through proxy over stdio too, not only --listen
	methods        [][]string
}

// inspectorMethods are the Inspector CLI's methods (1.0.3 has these and
// no others), with echoKV, uri and prompt as their arguments. A variadic
// flag (--tool-arg, --prompt-args) comes first: it takes the words up to
// the next flag.
func inspectorMethods(echoKV, uri, prompt string, promptArgs ...string) [][]string {
	get := []string{"--method", "prompts/get", "--prompt-name", prompt}
	if len(promptArgs) > 0 {
		get = append(append([]string{"--prompt-args"}, promptArgs...), get...)
	}
	return [][]string{
		{"--method", "tools/list"},
		{"--tool-arg", echoKV, "--method", "tools/call", "--tool-name", "echo"},
		{"--method", "resources/list"},
		{"--method", "resources/read", "--uri", uri},
		{"--method", "resources/templates/list"},
		{"--method", "prompts/list"},
		get,
		{"--method", "logging/setLevel", "--log-level", "debug"},
	}
}

// TestInspectorCLIThroughProxy: the MCP Inspector's CLI (1.0.3, the
// TypeScript SDK's client, legacy era), a host that is not ours, runs
// each of its methods through `mcpwire proxy` over stdio and through
// `proxy --listen` (its --transport http) and prints what it prints
// against the server directly: the demo server modern-only (era
// translation) and server-everything, and over --listen the demo
// legacy-only.
// It must print the same: inspectorSame allows no difference.
func TestInspectorCLIThroughProxy(t *testing.T) {
	proctest.Check(t)
	everything := peers.Everything(t)
	r := newRunner(t)
	demo := inspectorMethods("text=hi", "demo://readme", "greet", "name=Ada", "style=formal")
	for _, tc := range []inspectorCase{
		{"demo modern-only", []string{r.bin, "serve-demo"}, []string{r.bin, "serve-demo", "--era=modern"}, true, true, demo},
		{"demo legacy-only", []string{r.bin, "serve-demo", "--era=legacy"}, []string{r.bin, "serve-demo", "--era=legacy"}, false, false, demo},
		{"everything", everything, everything, false, true,
			inspectorMethods("message=hi", "demo://resource/static/document/architecture.md", "args-prompt", "city=Paris")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, stop := startProxyListen(t, r, append([]string{"--"}, tc.behind...)...)
			defer stop()
			stdio := append([]string{r.bin, "--", "proxy", "--"}, tc.behind...)
			for _, m := range tc.methods {
				want := inspectorOK(t, r, tc.name+" directly", append(slices.Clone(m), inspectorTarget(tc.direct)...)...)
				if tc.stdio {
					got := inspectorOK(t, r, tc.name+" through proxy", append(slices.Clone(m), stdio...)...)
					inspectorSame(t, tc, m, "proxy (stdio)", want, got)
				}
				got := inspectorOK(t, r, tc.name+" through proxy --listen", append(slices.Clone(m), "--transport", "http", url)...)
				inspectorSame(t, tc, m, "proxy --listen", want, got)
			}
		})
	}
}

// inspectorTarget is the Inspector's words for a server's command line:
// the first `--` ends its own flags, and what follows it is passed on as
// is (a `--` of the server's own included).
func inspectorTarget(argv []string) []string {
	return append([]string{argv[0], "--"}, argv[1:]...)
}

// inspectorOK runs the Inspector CLI and returns its stdout, a JSON
// document, or fails t.
func inspectorOK(t *testing.T, r *runner, what string, args ...string) string {
	t.Helper()
	code, stdout, stderr := inspector(t, r, args...)
	if code != 0 || canonJSON(stdout) == "" {
		t.Fatalf("%s: the Inspector CLI %v: exit %d\n%s\n%s", what, args, code, stdout, stderr)
	}
	return stdout
}

// inspectorSame fails t unless the Inspector printed the same through
// the proxy (got) as directly (want). (server-everything lists three
// more tools to a client that declares roots, elicitation or sampling:
// the proxy declares to it only what the Inspector declared, so the
// lists are the same.)
func inspectorSame(t *testing.T, tc inspectorCase, method []string, via, want, got string) {
	t.Helper()
	var w, g map[string]any
	if json.Unmarshal([]byte(want), &w) != nil || json.Unmarshal([]byte(got), &g) != nil {
		t.Fatalf("%s %v via %s: not JSON objects:\n%s\n%s", tc.name, method, via, want, got)
	}
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	if string(wb) != string(gb) {
		t.Errorf("%s %s via %s: the Inspector saw otherwise than directly\ndirectly:\n%s\nthrough:\n%s",
			tc.name, strings.Join(method, " "), via, want, got)
	}
}
