package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/oauth"
)

// TestProxyOAuth: the mcp-remote job. A host on proxy's stdio reaches an
// OAuth-protected server through one session: mcpwire sends the token
// (the host never sees one), and when the server refuses the token in
// the middle of the session (401) it is refreshed without the host's
// session ending.
func TestProxyOAuth(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	r.run(0, "login", "srv")

	h := startProxy(t, r, "srv")
	h.initialize()
	h.echo(2, "first")

	// The access token is refused (401) while the host's session goes on.
	store := oauth.NewStore(r.home)
	rec, _, err := store.Load("srv")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	f.ExpireAccess()
	h.echo(3, "second")
	f.Mu.Lock()
	refreshes := f.Refreshes
	f.Mu.Unlock()
	if refreshes != 1 {
		t.Fatalf("%d refreshes, want 1", refreshes)
	}
	if out := h.end() + r.all.String(); strings.Contains(out, leak) || strings.Contains(out, rec.Token.AccessToken) {
		t.Fatalf("a token reached the host or the output:\n%s", out)
	}
}

// TestProxyTakesAnotherLogin: a token that a separate `mcpwire login`
// saved in the home while proxy runs is the one proxy sends once the
// server refuses its own (the grant was withdrawn, so its refresh token
// is no good either): no refresh, no login of proxy's, the host's
// session kept.
func TestProxyTakesAnotherLogin(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	r.run(0, "login", "srv")
	h := startProxy(t, r, "srv")
	h.initialize()
	h.echo(2, "first")

	f.RevokeAll()
	r.run(0, "login", "srv", "--force") // another terminal
	h.echo(3, "second")
	f.Mu.Lock()
	refreshes, logins := f.Refreshes, len(f.AuthScopes)
	f.Mu.Unlock()
	if refreshes != 0 || logins != 2 {
		t.Fatalf("%d refreshes and %d authorizations, want 0 and 2 (the two logins)", refreshes, logins)
	}
	if out := h.end() + r.all.String(); strings.Contains(out, leak) {
		t.Fatalf("a secret reached the host or the output:\n%s", out)
	}
}

// mustJSONText is v as JSON.
func mustJSONText(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
