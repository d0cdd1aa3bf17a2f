package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/manager"
)

// TestSDKOAuthExample logs in to the TypeScript SDK's OAuth example server
// (a real third-party MCP server with its own authorization server) headless,
// through a BROWSER program, then tests it and calls a tool with the token.
func TestSDKOAuthExample(t *testing.T) {
	proctest.Check(t)
	url := peers.SDKOAuthExample(t)
	r := newRunner(t)
	r.run(0, "add", "sdk", "--url", url)

	// Without a token: exit 4, naming the login, and no browser opened.
	_, stderr := r.run(ExitAuth, "test", "sdk")
	if !strings.Contains(stderr, "mcpwire login sdk") {
		t.Fatalf("no login hint:\n%s", stderr)
	}

	stdout, _ := r.run(0, "login", "sdk")
	if !strings.Contains(stdout, "logged in to sdk") {
		t.Fatalf("login said:\n%s", stdout)
	}
	checkMode(t, r.home+"/mcp-tokens/sdk.json")

	stdout, _ = r.run(0, "test", "sdk", "--json")
	var rep struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
		Tools      []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("test --json: %v\n%s", err, stdout)
	}
	found := false
	for _, tool := range rep.Tools {
		found = found || tool.Name == "greet"
	}
	if !found {
		t.Fatalf("the example's greet tool is not listed:\n%s", stdout)
	}
	stdout, _ = r.run(0, "call", "sdk", "greet", "name=mcpwire")
	if !strings.Contains(stdout, "mcpwire") {
		t.Fatalf("call greet:\n%s", stdout)
	}
	stdout, _ = r.run(0, "list", "--json")
	if !strings.Contains(stdout, `"auth": "authenticated"`) || !strings.Contains(stdout, `"state": "connected"`) {
		t.Fatalf("list after login:\n%s", stdout)
	}

	// The token never shows in any output of these runs.
	h, err := manager.OpenHome(r.home)
	if err != nil {
		t.Fatal(err)
	}
	secrets := h.Secrets("sdk")
	if len(secrets) == 0 {
		t.Fatal("no token file")
	}
	if tok := secrets[0]; tok == "" || strings.Contains(r.all.String(), tok) {
		t.Fatalf("the access token (%d bytes) was printed or is missing", len(tok))
	}
	// doctor sees the login and checks the server with the token.
	stdout, _ = r.run(0, "doctor", "sdk", "--json")
	if !strings.Contains(stdout, `"phase": "login",
          "status": "ok"`) || !strings.Contains(stdout, `"phase": "tools",
          "status": "ok"`) {
		t.Fatalf("doctor after login:\n%s", stdout)
	}
	r.run(0, "logout", "sdk")
	r.run(ExitAuth, "call", "sdk", "greet", "name=x")
}
