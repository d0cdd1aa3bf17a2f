package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// dpopClaims are the claims of a DPoP proof.
type dpopClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	ATH   string `json:"ath"`
	Nonce string `json:"nonce"`
}

// checkProof verifies a DPoP proof as RFC 9449 section 4.3 says (typ,
// alg, the public JWK, the ES256 signature) and returns its claims and the
// key's RFC 7638 thumbprint.
func checkProof(t *testing.T, proof string) (*dpopClaims, string) {
	t.Helper()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		t.Fatalf("proof %q is not a compact JWS", proof)
	}
	dec := base64.RawURLEncoding
	hb, _ := dec.DecodeString(parts[0])
	cb, _ := dec.DecodeString(parts[1])
	sig, _ := dec.DecodeString(parts[2])
	var h struct {
		Typ string            `json:"typ"`
		Alg string            `json:"alg"`
		JWK map[string]string `json:"jwk"`
	}
	if err := json.Unmarshal(hb, &h); err != nil || h.Typ != "dpop+jwt" || h.Alg != "ES256" || h.JWK["kty"] != "EC" || h.JWK["crv"] != "P-256" || h.JWK["d"] != "" {
		t.Fatalf("proof header %s", hb)
	}
	x, _ := dec.DecodeString(h.JWK["x"])
	y, _ := dec.DecodeString(h.JWK["y"])
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatalf("the proof's signature does not verify")
	}
	var c dpopClaims
	if err := json.Unmarshal(cb, &c); err != nil || c.JTI == "" || c.IAT == 0 {
		t.Fatalf("proof claims %s", cb)
	}
	thumb := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + h.JWK["x"] + `","y":"` + h.JWK["y"] + `"}`))
	return &c, dec.EncodeToString(thumb[:])
}

// dpopServer is an MCP server and its authorization server that bind
// tokens to DPoP keys and ask for nonces at both ends.
type dpopServer struct {
	t   *testing.T
	srv *httptest.Server

	mu         sync.Mutex
	jtis       map[string]bool
	tokenKey   map[string]string // access token -> the thumbprint it is bound to
	asNonceAsk int
	rsNonceAsk int
	rsNonce    string
	calls      int
}

func newDPoPServer(t *testing.T) *dpopServer {
	d := &dpopServer{t: t, jtis: map[string]bool{}, tokenKey: map[string]string{}, rsNonce: "rs-1"}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *dpopServer) url() string { return d.srv.URL + "/mcp" }

// fresh checks that a proof's jti was not seen before.
func (d *dpopServer) fresh(c *dpopClaims) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.jtis[c.JTI] {
		d.t.Errorf("proof jti %s used twice", c.JTI)
	}
	d.jtis[c.JTI] = true
}

func (d *dpopServer) serve(w http.ResponseWriter, r *http.Request) {
	base := d.srv.URL
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	case "/.well-known/oauth-authorization-server":
		writeJSON(w, 200, map[string]any{"issuer": base, "token_endpoint": base + "/token", "authorization_endpoint": base + "/authorize",
			"grant_types_supported": []string{"client_credentials"}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
			"code_challenge_methods_supported": []string{"S256"}, "dpop_signing_alg_values_supported": []string{"ES256"}})
	case "/token":
		c, thumb := checkProof(d.t, r.Header.Get("DPoP"))
		d.fresh(c)
		if c.HTM != "POST" || c.HTU != base+"/token" || c.ATH != "" {
			d.t.Errorf("token request proof %+v", c)
		}
		if c.Nonce != "as-1" {
			d.mu.Lock()
			d.asNonceAsk++
			d.mu.Unlock()
			w.Header().Set("DPoP-Nonce", "as-1")
			writeJSON(w, 400, map[string]any{"error": "use_dpop_nonce"})
			return
		}
		d.mu.Lock()
		tok := "dpop-token-" + c.JTI[:8]
		d.tokenKey[tok] = thumb
		d.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "DPoP", "expires_in": 3600})
	case "/mcp":
		auth := r.Header.Get("Authorization")
		if auth == "" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			return
		}
		tok, ok := strings.CutPrefix(auth, "DPoP ")
		if !ok {
			d.t.Errorf("Authorization %q is not the DPoP scheme", auth)
		}
		c, thumb := checkProof(d.t, r.Header.Get("DPoP"))
		d.fresh(c)
		ath := sha256.Sum256([]byte(tok))
		d.mu.Lock()
		defer d.mu.Unlock()
		if c.HTM != r.Method || c.HTU != base+"/mcp" || c.ATH != base64.RawURLEncoding.EncodeToString(ath[:]) || d.tokenKey[tok] != thumb {
			d.t.Errorf("request proof %+v (token bound to %s, proof key %s)", c, d.tokenKey[tok], thumb)
		}
		if c.Nonce != d.rsNonce {
			d.rsNonceAsk++
			w.Header().Set("DPoP-Nonce", d.rsNonce)
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			return
		}
		d.calls++
		// A new nonce for the next proof, given on a success.
		d.rsNonce = "rs-" + string(rune('1'+d.calls))
		w.Header().Set("DPoP-Nonce", d.rsNonce)
		w.WriteHeader(200)
	default:
		http.NotFound(w, r)
	}
}

func TestDPoP(t *testing.T) {
	d := newDPoPServer(t)
	ctx := context.Background()
	store := NewStore(t.TempDir())
	resp, err := http.Post(d.url(), "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tok, err := ClientCredentials(ctx, ClientCredentialsOptions{ServerURL: d.url(), Challenge: resp.Header.Values("WWW-Authenticate"),
		ClientID: "machine", ClientSecret: "s3cret-machine", Store: store, ServerName: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if !tok.IsDPoP() || !strings.Contains(tok.DPoPKey, "PRIVATE KEY") {
		t.Fatalf("token %+v is not DPoP-bound", tok)
	}
	rec, _, err := store.Load("d")
	if err != nil || rec.Token.DPoPKey != tok.DPoPKey {
		t.Fatalf("saved %+v, %v", rec, err)
	}
	tr := &Transport{Source: NewStoreSource(nil, store, "d", rec), Resource: rec.Resource}
	client := &http.Client{Transport: tr}
	for i := 0; i < 3; i++ {
		resp, err := client.Post(d.url(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.asNonceAsk != 1 || d.rsNonceAsk != 1 || d.calls != 3 {
		t.Errorf("the authorization server asked for a nonce %d times, the MCP server %d times; %d calls", d.asNonceAsk, d.rsNonceAsk, d.calls)
	}
}

func TestDPoPKeyRoundTrip(t *testing.T) {
	k, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := parseDPoPKey(k.pem())
	if err != nil || k2.jwk["x"] != k.jwk["x"] || k2.jwk["y"] != k.jwk["y"] {
		t.Fatalf("%v %v", k2, err)
	}
	p, err := k2.proof("GET", "https://h.example/mcp?q=1#f", "", "n", time.Unix(1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := checkProof(t, p)
	if c.HTU != "https://h.example/mcp" || c.HTM != "GET" || c.Nonce != "n" || c.IAT != 1000 || c.ATH != "" {
		t.Errorf("claims %+v", c)
	}
	if _, err := parseDPoPKey("not a key"); err == nil {
		t.Error("a bad key parsed")
	}
}

// workloadAS is an authorization server that takes the jwt-bearer grant.
type workloadAS struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string // the assertions, in order
	fail string   // an error code to answer with
}

func newWorkloadAS(t *testing.T) *workloadAS {
	a := &workloadAS{}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := a.srv.URL
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			writeJSON(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
		case "/.well-known/oauth-authorization-server":
			writeJSON(w, 200, map[string]any{"issuer": base, "token_endpoint": base + "/token",
				"grant_types_supported": []string{GrantJWTBearer}, "token_endpoint_auth_methods_supported": []string{"none"}})
		case "/token":
			r.ParseForm()
			a.mu.Lock()
			a.seen = append(a.seen, r.PostForm.Get("assertion"))
			fail := a.fail
			a.mu.Unlock()
			if r.PostForm.Get("grant_type") != GrantJWTBearer || r.PostForm.Get("client_id") != "workload" || r.PostForm.Get("resource") != base+"/mcp" {
				t.Errorf("token request %v", r.PostForm)
			}
			if fail != "" {
				writeJSON(w, 400, map[string]any{"error": fail})
				return
			}
			writeJSON(w, 200, map[string]any{"access_token": "wl-" + r.PostForm.Get("assertion")[:4], "token_type": "Bearer", "expires_in": 60})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func TestWorkloadIdentity(t *testing.T) {
	a := newWorkloadAS(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "token.jwt")
	os.WriteFile(file, []byte("aaaa.bbbb.cccc\n"), 0o600)
	store := NewStore(filepath.Join(dir, "tokens"))
	ctx := context.Background()
	tok, err := WorkloadIdentity(ctx, WorkloadOptions{ServerURL: a.srv.URL + "/mcp", ClientID: "workload", AssertionFile: file, Store: store, ServerName: "w"})
	if err != nil || tok.AccessToken != "wl-aaaa" {
		t.Fatalf("%+v %v", tok, err)
	}
	// The platform rotates the file; once the token expired, the source
	// redeems the new JWT.
	os.WriteFile(file, []byte("dddd.eeee.ffff"), 0o600)
	rec, _, _ := store.Load("w")
	src := NewStoreSource(nil, store, "w", rec)
	src.Now = func() time.Time { return time.Now().Add(time.Hour) }
	tok, err = src.Token(ctx)
	if err != nil || tok.AccessToken != "wl-dddd" {
		t.Fatalf("after expiry: %+v %v", tok, err)
	}
	// A rejected JWT is an error at once: no retry, no other grant.
	a.mu.Lock()
	a.fail, a.seen = "invalid_grant", nil
	a.mu.Unlock()
	_, err = WorkloadIdentity(ctx, WorkloadOptions{ServerURL: a.srv.URL + "/mcp", ClientID: "workload", AssertionFile: file, Store: store, ServerName: "w"})
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil || !strings.Contains(err.Error(), "invalid_grant") || len(a.seen) != 1 {
		t.Errorf("rejected: %v, %d token requests", err, len(a.seen))
	}
	if _, err := WorkloadIdentity(ctx, WorkloadOptions{ServerURL: a.srv.URL + "/mcp", ClientID: "workload", AssertionFile: filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing assertion file was accepted")
	}
	os.WriteFile(file, []byte("not a jwt"), 0o600)
	if _, err := WorkloadIdentity(ctx, WorkloadOptions{ServerURL: a.srv.URL + "/mcp", ClientID: "workload", AssertionFile: file}); err == nil || !strings.Contains(err.Error(), "does not hold a JWT") {
		t.Errorf("not a JWT: %v", err)
	}
}
