package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// sentinel marks every secret the fake server hands out, so a test can
// look for leaks.
const sentinel = "SECRETxyz"

// fakeOpts shapes the fake MCP server + authorization server.
type fakeOpts struct {
	prmAt                  string // "header", "path", "root", "custom" (header only), "none"
	prmResource            string // override of the PRM resource
	prmScopes              []string
	issuerPath             string // "" or "/t1"
	mdAt                   string // "oauth", "oidc", "oidc-append"; with prmAt "none": "legacy" or "legacy-defaults"
	issuerOverride         string
	noPKCE                 bool
	cimd                   bool
	noDCR                  bool
	authMethods            []string // token_endpoint_auth_methods_supported
	dcrMethod              string   // token_endpoint_auth_method answered by DCR ("" = omitted)
	dcrNoSecret            bool
	issSupported           bool
	issMode                string // "", "correct", "wrong", "omit"
	refresh                bool   // issue refresh tokens
	rotate                 bool
	expiresIn              int
	asScopes               []string
	challengeScope         string
	requireScopes          []string // scopes /mcp needs beyond a valid token (403 otherwise)
	revocation             bool
	alwaysForbid           bool   // 403 insufficient_scope to every token
	clientID, clientSecret string // pre-registered client
	ecKey                  *ecdsa.PublicKey
	rsaKey                 *rsa.PublicKey
	// The device authorization grant (device_test.go).
	device         bool   // offer device_authorization_endpoint
	deviceInterval int    // interval answered (0: omitted)
	deviceExpires  int    // expires_in answered (default 600)
	deviceURI      string // verification_uri answered (default <base>/device)
	deviceComplete string // verification_uri_complete answered (default <uri>?user_code=…)
	slowDownAt     int    // the poll that answers slow_down (0: none)
	unavailableAt  int    // the poll that answers 503 (0: none)
	deviceRefuse   bool   // the device authorization endpoint answers unauthorized_client
}

type tokenReq struct {
	form                 url.Values
	method               string // client auth method seen
	basicID, basicSecret string
}

type fakeAS struct {
	t    *testing.T
	o    fakeOpts
	srv  *httptest.Server
	base string

	mu        sync.Mutex
	paths     []string
	authReqs  []url.Values
	tokenReqs []tokenReq
	regs      []map[string]any
	codes     map[string]url.Values // code -> authorization request
	access    map[string][]string   // access token -> scopes
	refreshes map[string][]string   // refresh token -> scopes
	clients   map[string]string     // client_id -> secret
	revoked   []string
	jags      map[string]bool
	devices   map[string]*deviceState // device_code -> its state
	deviceReq []url.Values            // device authorization requests
	n         int
}

func newFakeAS(t *testing.T, o fakeOpts) *fakeAS {
	f := &fakeAS{t: t, o: o, codes: map[string]url.Values{}, access: map[string][]string{}, refreshes: map[string][]string{}, clients: map[string]string{}, jags: map[string]bool{}, devices: map[string]*deviceState{}}
	if o.clientID != "" {
		f.clients[o.clientID] = o.clientSecret
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.base = f.srv.URL
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAS) serverURL() string { return f.base + "/mcp" }

func (f *fakeAS) issuer() string {
	if f.o.prmAt == "none" {
		if f.o.mdAt == "legacy" {
			return f.base + "/oauth"
		}
		return f.base
	}
	return f.base + f.o.issuerPath
}

// ep is the prefix of the OAuth endpoints.
func (f *fakeAS) ep() string {
	if f.o.prmAt == "none" && f.o.mdAt == "legacy" {
		return "/oauth"
	}
	return f.o.issuerPath
}

func (f *fakeAS) next(prefix string) string {
	f.n++
	return fmt.Sprintf("%s-%d-%s", prefix, f.n, sentinel)
}

func (f *fakeAS) requested(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.paths, path)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeAS) prm(resource string) map[string]any {
	if f.o.prmResource != "" {
		resource = f.o.prmResource
	}
	m := map[string]any{"resource": resource, "authorization_servers": []string{f.base + f.o.issuerPath}}
	if f.o.prmScopes != nil {
		m["scopes_supported"] = f.o.prmScopes
	}
	return m
}

func (f *fakeAS) metadata() map[string]any {
	ep := f.base + f.ep()
	iss := f.issuer()
	if f.o.issuerOverride != "" {
		iss = f.o.issuerOverride
	}
	m := map[string]any{
		"issuer":                   iss,
		"authorization_endpoint":   ep + "/authorize",
		"token_endpoint":           ep + "/token",
		"response_types_supported": []string{"code"},
	}
	if !f.o.noDCR {
		m["registration_endpoint"] = ep + "/register"
	}
	if !f.o.noPKCE {
		m["code_challenge_methods_supported"] = []string{"S256"}
	}
	if f.o.authMethods != nil {
		m["token_endpoint_auth_methods_supported"] = f.o.authMethods
	}
	if f.o.cimd {
		m["client_id_metadata_document_supported"] = true
	}
	if f.o.issSupported {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if f.o.asScopes != nil {
		m["scopes_supported"] = f.o.asScopes
	}
	if f.o.revocation {
		m["revocation_endpoint"] = ep + "/revoke"
	}
	if f.o.device {
		m["device_authorization_endpoint"] = ep + "/device_authorization"
	}
	return m
}

func (f *fakeAS) mdPath() string {
	p := f.o.issuerPath
	switch f.o.mdAt {
	case "oidc":
		return "/.well-known/openid-configuration" + p
	case "oidc-append":
		return p + "/.well-known/openid-configuration"
	case "legacy":
		return "/.well-known/oauth-authorization-server"
	case "legacy-defaults":
		return "-none-"
	}
	return "/.well-known/oauth-authorization-server" + p
}

func (f *fakeAS) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths = append(f.paths, r.URL.Path)
	ep := f.ep()
	switch p := r.URL.Path; {
	case p == "/.well-known/oauth-protected-resource/mcp" && (f.o.prmAt == "path" || f.o.prmAt == "header"):
		writeJSON(w, 200, f.prm(f.base+"/mcp"))
	case p == "/.well-known/oauth-protected-resource" && f.o.prmAt == "root":
		writeJSON(w, 200, f.prm(f.base))
	case p == "/custom/prm" && f.o.prmAt == "custom":
		writeJSON(w, 200, f.prm(f.base+"/mcp"))
	case p == f.mdPath():
		writeJSON(w, 200, f.metadata())
	case p == ep+"/authorize":
		f.authorize(w, r)
	case p == ep+"/token":
		f.token(w, r)
	case p == ep+"/register" && !f.o.noDCR:
		f.register(w, r)
	case p == ep+"/revoke" && f.o.revocation:
		r.ParseForm()
		f.revoked = append(f.revoked, r.PostForm.Get("token"))
		delete(f.access, r.PostForm.Get("token"))
		delete(f.refreshes, r.PostForm.Get("token"))
		w.WriteHeader(200)
	case p == ep+"/device_authorization" && f.o.device:
		f.deviceAuthorization(w, r)
	case p == ep+"/device" && f.o.device:
		f.deviceVerify(w, r)
	case p == "/idp/token":
		f.idpToken(w, r)
	case p == "/mcp" || strings.HasPrefix(p, "/mcp/"):
		f.mcp(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeAS) challenge(extra string) string {
	parts := []string{}
	switch f.o.prmAt {
	case "header":
		parts = append(parts, fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, f.base))
	case "custom":
		parts = append(parts, fmt.Sprintf(`resource_metadata="%s/custom/prm"`, f.base))
	}
	if f.o.challengeScope != "" {
		parts = append(parts, fmt.Sprintf(`scope="%s"`, f.o.challengeScope))
	}
	if extra != "" {
		parts = append(parts, extra)
	}
	return "Bearer " + strings.Join(parts, ", ")
}

func (f *fakeAS) mcp(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	scopes, valid := f.access[tok]
	if !ok || !valid {
		w.Header().Set("WWW-Authenticate", f.challenge(`error="invalid_token"`))
		w.WriteHeader(401)
		return
	}
	for _, s := range f.o.requireScopes {
		if !slices.Contains(scopes, s) || f.o.alwaysForbid {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s"`, strings.Join(f.o.requireScopes, " ")))
			w.WriteHeader(403)
			return
		}
	}
	fmt.Fprint(w, "ok")
}

func (f *fakeAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.authReqs = append(f.authReqs, q)
	code := f.next("code")
	f.codes[code] = q
	ru, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect", 400)
		return
	}
	rq := ru.Query()
	rq.Set("code", code)
	rq.Set("state", q.Get("state"))
	switch f.o.issMode {
	case "correct":
		rq.Set("iss", f.issuer())
	case "wrong":
		rq.Set("iss", "https://evil.example.com")
	}
	ru.RawQuery = rq.Encode()
	http.Redirect(w, r, ru.String(), http.StatusFound)
}

func (f *fakeAS) register(w http.ResponseWriter, r *http.Request) {
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	f.regs = append(f.regs, m)
	id := f.next("client")
	secret := ""
	if !f.o.dcrNoSecret {
		secret = f.next("csecret")
	}
	f.clients[id] = secret
	resp := map[string]any{"client_id": id, "redirect_uris": m["redirect_uris"]}
	if secret != "" {
		resp["client_secret"] = secret
	}
	if f.o.dcrMethod != "" {
		resp["token_endpoint_auth_method"] = f.o.dcrMethod
	}
	writeJSON(w, 201, resp)
}

func tokenErr(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": "fake says no\x1b[31m"})
}

func (f *fakeAS) issue(w http.ResponseWriter, scopes []string) {
	at := f.next("access")
	f.access[at] = scopes
	resp := map[string]any{"access_token": at, "token_type": "Bearer"}
	if f.o.expiresIn != 0 {
		resp["expires_in"] = f.o.expiresIn
	}
	if len(scopes) > 0 {
		resp["scope"] = strings.Join(scopes, " ")
	}
	if f.o.refresh {
		rt := f.next("refresh")
		f.refreshes[rt] = scopes
		resp["refresh_token"] = rt
	}
	writeJSON(w, 200, resp)
}

func (f *fakeAS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		tokenErr(w, 400, "invalid_request")
		return
	}
	tr := tokenReq{form: r.PostForm, method: "none"}
	if id, secret, ok := r.BasicAuth(); ok {
		tr.method = "client_secret_basic"
		tr.basicID, _ = url.QueryUnescape(id)
		tr.basicSecret, _ = url.QueryUnescape(secret)
	} else if r.PostForm.Get("client_secret") != "" {
		tr.method = "client_secret_post"
	} else if r.PostForm.Get("client_assertion") != "" {
		tr.method = "private_key_jwt"
	}
	f.tokenReqs = append(f.tokenReqs, tr)
	if f.o.authMethods != nil && !slices.Contains(f.o.authMethods, tr.method) {
		tokenErr(w, 401, "invalid_client")
		return
	}
	// Client authentication.
	clientID := r.PostForm.Get("client_id")
	switch tr.method {
	case "client_secret_basic":
		clientID = tr.basicID
		if s, ok := f.clients[clientID]; !ok || s != tr.basicSecret {
			tokenErr(w, 401, "invalid_client")
			return
		}
	case "client_secret_post":
		if s, ok := f.clients[clientID]; !ok || s != r.PostForm.Get("client_secret") {
			tokenErr(w, 401, "invalid_client")
			return
		}
	case "private_key_jwt":
		if r.PostForm.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || !f.verifyAssertion(r.PostForm.Get("client_assertion"), clientID) {
			tokenErr(w, 401, "invalid_client")
			return
		}
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		q, ok := f.codes[r.PostForm.Get("code")]
		delete(f.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case !ok, base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge"),
			q.Get("redirect_uri") != r.PostForm.Get("redirect_uri"),
			q.Get("resource") != r.PostForm.Get("resource"),
			q.Get("client_id") != clientID && !(tr.method == "client_secret_basic" && q.Get("client_id") == tr.basicID):
			tokenErr(w, 400, "invalid_grant")
			return
		}
		f.issue(w, strings.Fields(q.Get("scope")))
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		scopes, ok := f.refreshes[rt]
		if !ok {
			tokenErr(w, 400, "invalid_grant")
			return
		}
		if f.o.rotate {
			delete(f.refreshes, rt)
			f.issue(w, scopes)
			return
		}
		at := f.next("access")
		f.access[at] = scopes
		writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "bearer", "expires_in": 3600})
	case "client_credentials":
		f.issue(w, strings.Fields(r.PostForm.Get("scope")))
	case GrantDeviceCode:
		f.deviceToken(w, r, clientID)
	case GrantJWTBearer:
		if tr.method != "client_secret_basic" || !f.jags[r.PostForm.Get("assertion")] {
			tokenErr(w, 400, "invalid_grant")
			return
		}
		f.issue(w, strings.Fields(r.PostForm.Get("scope")))
	default:
		tokenErr(w, 400, "unsupported_grant_type")
	}
}

func (f *fakeAS) idpToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	pf := r.PostForm
	if pf.Get("grant_type") != GrantTokenExchange || pf.Get("subject_token") != "idtoken-"+sentinel ||
		pf.Get("subject_token_type") != TokenTypeIDToken || pf.Get("requested_token_type") != TokenTypeIDJAG ||
		pf.Get("audience") != f.issuer() || pf.Get("resource") != f.base+"/mcp" || pf.Get("client_id") != "idp-client" {
		tokenErr(w, 400, "invalid_request")
		return
	}
	jag := f.next("jag")
	f.jags[jag] = true
	writeJSON(w, 200, map[string]any{"access_token": jag, "issued_token_type": TokenTypeIDJAG, "token_type": "N_A"})
}

// verifyAssertion checks a private_key_jwt assertion with crypto/ecdsa or
// crypto/rsa.
func (f *fakeAS) verifyAssertion(jwt, clientID string) bool {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return false
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	cb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return false
	}
	var h struct{ Alg string }
	var c struct {
		Iss, Sub, Aud, Jti string
		Iat, Exp           int64
	}
	if json.Unmarshal(hb, &h) != nil || json.Unmarshal(cb, &c) != nil {
		return false
	}
	if c.Iss != clientID || c.Sub != clientID || c.Aud != f.issuer() || c.Jti == "" || c.Exp <= c.Iat {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch h.Alg {
	case "ES256":
		if f.o.ecKey == nil || len(sig) != 64 {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(f.o.ecKey, sum[:], r, s)
	case "RS256":
		return f.o.rsaKey != nil && rsa.VerifyPKCS1v15(f.o.rsaKey, crypto.SHA256, sum[:], sig) == nil
	}
	return false
}
