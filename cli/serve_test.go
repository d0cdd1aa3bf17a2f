package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServe: two configured servers (one modern, one legacy-only) served
// as one by `mcpwire serve`, reached by a host (mcpwire itself) over
// stdio: every tool under the manager's names, calls routed to their
// server, and NAMES narrowing what is served.
func TestServe(t *testing.T) {
	r := newRunner(t)
	r.run(t, "add", "modern", "--", r.bin, "serve-demo").want(t, 0)
	r.run(t, "add", "old", "--", r.bin, "serve-demo", "--era=legacy").want(t, 0)
	serve := []string{"--", r.bin, "--home", r.home, "serve"}

	res := r.run(t, append([]string{"test", "--json"}, serve...)...).want(t, 0)
	for _, name := range []string{`"mcp__modern__echo"`, `"mcp__old__echo"`, `"mcp__old__add"`} {
		if !strings.Contains(res.stdout, name) {
			t.Fatalf("serve does not offer %s:\n%s", name, res)
		}
	}
	res = r.run(t, append([]string{"call", "mcp__old__echo", "text=through serve"}, serve...)...).want(t, 0)
	if strings.TrimSpace(res.stdout) != "through serve" {
		t.Fatalf("a call through serve:\n%s", res)
	}
	res = r.run(t, append([]string{"call", "mcp__modern__add", "a=2", "b=3", "--json"}, serve...)...).want(t, 0)
	if !strings.Contains(res.stdout, `"sum": 5`) {
		t.Fatalf("structured content through serve:\n%s", res)
	}
	res = r.run(t, append([]string{"test", "--json"}, append(serve, "old")...)...).want(t, 0)
	if strings.Contains(res.stdout, "mcp__modern__") || !strings.Contains(res.stdout, "mcp__old__echo") {
		t.Fatalf("serve old offers another server's tools, or not its own:\n%s", res)
	}
}

// TestServeOffers: resources, templates and prompts of two servers
// through serve (stdio, one page of 3 items at a time, so the host
// pages), and the elicitations, samples and roots/list of the servers
// behind asked of a legacy host and of a modern one.
func TestServeOffers(t *testing.T) {
	r := newRunner(t)
	r.run(t, "add", "modern", "--", r.bin, "serve-demo").want(t, 0)
	r.run(t, "add", "old", "--", r.bin, "serve-demo", "--era=legacy").want(t, 0)
	serve := []string{"--", r.bin, "--home", r.home, "serve", "--page-size", "3"}

	res := r.run(t, append([]string{"test", "--json"}, serve...)...).want(t, 0)
	for _, want := range []string{`"mcp__modern__greet"`, `"mcp__old__plain"`, `"demo://logo.png"`, `"demo://item/{id}"`, `"mcp__old__image"`} {
		if !strings.Contains(res.stdout, want) {
			t.Fatalf("serve does not offer %s (over pages of 3):\n%s", want, res)
		}
	}
	if strings.Count(res.stdout, `"demo://item/{id}"`) != 1 {
		t.Fatalf("a template two servers offer is served twice:\n%s", res)
	}
	res = r.run(t, append([]string{"read", "demo://readme"}, serve...)...).want(t, 0)
	if !strings.Contains(res.stdout, "mcpwire demo server") {
		t.Fatalf("read through serve:\n%s", res)
	}
	res = r.run(t, append([]string{"read", "demo://item/42"}, serve...)...).want(t, 0)
	if !strings.Contains(res.stdout, "42") {
		t.Fatalf("a templated read through serve:\n%s", res)
	}
	r.run(t, append([]string{"read", "nowhere://x"}, serve...)...).want(t, 1)
	res = r.run(t, append([]string{"prompt", "mcp__old__greet", "name=Ada", "style=pirate"}, serve...)...).want(t, 0)
	if !strings.Contains(res.stdout, "Ada") || !strings.Contains(res.stdout, "pirate") {
		t.Fatalf("a prompt through serve:\n%s", res)
	}
	res = r.run(t, append([]string{"call", "--protocol=2025-11-25", "--elicit", "defaults", "mcp__old__ask"}, serve...)...).want(t, 0)
	if !strings.Contains(res.stdout, `"name":"Ada"`) {
		t.Fatalf("the server's elicitation did not reach the legacy host:\n%s", res)
	}
	for _, tool := range []string{"mcp__modern__ask", "mcp__old__ask"} {
		res = r.run(t, append([]string{"call", "--elicit", "defaults", tool}, serve...)...).want(t, 0)
		if !strings.Contains(res.stdout, `"name":"Ada"`) {
			t.Fatalf("the server's elicitation did not reach the modern host (as an input request):\n%s", res)
		}
	}
	sample := filepath.Join(r.dir, "sample.json")
	if err := os.WriteFile(sample, []byte(`{"role":"assistant","model":"canned","content":{"type":"text","text":"canned answer"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
		for _, server := range []string{"modern", "old"} {
			res = r.run(t, append([]string{"call", pin, "--root", r.dir, "mcp__" + server + "__roots"}, serve...)...).want(t, 0)
			if !strings.Contains(res.stdout, "file://"+r.dir) {
				t.Fatalf("%s: the server's roots/list did not reach the host:\n%s", pin, res)
			}
			res = r.run(t, append([]string{"call", pin, "--sample", sample, "mcp__" + server + "__sample"}, serve...)...).want(t, 0)
			if !strings.Contains(res.stdout, "canned answer") {
				t.Fatalf("%s: the server's sampling did not reach the host:\n%s", pin, res)
			}
		}
	}
	res = r.run(t, append([]string{"call", "mcp__old__ask"}, serve...)...)
	if res.code == 0 || !strings.Contains(res.stdout, "no host of mcpwire serve can answer it") {
		t.Fatalf("a host that cannot answer is not said to:\n%s", res)
	}
}

// TestServeListen: serve --listen over streamable HTTP on loopback, the
// same rules as proxy's for other addresses.
func TestServeListen(t *testing.T) {
	r := newRunner(t)
	r.run(t, "add", "old", "--", r.bin, "serve-demo", "--era=legacy").want(t, 0)
	r.run(t, "serve", "--listen", "0.0.0.0:0").want(t, 2)
	url, stop := startListen(t, r, "serve", "--listen", "127.0.0.1:0")
	defer stop()
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
		res := r.run(t, "call", url, "mcp__old__echo", "text=over http", pin).want(t, 0)
		if strings.TrimSpace(res.stdout) != "over http" {
			t.Fatalf("%s: echo through serve --listen:\n%s", pin, res)
		}
		res = r.run(t, "prompt", url, "mcp__old__greet", "name=Ada", pin).want(t, 0)
		if !strings.Contains(res.stdout, "Ada") {
			t.Fatalf("%s: a prompt through serve --listen:\n%s", pin, res)
		}
	}
}
