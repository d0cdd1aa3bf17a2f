package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestMounted runs the command line as an agent mounts it ("agent mcp"):
// usage lines, messages and hints name the agent's command, never
// mcpwire's, and each suggested command works when run as suggested,
// including the login of a server given by URL.
func TestMounted(t *testing.T) {
	proctest.Check(t)
	f := fakeauth.New(t)
	r := newRunner(t)
	r.program = "agent mcp"
	u := f.URL + "/mcp?x=1" // the query is not repeated in a hint

	stdout, _ := r.run(0, "help")
	if !strings.Contains(stdout, "Usage: agent mcp <command>") || !strings.Contains(stdout, "  agent mcp test --demo") {
		t.Fatalf("help:\n%s", stdout)
	}
	_, stderr := r.run(ExitUsage, "nosuch")
	if !strings.Contains(stderr, "agent mcp: error: unknown command") || !strings.Contains(stderr, "run 'agent mcp help'") {
		t.Fatalf("unknown command:\n%s", stderr)
	}
	_, stderr = r.run(ExitUsage, "call")
	if !strings.Contains(stderr, "usage: agent mcp call TARGET TOOL") {
		t.Fatalf("usage line:\n%s", stderr)
	}

	// The built-in demo server runs as "agent mcp serve-demo".
	stdout, _ = r.run(0, "call", "--demo", "echo", "text=mounted")
	if !strings.Contains(stdout, "mounted") {
		t.Fatalf("call --demo:\n%s", stdout)
	}

	// A server given by URL that needs a login: the hint is a command that
	// works as it stands.
	_, stderr = r.run(ExitAuth, "call", u, "echo", "text=hi")
	m := regexp.MustCompile(`agent mcp: hint: log in first: (agent mcp login \S+)\n`).FindStringSubmatch(stderr)
	if m == nil || m[1] != "agent mcp login "+f.URL+"/mcp" {
		t.Fatalf("login hint for a URL target:\n%s", stderr)
	}
	r.run(0, strings.Fields(m[1])[2:]...)
	stdout, _ = r.run(0, "call", u, "echo", "text=after login")
	if !strings.Contains(stdout, "after login") {
		t.Fatalf("call after the suggested login:\n%s", stdout)
	}

	// A configured server that is not approved: both hints work.
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	r.run(0, "revoke", "srv")
	_, stderr = r.run(ExitConfig, "test", "srv")
	for _, want := range []string{"agent mcp: hint: review it with: agent mcp get srv", "agent mcp: hint: then approve it with: agent mcp approve srv"} {
		if !strings.Contains(stderr, want) {
			t.Fatalf("approval hints lack %q:\n%s", want, stderr)
		}
	}
	r.run(0, "approve", "srv")
	_, stderr = r.run(ExitAuth, "test", "srv")
	if !strings.Contains(stderr, "log in first: agent mcp login srv\n") {
		t.Fatalf("login hint for a configured server:\n%s", stderr)
	}

	if strings.Contains(r.all.String(), "mcpwire login") || regexp.MustCompile(`(?m)^mcpwire:`).MatchString(r.all.String()) {
		t.Fatalf("mcpwire's own name in the mounted command line's output:\n%s", r.all.String())
	}
	if strings.Contains(r.all.String(), leak) {
		t.Fatal("a secret reached the output")
	}
}
