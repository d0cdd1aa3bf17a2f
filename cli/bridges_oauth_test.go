package cli_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestBridgesOAuthForeignHosts: the mcp-remote job with hosts that are
// not ours. The demo server behind the tests' authorization server
// (internal/fakeauth, on loopback) is logged in to once (mcpwire login,
// the test binary as the browser that approves); the Go SDK's client
// (2026-07-28 and 2025-11-25) and the TypeScript SDK's then call echo
// through `mcpwire proxy srv` over stdio and through one `proxy srv
// --listen`. The access token expires between two hosts' sessions of that
// proxy: it is refreshed once, and the second host is served. No token,
// nor any secret the authorization server handed out, reaches a host's
// output or the proxy's.
func TestBridgesOAuthForeignHosts(t *testing.T) {
	proctest.Check(t)
	f := fakeauth.New(t)
	r := newRunner(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r.env = append(r.env, "BROWSER="+exe, "MCPWIRE_TEST_BROWSER=1") // TestMain approves
	r.run(t, "add", "srv", "--url", f.URL+"/mcp").want(t, 0)
	r.run(t, "login", "srv").want(t, 0)
	call := []string{"-call", "echo", "-args", `{"text":"hi"}`}
	var seen strings.Builder
	sees := func(what string, steps []sdkStep, stderr string) {
		t.Helper()
		if len(steps) != 3 || steps[2].Result == nil || !strings.Contains(string(steps[2].Result), `"text":"hi"`) {
			t.Fatalf("%s: %+v\n%s", what, steps, stderr)
		}
		for _, s := range steps {
			seen.WriteString(string(s.Result) + string(s.Tools) + string(s.ServerInfo))
		}
		seen.WriteString(stderr)
	}
	proxy := []string{r.bin, "--home", r.home, "proxy", "srv"}
	for _, c := range foreignClients {
		steps, stderr := runClient(t, r, c, call, proxy...)
		sees(c.name+", proxy (stdio)", steps, stderr)
	}
	url, stop := startListenOut(t, r, "proxy", "srv", "--listen", "127.0.0.1:0")
	for i, c := range foreignClients {
		if i == 1 {
			f.ExpireAccess() // the proxy's token is refused from now on
		}
		for _, p := range []string{"2026-07-28", "2025-11-25"} {
			flags := []string{"-url", url, "-protocol", p}
			if c.name != "go-sdk" {
				flags = flags[:2] // the TypeScript SDK's own revision
			}
			steps, stderr := runClient(t, r, c, append(flags, call...))
			sees(c.name+" "+p+", proxy --listen", steps, stderr)
			if c.name != "go-sdk" {
				break
			}
		}
	}
	seen.WriteString(stop())
	f.Mu.Lock()
	refreshes := f.Refreshes
	f.Mu.Unlock()
	if refreshes != 1 {
		t.Errorf("%d refreshes by the proxy after the token expired, want 1", refreshes)
	}
	if strings.Contains(seen.String(), fakeauth.Leak) {
		t.Fatalf("a secret of the authorization server reached an output:\n%s", seen.String())
	}
}
