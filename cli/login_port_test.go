package cli

import (
	"encoding/json"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
)

// freePort is a loopback port nobody listens on (now).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// loginRedirect logs in with args and returns the redirect_uri the
// authorization URL carried.
func loginRedirect(t *testing.T, r *runner, args ...string) string {
	t.Helper()
	stdout, _ := r.run(0, append([]string{"login", "--json", "--force"}, args...)...)
	var doc struct {
		OK  bool
		URL string `json:"authorizationUrl"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !doc.OK {
		t.Fatalf("login %q (%v):\n%s", args, err, stdout)
	}
	u, err := url.Parse(doc.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("redirect_uri")
}

// TestLoginCallbackPort: oauth.callbackPort and --callback-port fix the
// port of the callback end to end (the listener, the redirect_uri of the
// authorization request and of the token request: the login completes).
func TestLoginCallbackPort(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	port := freePort(t)
	entry, _ := json.Marshal(map[string]any{"url": f.URL + "/mcp", "oauth": map[string]any{"callbackPort": port}})
	r.run(0, "add-json", "fixed", string(entry))
	if got, want := loginRedirect(t, r, "fixed"), "http://127.0.0.1:"+strconv.Itoa(port)+"/callback"; got != want {
		t.Errorf("oauth.callbackPort: redirect_uri %q, want %q", got, want)
	}
	other := freePort(t)
	if got, want := loginRedirect(t, r, "fixed", "--callback-port", strconv.Itoa(other)), "http://127.0.0.1:"+strconv.Itoa(other)+"/callback"; got != want {
		t.Errorf("--callback-port: redirect_uri %q, want %q", got, want)
	}
	// A port in use is a clear error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	_, stderr := r.run(4, "login", "fixed", "--force", "--callback-port", busy)
	if !strings.Contains(stderr, "the callback port "+busy+" (oauth.callbackPort) cannot be used") {
		t.Errorf("a busy port:\n%s", stderr)
	}
}

// TestLoginAuthServerMetadataURL: oauth.authServerMetadataUrl is read
// instead of discovering the authorization server.
func TestLoginAuthServerMetadataURL(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	entry, _ := json.Marshal(map[string]any{"url": f.URL + "/mcp", "oauth": map[string]any{"authServerMetadataUrl": f.URL + "/.well-known/oauth-authorization-server"}})
	r.run(0, "add-json", "meta", string(entry))
	_, stderr := r.run(0, "login", "meta", "--verbose")
	if !strings.Contains(stderr, "(metadata from "+f.URL+"/.well-known/oauth-authorization-server)") {
		t.Errorf("login did not read the metadata document it was given:\n%s", stderr)
	}
}
