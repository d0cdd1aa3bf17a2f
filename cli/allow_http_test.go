package cli_test

import (
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestAllowHTTP: plain http to a host that is not loopback is refused by
// default; "allowHttp" in a definition and --allow-http for a URL target
// allow it with a warning line; never with a token (issue 11, item 15).
// The server listens on loopback and is reached as 0.0.0.0, which is not
// a loopback address by the URL rules.
func TestAllowHTTP(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("0.0.0.0 is not reachable as a destination on windows")
	}
	proctest.Check(t)
	r := newRunner(t)
	h := demo.NewHTTPHandler(demo.Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })
	plain := strings.Replace(srv.URL, "127.0.0.1", "0.0.0.0", 1) + "/mcp"

	// A URL target.
	res := r.run(t, "test", plain).want(t, 2)
	if !strings.Contains(res.stderr, "plain http is allowed only to localhost") || !strings.Contains(res.stderr, "--allow-http") {
		t.Errorf("refusal without a hint:\n%s", res)
	}
	res = r.run(t, "test", "--allow-http", plain).want(t, 0)
	if !strings.Contains(res.stderr, "warning: 0.0.0.0") || !strings.Contains(res.stderr, "plain http to 0.0.0.0") {
		t.Errorf("no warning line:\n%s", res)
	}
	r.run(t, "test", "--allow-http", "--header", "Authorization: Bearer tok-1234", plain).want(t, 2)

	// A definition.
	writeJSON(t, filepath.Join(r.home, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"plain":   map[string]any{"url": plain},
		"allowed": map[string]any{"url": plain, "allowHttp": true},
		"token":   map[string]any{"url": plain, "allowHttp": true, "headers": map[string]string{"Authorization": "Bearer tok-1234"}},
		"oauth":   map[string]any{"url": plain, "allowHttp": true, "oauth": map[string]any{"client_id": "c"}},
	}})
	r.run(t, "approve", "--all").want(t, 3) // token and oauth are invalid
	res = r.run(t, "test", "plain").want(t, 3)
	if !strings.Contains(res.stderr, "plain http is allowed only to localhost") {
		t.Errorf("plain: %s", res)
	}
	res = r.run(t, "test", "allowed").want(t, 0)
	if !strings.Contains(res.stderr, "warning: allowed: plain http to 0.0.0.0") {
		t.Errorf("allowed: no warning line:\n%s", res)
	}
	for _, name := range []string{"token", "oauth"} {
		res = r.run(t, "test", name).want(t, 3)
		if !strings.Contains(res.stderr, "never crosses plain http") {
			t.Errorf("%s: %s", name, res)
		}
	}
	res = r.run(t, "list").want(t, 0)
	if !strings.Contains(res.stderr, "warning: allowed: plain http") {
		t.Errorf("list: no warning line:\n%s", res)
	}
	// OAuth never: a server that wants a login over plain http off
	// loopback gets none.
	ha := demo.NewHTTPHandler(demo.Options{RequireAuth: "tok-5678"})
	srvA := httptest.NewServer(ha)
	t.Cleanup(func() { srvA.Close(); ha.Close() })
	plainA := strings.Replace(srvA.URL, "127.0.0.1", "0.0.0.0", 1) + "/mcp"
	res = r.run(t, "login", "--no-browser", plainA)
	if res.code == 0 || !strings.Contains(res.stderr, "https") {
		t.Errorf("login over plain http:\n%s", res)
	}
	writeJSON(t, filepath.Join(r.home, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"needsauth": map[string]any{"url": plainA, "allowHttp": true},
	}})
	r.run(t, "approve", "needsauth").want(t, 0)
	res = r.run(t, "login", "--no-browser", "needsauth")
	if res.code == 0 || !strings.Contains(res.stderr, "https") {
		t.Errorf("login over plain http:\n%s", res)
	}
}
