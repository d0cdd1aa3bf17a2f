package cli_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestBridgesEverything: server-everything (the TypeScript reference
// server, legacy era, over stdio) behind proxy and serve. Hosts of both
// eras call its echo through proxy and get its roots/list answered
// (sent to a modern host as an input request); the Go SDK's client lists
// its tools and resources through proxy; serve offers it under the
// manager's names.
func TestBridgesEverything(t *testing.T) {
	proctest.Check(t)
	everything := peers.Everything(t)
	lister := peers.GoSDK(t, "listfeatures")
	r := newRunner(t)
	proxy := append([]string{"--", r.bin, "proxy", "--"}, everything...)
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
		res := r.run(t, append([]string{"call", pin, "echo", "message=through the proxy"}, proxy...)...).want(t, 0)
		if !strings.Contains(res.stdout, "through the proxy") {
			t.Fatalf("%s: echo of server-everything through proxy:\n%s", pin, res)
		}
		res = r.run(t, append([]string{"call", pin, "--root", r.dir, "get-roots-list"}, proxy...)...).want(t, 0)
		if !strings.Contains(res.stdout, "file://"+r.dir) {
			t.Fatalf("%s: server-everything's roots/list through proxy:\n%s", pin, res)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lister, append([]string{r.bin, "proxy", "--"}, everything...)...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = r.dir, r.env, 5*time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\techo\n") || !strings.Contains(string(out), "resources:\n\t") {
		t.Fatalf("the Go SDK client through proxy to server-everything: %v\n%s", err, out)
	}

	r.run(t, append([]string{"add", "ev", "--"}, everything...)...).want(t, 0)
	res := r.run(t, "call", "mcp__ev__echo", "message=through serve", "--", r.bin, "--home", r.home, "serve").want(t, 0)
	if !strings.Contains(res.stdout, "through serve") {
		t.Fatalf("server-everything's echo through serve:\n%s", res)
	}
}
