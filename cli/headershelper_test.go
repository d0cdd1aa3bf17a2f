//go:build unix

package cli_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/demo"
)

// TestHeadersHelper: a definition's headersHelper prints the token a
// server that requires one takes; after a 401 (the first token it
// printed is stale) it runs again and the request is sent again; its
// token never shows in the output; a helper that fails says so.
func TestHeadersHelper(t *testing.T) {
	h := demo.NewHTTPHandler(demo.Options{RequireAuth: "tok-5678-helper"})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })
	r := newRunner(t)
	// The helper prints a stale token the first time, the right one after.
	os.MkdirAll(r.home, 0o700)
	script := filepath.Join(r.home, "mint.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count
if [ "$n" -ge 2 ]; then echo "Authorization: Bearer tok-5678-helper"; else echo "Authorization: Bearer stale-token-0"; fi
`), 0o700)
	entry, _ := json.Marshal(map[string]any{"url": srv.URL + "/mcp", "headersHelper": "./mint.sh"})
	r.run(t, "add-json", "minted", string(entry)).want(t, 0)
	res := r.run(t, "test", "minted").want(t, 0)
	if strings.Contains(res.stdout+res.stderr, "tok-5678-helper") {
		t.Errorf("the helper's token shows:\n%s", res)
	}
	if n, _ := os.ReadFile(filepath.Join(r.home, "count")); strings.TrimSpace(string(n)) != "2" {
		t.Errorf("the helper ran %q times, want 2 (once, then after the 401)", n)
	}
	entry, _ = json.Marshal(map[string]any{"url": srv.URL + "/mcp", "headersHelper": "echo 'no token for you' >&2; exit 7"})
	r.run(t, "add-json", "broken", string(entry)).want(t, 0)
	res = r.run(t, "test", "broken")
	if res.code == 0 || !strings.Contains(res.stderr, "headersHelper: exit status 7: no token for you") {
		t.Errorf("a failing helper:\n%s", res)
	}
}
