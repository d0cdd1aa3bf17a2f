package cli_test

import (
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
