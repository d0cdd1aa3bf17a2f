package cli_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// Sentinels: distinctive values that must never appear in any output.
const (
	sentEnv     = "SENTINEL-envvalue-4b1f9e"
	sentDiesEnv = "SENTINEL-diesenv-8c2d7a"
	sentVar     = "SENTINEL-expanded-5e6f1b"
	sentHeader  = "SENTINEL-headervalue-2a9c3d"
	sentBearer  = "SENTINEL-bearer-7d4e0f"
	sentRefused = "SENTINEL-refusedbearer-1c8b6a"
	sentAdHoc   = "SENTINEL-adhocheader-9f3e2b"
	sentAddEnv  = "SENTINEL-addenv-6a7b8c"
	sentAddHdr  = "SENTINEL-addheader-3d2c1b"
	// A project file's own text is not a secret (issue 11, item 8): the
	// review shows it in full, so these are not sentinels.
	projEnv   = "PROJECT-literal-0e9d8c"
	projDflt  = "PROJECT-default-4c3b2a"
	projEnvIn = "${MCPWIRE_SECRET_VAR:-" + projDflt + "}"
)

var sentinels = []string{sentEnv, sentDiesEnv, sentVar, sentHeader, sentBearer, sentRefused,
	sentAdHoc, sentAddEnv, sentAddHdr}

// TestSecretsNeverShown runs every command on definitions that hold
// sentinel secrets (env values, header values, bearer tokens, an expanded
// variable), in people's and --json modes, on servers that work and on
// servers that fail, and checks that no sentinel reaches stdout or stderr.
func TestSecretsNeverShown(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.env = append(r.env, "MCPWIRE_SECRET_VAR="+sentVar)

	h := demo.NewHTTPHandler(demo.Options{RequireAuth: sentBearer})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })

	user := map[string]any{"mcpServers": map[string]any{
		// A working stdio server that prints its whole environment to stderr.
		"live": map[string]any{"command": r.bin, "args": []string{"serve-demo", "--print-env", "--verbose"},
			"env": map[string]string{"SECRET_ENV": sentEnv, "FROM_VAR": "${MCPWIRE_SECRET_VAR}"}},
		// A stdio server that prints its env and exits at once.
		"dies": map[string]any{"command": r.bin, "args": []string{"serve-demo", "--print-env", "--exit-at-start"},
			"env": map[string]string{"DIES_ENV": sentDiesEnv}},
		// A working HTTP server that needs the bearer token, plus another header.
		"web": map[string]any{"url": srv.URL + "/mcp",
			"headers": map[string]string{"Authorization": "Bearer " + sentBearer, "X-Api-Key": sentHeader}},
		// A URL that refuses the connection.
		"refused": map[string]any{"url": "http://127.0.0.1:1/mcp",
			"headers": map[string]string{"Authorization": "Bearer " + sentRefused}},
	}}
	writeJSON(t, filepath.Join(r.home, ".mcp.json"), user)
	writeJSON(t, filepath.Join(r.dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": r.bin, "args": []string{"serve-demo", "--print-env", "--crash-on-first-call"},
			"env": map[string]string{"PROJ_ENV": projEnv, "ALSO": projEnvIn}},
	}})

	var runs []*result
	check := func(res *result) *result {
		t.Helper()
		runs = append(runs, res)
		for _, s := range sentinels {
			for _, probe := range []string{s, s[9:]} { // whole, and without the SENTINEL- prefix
				if strings.Contains(res.stdout, probe) || strings.Contains(res.stderr, probe) {
					t.Errorf("secret %q shown by:\n%s", probe, res)
				}
			}
		}
		return res
	}
	names := []string{"live", "dies", "web", "refused", "proj"}
	modes := [][]string{nil, {"--json"}}

	// Approve every server: approve shows the definition it records.
	for _, n := range names {
		check(r.run(t, "approve", n)).want(t, 0)
	}
	// Every command in both output modes.
	for _, mode := range modes {
		m := func(args ...string) []string { return append(args, mode...) }
		check(r.run(t, m("list")...)).want(t, 0)
		check(r.run(t, m("doctor")...))
		for _, n := range names {
			check(r.run(t, m("get", n)...)).want(t, 0)
			check(r.run(t, m("test", n)...))
			check(r.run(t, m("test", "--verbose", n)...))
			check(r.run(t, m("call", n, "echo", "text=hi")...))
			check(r.run(t, m("call", n, "env", "name=SECRET_ENV")...))
			check(r.run(t, m("call", n, "env", "name=FROM_VAR")...))
			check(r.run(t, m("call", "--events", n, "env", "name=SECRET_ENV")...))
			check(r.run(t, m("read", n, "demo://readme")...))
			check(r.run(t, m("read", n, "demo://config.json")...))
			check(r.run(t, m("prompt", n, "greet", "name=x")...))
			check(r.run(t, m("complete", n, "--prompt", "greet", "style", "f")...))
			check(r.run(t, m("doctor", n)...))
		}
		// Ad-hoc targets with a header given on the command line.
		for _, url := range []string{srv.URL + "/mcp", "http://127.0.0.1:1/mcp"} {
			hdr := "Authorization: Bearer " + sentAdHoc
			check(r.run(t, m("test", "--header", hdr, url)...))
			check(r.run(t, m("call", "--header", hdr, url, "echo", "text=x")...))
			check(r.run(t, m("doctor", "--header", hdr, url)...))
		}
	}
	// The working ones really worked (so the checks above saw real output).
	check(r.run(t, "call", "live", "echo", "text=ok-stdio")).want(t, 0)
	check(r.run(t, "call", "web", "echo", "text=ok-http")).want(t, 0)
	if res := check(r.run(t, "call", "live", "env", "name=SECRET_ENV")).want(t, 0); strings.TrimSpace(res.stdout) == "" {
		t.Errorf("env tool printed nothing:\n%s", res)
	}
	// The server's printed environment did pass through, masked.
	if res := check(r.run(t, "test", "--verbose", "live")).want(t, 0); !strings.Contains(res.stderr, "SECRET_ENV=") {
		t.Errorf("--verbose did not copy the server's stderr:\n%s", res)
	}
	// The review shows a project's definition as written: its literal
	// values in full, references unexpanded (issue 11, item 5).
	if res := check(r.run(t, "get", "proj")).want(t, 0); !strings.Contains(res.stdout, projEnv) || !strings.Contains(res.stdout, projEnvIn) {
		t.Errorf("get does not show the project's definition as written:\n%s", res)
	}
	// The failing ones failed with their own error.
	check(r.run(t, "test", "dies")).want(t, 1)
	check(r.run(t, "test", "refused")).want(t, 1)
	check(r.run(t, "call", "proj", "echo", "text=x")).want(t, 1)

	// The management commands on secrets given on the command line (add,
	// remove, enable, disable, approve and revoke have no --json).
	for _, mode := range modes {
		m := func(args ...string) []string { return append(args, mode...) }
		check(r.run(t, "add", "added", "--env", "K="+sentAddEnv, "--", r.bin, "serve-demo", "--print-env")).want(t, 0)
		check(r.run(t, "add", "addedurl", "--url", "http://127.0.0.1:1/mcp", "--header", "X-Key: "+sentAddHdr)).want(t, 0)
		// A name in use: the refusal must not echo the values either.
		check(r.run(t, "add", "added", "--env", "K="+sentAddEnv, "--", "x")).want(t, 3)
		check(r.run(t, "add", "addedurl", "--url", "http://127.0.0.1:1/mcp", "--header", "X-Key: "+sentAddHdr)).want(t, 3)
		check(r.run(t, m("get", "added")...)).want(t, 0)
		check(r.run(t, m("get", "addedurl")...)).want(t, 0)
		check(r.run(t, m("test", "added")...)).want(t, 0)
		check(r.run(t, m("test", "addedurl")...)).want(t, 1)
		check(r.run(t, "disable", "added")).want(t, 0)
		check(r.run(t, m("list")...)).want(t, 0)
		check(r.run(t, "enable", "added")).want(t, 0)
		check(r.run(t, "revoke", "added")).want(t, 0)
		check(r.run(t, m("test", "added")...)).want(t, 3)
		check(r.run(t, "approve", "added")).want(t, 0)
		check(r.run(t, m("doctor", "added")...)).want(t, 0)
		check(r.run(t, "remove", "added")).want(t, 0)
		check(r.run(t, "remove", "addedurl")).want(t, 0)
	}
	// --json outputs are single documents (or NDJSON with --events).
	for _, res := range runs {
		if !contains(res.args, "--json") || res.stdout == "" || contains(res.args, "--events") {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(res.stdout), &v); err != nil {
			t.Errorf("--json output is not one JSON object: %v\n%s", err, res)
		}
	}
	if len(runs) < 100 {
		t.Fatalf("only %d runs", len(runs))
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// writeJSON writes v as JSON to path (0600, parents created).
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
