package oauth

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// offLoopback serves an MCP server's protected resource metadata over TLS
// and returns a client that reaches it as https://mcp.example (a host
// that is not loopback), through a dialer of the test's own.
func offLoopback(t *testing.T, prm map[string]any) *http.Client {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(prm)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: tr.TLSClientConfig.RootCAs, ServerName: "example.com"}
	addr := srv.Listener.Addr().String()
	tr.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
		if a != "mcp.example:443" {
			t.Errorf("dialed %s: only the MCP server may be contacted", a)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr}
}

// counting is a plain http server on loopback that counts its requests.
func counting(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestEndpointRules: every OAuth endpoint is https; plain http only on
// loopback, and only for an MCP server on loopback (issue 11, item 14).
func TestEndpointRules(t *testing.T) {
	as, asHits := counting(t)

	// An MCP server off loopback whose metadata names a plain http
	// authorization server on loopback: refused before it is contacted.
	client := offLoopback(t, map[string]any{"resource": "https://mcp.example/mcp", "authorization_servers": []string{as.URL}})
	_, err := Login(context.Background(), LoginOptions{ServerURL: "https://mcp.example/mcp", Client: client,
		OpenBrowser: func(string) error { t.Error("the browser was opened"); return nil }})
	if err == nil || !strings.Contains(err.Error(), "only for an MCP server on loopback") {
		t.Errorf("Login = %v, want a refusal of the plain http authorization server", err)
	}

	// A refresh or a revocation for that server: the same.
	rec := &Record{Resource: "https://mcp.example/mcp", TokenEndpoint: as.URL + "/token", RevocationEndpoint: as.URL + "/revoke",
		Client: &ClientRegistration{ClientID: "c", ClientSecret: "client-secret-1", AuthMethod: "client_secret_post"},
		Token:  &Token{AccessToken: "access-token-1", RefreshToken: "refresh-token-1"}}
	if err := Revoke(context.Background(), as.Client(), rec); err == nil || !strings.Contains(err.Error(), "only for an MCP server on loopback") {
		t.Errorf("Revoke = %v", err)
	}
	src := NewStoreSource(as.Client(), nil, "s", rec)
	if _, err := src.Refresh(context.Background(), rec.Token); err == nil || !strings.Contains(err.Error(), "only for an MCP server on loopback") {
		t.Errorf("Refresh = %v", err)
	}
	// Without the MCP server's URL, plain http is never used.
	if _, err := DiscoverAuthServer(context.Background(), as.Client(), as.URL); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("DiscoverAuthServer = %v", err)
	}
	if n := asHits.Load(); n != 0 {
		t.Errorf("the plain http authorization server got %d requests", n)
	}

	// Metadata that points an endpoint at plain http off loopback (the
	// cloud metadata address, say) is refused as it is read, for a server
	// on loopback too.
	for _, doc := range []string{
		`{"issuer": "http://127.0.0.1:1", "authorization_endpoint": "http://127.0.0.1:1/a", "token_endpoint": "http://169.254.169.254/token"}`,
		`{"issuer": "http://127.0.0.1:1", "authorization_endpoint": "http://as.example/a", "token_endpoint": "http://127.0.0.1:1/t"}`,
		`{"issuer": "http://127.0.0.1:1", "token_endpoint": "https://as.example/t", "registration_endpoint": "http://10.0.0.1/r"}`,
		`{"issuer": "http://127.0.0.1:1", "token_endpoint": "https://as.example/t", "jwks_uri": "http://as.example/jwks"}`,
		`{"issuer": "http://as.example"}`,
	} {
		if _, err := ParseAuthServerMetadata([]byte(doc)); err == nil || !strings.Contains(err.Error(), "https") {
			t.Errorf("ParseAuthServerMetadata(%s) = %v, want a refusal", doc, err)
		}
	}
	if _, err := ParseResourceMetadata([]byte(`{"resource": "http://127.0.0.1:1/mcp", "authorization_servers": ["http://169.254.169.254/"]}`)); err == nil {
		t.Error("ParseResourceMetadata accepted a plain http authorization server off loopback")
	}
	// Loopback with loopback stays allowed (the local test setups).
	if _, err := ParseAuthServerMetadata([]byte(`{"issuer": "http://127.0.0.1:1", "token_endpoint": "http://localhost:1/t"}`)); err != nil {
		t.Errorf("loopback metadata refused: %v", err)
	}
}
