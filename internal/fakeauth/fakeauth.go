// Package fakeauth is a test fixture: the demo MCP server behind a small
// OAuth authorization server (resource metadata, authorization server
// metadata, dynamic registration, PKCE authorization codes, refresh,
// revocation, and on demand the device authorization grant) on one
// httptest server, and Approve, a browser that approves at once. Every secret it hands out contains Leak, so that a
// test can check that none reached an output.
package fakeauth

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
)

// Leak is part of every secret the server hands out.
const Leak = "LEAKxyz"

// A Server is the MCP endpoint URL+"/mcp" behind its authorization
// server at URL. Lock Mu to read or change the fields below it.
type Server struct {
	URL  string // the base URL; the MCP endpoint is URL + "/mcp"
	srv  *httptest.Server
	demo *demo.HTTPHandler

	Mu         sync.Mutex
	AuthScopes [][]string // the scope of each authorization request
	Refreshes  int        // refresh_token grants
	Revoked    int        // revocation requests
	Registered int        // dynamic registrations
	// NeedScope, when set, is a scope tools/call needs (403
	// insufficient_scope otherwise); NeverGrant is a scope never granted.
	NeedScope, NeverGrant string
	// Device offers the device authorization grant (RFC 8628) at
	// /device_authorization, polled every DeviceInterval seconds (default
	// 1), its codes valid DeviceExpiresIn seconds (default 600), its
	// verification page at VerificationURI (default URL+"/device"; see
	// Act). The DevicePolls-th poll of a code answers slow_down when it
	// is SlowDownAt.
	Device          bool
	DeviceInterval  int
	DeviceExpiresIn int
	VerificationURI string
	SlowDownAt      int
	UserCode        string   // when set, the user code handed out (a hostile one)
	DevicePolls     int      // polls of the token endpoint, all codes
	UserCodes       []string // the user codes handed out, in order
	devices         map[string]*device
	polled          chan struct{}

	access  map[string][]string // access token -> scopes
	refresh map[string][]string
	codes   map[string][3]string // code -> challenge, scope, redirect_uri
	n       int
}

// New starts a Server, closed when t ends.
func New(t testing.TB) *Server {
	f := Start()
	t.Cleanup(f.Close)
	return f
}

// Close stops the server.
func (f *Server) Close() {
	f.srv.Close()
	f.demo.Close()
}

// Start starts a Server; Close stops it.
func Start() *Server {
	f := &Server{access: map[string][]string{}, refresh: map[string][]string{}, codes: map[string][3]string{},
		devices: map[string]*device{}, polled: make(chan struct{}, 1)}
	h := demo.NewHTTPHandler(demo.Options{})
	f.demo = h
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": f.URL + "/mcp", "authorization_servers": []string{f.URL},
			"scopes_supported": []string{"mcp:read"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		md := map[string]any{"issuer": f.URL, "authorization_endpoint": f.URL + "/authorize",
			"token_endpoint": f.URL + "/token", "registration_endpoint": f.URL + "/register",
			"revocation_endpoint": f.URL + "/revoke", "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_post"}}
		f.Mu.Lock()
		if f.Device {
			md["device_authorization_endpoint"] = f.URL + "/device_authorization"
		}
		f.Mu.Unlock()
		writeJSON(w, md)
	})
	mux.HandleFunc("/device_authorization", f.deviceAuthorization)
	mux.HandleFunc("/device", f.verify)
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.Mu.Lock()
		f.Registered++
		f.Mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": "client-1", "client_secret": "csecret-" + Leak,
			"token_endpoint_auth_method": "client_secret_post", "redirect_uris": req["redirect_uris"]})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		f.Mu.Lock()
		f.n++
		code := fmt.Sprintf("code-%s-%d", Leak, f.n)
		f.codes[code] = [3]string{q.Get("code_challenge"), q.Get("scope"), q.Get("redirect_uri")}
		f.AuthScopes = append(f.AuthScopes, strings.Fields(q.Get("scope")))
		f.Mu.Unlock()
		u, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", f.token)
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) {
		f.Mu.Lock()
		f.Revoked++
		f.Mu.Unlock()
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		meta := f.URL + "/.well-known/oauth-protected-resource/mcp"
		f.Mu.Lock()
		scopes, ok := f.access[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		need := f.NeedScope
		f.Mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`", scope="mcp:read"`)
			http.Error(w, "token required", http.StatusUnauthorized)
			return
		}
		if need != "" && r.Method == http.MethodPost && !slices.Contains(scopes, need) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if strings.Contains(string(body), `"tools/call"`) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:read `+need+`", resource_metadata="`+meta+`"`)
				http.Error(w, "more scope needed", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
	// The handlers read f.URL: set it before the first request can come
	// (from another process, whose order the race detector cannot see).
	f.srv = httptest.NewUnstartedServer(mux)
	f.URL = "http://" + f.srv.Listener.Addr().String()
	f.srv.Start()
	return f
}

// token is the token endpoint: authorization_code (PKCE checked) and
// refresh_token grants.
func (f *Server) token(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if r.PostForm.Get("client_secret") != "csecret-"+Leak {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]any{"error": "invalid_client"})
		return
	}
	var scopes []string
	switch r.PostForm.Get("grant_type") {
	case "urn:ietf:params:oauth:grant-type:device_code":
		var ok bool
		if scopes, ok = f.devicePoll(w, r); !ok {
			return
		}
	case "authorization_code":
		c, ok := f.codes[r.PostForm.Get("code")]
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		// RFC 6749 section 4.1.3: the redirect_uri of the authorization
		// request, again.
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c[0] || r.PostForm.Get("redirect_uri") != c[2] {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		delete(f.codes, r.PostForm.Get("code"))
		scopes = slices.DeleteFunc(strings.Fields(c[1]), func(s string) bool { return s == f.NeverGrant })
	case "refresh_token":
		s, ok := f.refresh[r.PostForm.Get("refresh_token")]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		f.Refreshes++
		scopes = s
	}
	f.n++
	at, rt := fmt.Sprintf("at-%s-%d", Leak, f.n), fmt.Sprintf("rt-%s-%d", Leak, f.n)
	f.access[at], f.refresh[rt] = scopes, scopes
	writeJSON(w, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer",
		"expires_in": 3600, "scope": strings.Join(scopes, " ")})
}

// RevokeAll forgets every access and refresh token it handed out, as an
// authorization server does when the user withdraws the grant.
func (f *Server) RevokeAll() {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	clear(f.access)
	clear(f.refresh)
}

// ExpireAccess forgets every access token it handed out and keeps the
// refresh tokens, as when access tokens expire before the client thinks.
func (f *Server) ExpireAccess() {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	clear(f.access)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Approve is a browser that approves at once: it fetches the
// authorization URL without following the redirect, and delivers the
// redirect to the loopback callback.
func Approve(authURL string) error {
	loc, err := Redirected(authURL)
	if err != nil {
		return err
	}
	resp, err := noRedirects().Get(loc)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// Redirected fetches the authorization URL like a person's browser on
// another machine and returns the address it was sent back to (what the
// person pastes).
func Redirected(authURL string) (string, error) {
	resp, err := noRedirects().Get(authURL)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", errors.New("fakeauth: the authorization endpoint did not redirect")
	}
	return loc, nil
}

// noRedirects is the client of Approve and Redirected.
func noRedirects() *http.Client {
	return &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
