package cli

import (
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

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
	r, h := proxyOf(t, f, true)
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
	h.noSecret(r)
}

// mustJSONText is v as JSON.
func mustJSONText(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// authorizations are the authorization requests f saw, with their
// scopes.
func authorizations(f *fakeauth.Server) [][]string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return slices.Clone(f.AuthScopes)
}

// onlyMCP fails unless every line proxy wrote on stdout is a JSON-RPC
// message: the prompts of its logins are on stderr.
func onlyMCP(t *testing.T, h *stdioHost) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSpace(h.out.String()), "\n") {
		if !strings.HasPrefix(l, `{"jsonrpc":"2.0"`) {
			t.Fatalf("proxy wrote on the host's stream: %q", l)
		}
	}
}

// TestProxyLogsInFirst: first use. A server that needs OAuth, and no
// token in the home: proxy logs in by itself (the browser, here the
// tests' stand-in that approves), its prompts on stderr, the host's
// stdin untouched, and serves the host.
func TestProxyLogsInFirst(t *testing.T) {
	f := fakeauth.New(t)
	r, h := proxyOf(t, f, false)
	h.echo(2, "first")
	if n := len(authorizations(f)); n != 1 {
		t.Fatalf("%d authorizations, want 1", n)
	}
	onlyMCP(t, h)
	if e := h.errb.String(); !strings.Contains(e, "needs a login") || !strings.Contains(e, "logged in to srv") {
		t.Fatalf("proxy did not say it logs in:\n%s", e)
	}
	h.noSecret(r)
}

// TestProxyLogsInNoBrowser: first use with --no-browser. proxy prints
// the address on stderr and waits for the browser's callback; it reads
// nothing of stdin (the host's initialize, sent meanwhile, is answered
// once the login is done).
func TestProxyLogsInNoBrowser(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	delete(r.env, "BROWSER")
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	h := startProxy(t, r, "srv", "--no-browser", "--no-device")
	sent := make(chan error, 1) // stdin is read once the login is done
	go func() {
		_, err := io.WriteString(h.in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`+"\n")
		sent <- err
	}()
	u := h.errb.waitMatch(regexp.MustCompile(`http://\S+/authorize\?\S+`), 30*time.Second)
	if u == "" {
		t.Fatalf("proxy printed no address to log in at:\n%s", h.errb.String())
	}
	if err := fakeauth.Approve(u); err != nil { // the person, in a browser
		t.Fatal(err)
	}
	h.answer(1)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.echo(2, "first")
	onlyMCP(t, h)
	if strings.Contains(h.errb.String(), "Paste") {
		t.Fatalf("proxy asked for a paste on the host's stdin:\n%s", h.errb.String())
	}
	h.noSecret(r)
}

// TestProxyLogsInDevice: a refused refresh in the middle of the
// session, with --device: proxy shows the code on stderr and waits for
// the approval (RFC 8628); the call is then answered.
func TestProxyLogsInDevice(t *testing.T) {
	f := fakeauth.New(t)
	f.Mu.Lock()
	f.Device = true
	f.Mu.Unlock()
	r, h := proxyOf(t, f, true, "--device")
	h.echo(2, "first")
	f.RevokeAll()
	h.sendEcho(3, "second")
	select {
	case <-f.Polled():
	case <-time.After(30 * time.Second):
		t.Fatalf("proxy did not wait for a device approval:\n%s", h.errb.String())
	}
	if err := f.Act("approve"); err != nil {
		t.Fatal(err)
	}
	h.echoed(3, "second")
	if e := h.errb.String(); !strings.Contains(e, "enter the code") {
		t.Fatalf("proxy did not show the code on stderr:\n%s", e)
	}
	onlyMCP(t, h)
	h.noSecret(r)
}

// TestProxyLogsInAgain: the grant is withdrawn in the middle of the
// host's session (the refresh token is refused too): proxy logs in
// again, once for the two calls refused at the same time, and both
// are answered; the host's session goes on.
func TestProxyLogsInAgain(t *testing.T) {
	f := fakeauth.New(t)
	r, h := proxyOf(t, f, true, "--no-device")
	h.echo(2, "first")

	f.RevokeAll()
	h.sendEcho(3, "second")
	h.sendEcho(4, "third")
	h.echoed(3, "second")
	h.echoed(4, "third")
	h.echo(5, "fourth")
	if n := len(authorizations(f)); n != 2 {
		t.Fatalf("%d authorizations, want 2 (login's, then proxy's one)\n%s", n, h.errb.String())
	}
	onlyMCP(t, h)
	h.noSecret(r)
}

// TestProxyStepUp: the server refuses a call with 403
// insufficient_scope (RFC 6750 section 3.1): proxy logs in again,
// asking for the scopes it held and the ones asked for, and the call is
// sent again and answered.
func TestProxyStepUp(t *testing.T) {
	f := fakeauth.New(t)
	f.Mu.Lock()
	f.NeedScope = "mcp:write"
	f.Mu.Unlock()
	r, h := proxyOf(t, f, true)
	h.echo(2, "wider")
	h.echo(3, "again")
	auths := authorizations(f)
	if len(auths) != 2 {
		t.Fatalf("authorizations %q, want 2", auths)
	}
	if got := auths[1]; !slices.Contains(got, "mcp:read") || !slices.Contains(got, "mcp:write") {
		t.Fatalf("the step-up asked for %q, want mcp:read and mcp:write", got)
	}
	onlyMCP(t, h)
	h.noSecret(r)
}

// noSecret ends the proxy and fails when a secret reached what it wrote
// or what r's commands printed.
func (h *stdioHost) noSecret(r *runner) {
	h.t.Helper()
	if out := h.end() + r.all.String(); strings.Contains(out, leak) {
		h.t.Fatalf("a secret reached the host or the output:\n%s", out)
	}
}

// proxyOf adds f's server as srv in a new home, logs in to it when
// login says so, and starts `proxy srv ARGS…` with a host that has
// initialized its session.
func proxyOf(t *testing.T, f *fakeauth.Server, login bool, args ...string) (*runner, *stdioHost) {
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	if login {
		r.run(0, "login", "srv")
	}
	h := startProxy(t, r, append([]string{"srv"}, args...)...)
	h.initialize()
	return r, h
}
