package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// browser returns an OpenBrowser that GETs the authorization URL without
// following the redirect and delivers the redirect to the callback, after
// mutate (if any) changed its query.
func browser(t *testing.T, mutate func(url.Values)) func(string) error {
	return func(authURL string) error {
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(authURL)
		if err != nil {
			return err
		}
		resp.Body.Close()
		loc, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || loc.Host == "" {
			t.Errorf("authorization answered %d without a usable Location", resp.StatusCode)
			return nil
		}
		if mutate != nil {
			q := loc.Query()
			mutate(q)
			loc.RawQuery = q.Encode()
		}
		resp, err = http.Get(loc.String())
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil
	}
}

type testEnv struct {
	f     *fakeAS
	store *Store
	logs  []string
}

func newEnv(t *testing.T, o fakeOpts) *testEnv {
	return &testEnv{f: newFakeAS(t, o), store: NewStore(t.TempDir())}
}

func (e *testEnv) logf(format string, args ...any) {
	e.logs = append(e.logs, sprintf(format, args...))
}

func (e *testEnv) loginOpts(t *testing.T) LoginOptions {
	return LoginOptions{
		ServerURL:   e.f.serverURL(),
		OpenBrowser: browser(t, nil),
		Store:       e.store,
		ServerName:  "srv",
		Logf:        e.logf,
		Timeout:     30 * time.Second,
	}
}

// challenge401 returns the WWW-Authenticate values of an unauthenticated
// request to /mcp.
func (e *testEnv) challenge401(t *testing.T) []string {
	resp, err := http.Post(e.f.serverURL(), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("unauthenticated request: status %d", resp.StatusCode)
	}
	return resp.Header.Values("WWW-Authenticate")
}

// use sends a request to /mcp through a Transport on the stored record.
func (e *testEnv) use(t *testing.T) (*http.Response, error) {
	t.Helper()
	rec, _, err := e.store.Load("srv")
	if err != nil || rec == nil {
		t.Fatalf("loading record: %v", err)
	}
	checkMode(t, e.store.Path("srv"))
	src := NewStoreSource(nil, e.store, "srv", rec)
	c := &http.Client{Transport: &Transport{Source: src, Resource: rec.Resource}}
	resp, err := c.Post(e.f.serverURL(), "application/json", strings.NewReader("{}"))
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// The layer above the Transport says what a 401 or 403 means.
		err = AuthError(resp.StatusCode, resp.Header, rec.Token.Scopes())
	}
	return resp, err
}

func checkMode(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %04o, want 0600", path, fi.Mode().Perm())
	}
}

func TestLoginVariants(t *testing.T) {
	tests := []struct {
		name        string
		o           fakeOpts
		edit        func(*LoginOptions)
		noChallenge bool
		wantMethod  string   // client auth at the token endpoint
		wantScope   *string  // nil = not checked; "" = omitted
		wantPaths   []string // must have been requested
		trapPaths   []string // must not
		wantDCR     bool
		wantClient  string
	}{
		{name: "prm-header-as-root", o: fakeOpts{prmAt: "header", mdAt: "oauth"}, wantMethod: "client_secret_basic", wantDCR: true,
			wantPaths: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"},
			trapPaths: []string{"/.well-known/oauth-protected-resource"}},
		{name: "prm-path-oidc", o: fakeOpts{prmAt: "path", mdAt: "oidc"}, noChallenge: true, wantMethod: "client_secret_basic", wantDCR: true,
			wantPaths: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/openid-configuration"}},
		{name: "prm-root-issuer-path", o: fakeOpts{prmAt: "root", mdAt: "oauth", issuerPath: "/t1"}, wantMethod: "client_secret_basic", wantDCR: true,
			wantPaths: []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server/t1"},
			trapPaths: []string{"/.well-known/oauth-authorization-server"}},
		{name: "prm-custom-oidc-insert", o: fakeOpts{prmAt: "custom", mdAt: "oidc", issuerPath: "/t1"}, wantMethod: "client_secret_basic", wantDCR: true,
			wantPaths: []string{"/custom/prm", "/.well-known/openid-configuration/t1"}},
		{name: "prm-custom-oidc-append", o: fakeOpts{prmAt: "custom", mdAt: "oidc-append", issuerPath: "/t1"}, wantMethod: "client_secret_basic", wantDCR: true,
			wantPaths: []string{"/custom/prm", "/t1/.well-known/openid-configuration"},
			trapPaths: []string{"/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp"}},
		{name: "legacy-metadata", o: fakeOpts{prmAt: "none", mdAt: "legacy", authMethods: []string{"none"}}, wantMethod: "none", wantDCR: true,
			wantPaths: []string{"/.well-known/oauth-authorization-server", "/oauth/register", "/oauth/authorize", "/oauth/token"}},
		{name: "legacy-defaults", o: fakeOpts{prmAt: "none", mdAt: "legacy-defaults"}, wantMethod: "client_secret_basic", wantDCR: true,
			wantPaths: []string{"/register", "/authorize", "/token"}},
		{name: "cimd", o: fakeOpts{prmAt: "header", mdAt: "oauth", cimd: true, authMethods: []string{"none"}}, wantMethod: "none",
			edit:       func(o *LoginOptions) { o.ClientMetadataURL = "https://conformance-test.local/client-metadata.json" },
			wantClient: "https://conformance-test.local/client-metadata.json"},
		{name: "pre-registered", o: fakeOpts{prmAt: "header", mdAt: "oauth", noDCR: true, authMethods: []string{"client_secret_basic"}, clientID: "pre-client", clientSecret: "pre-" + sentinel},
			edit:       func(o *LoginOptions) { o.ClientID, o.ClientSecret = "pre-client", "pre-"+sentinel },
			wantMethod: "client_secret_basic", wantClient: "pre-client"},
		{name: "dcr-basic", o: fakeOpts{prmAt: "header", mdAt: "oauth", authMethods: []string{"client_secret_basic"}, dcrMethod: "client_secret_basic"}, wantMethod: "client_secret_basic", wantDCR: true},
		{name: "dcr-post", o: fakeOpts{prmAt: "header", mdAt: "oauth", authMethods: []string{"client_secret_post"}, dcrMethod: "client_secret_post"}, wantMethod: "client_secret_post", wantDCR: true},
		{name: "dcr-none", o: fakeOpts{prmAt: "header", mdAt: "oauth", authMethods: []string{"none"}, dcrMethod: "none", dcrNoSecret: true}, wantMethod: "none", wantDCR: true},
		{name: "scope-from-challenge", o: fakeOpts{prmAt: "header", mdAt: "oauth", challengeScope: "mcp:basic", prmScopes: []string{"a", "b"}}, wantMethod: "client_secret_basic", wantDCR: true, wantScope: ptr("mcp:basic")},
		{name: "scope-from-prm", o: fakeOpts{prmAt: "header", mdAt: "oauth", prmScopes: []string{"mcp:basic", "mcp:read", "mcp:write"}}, wantMethod: "client_secret_basic", wantDCR: true, wantScope: ptr("mcp:basic mcp:read mcp:write")},
		{name: "scope-omitted", o: fakeOpts{prmAt: "header", mdAt: "oauth"}, wantMethod: "client_secret_basic", wantDCR: true, wantScope: ptr("")},
		{name: "offline-access", o: fakeOpts{prmAt: "header", mdAt: "oauth", prmScopes: []string{"mcp:basic"}, asScopes: []string{"mcp:basic", "offline_access"}}, wantMethod: "client_secret_basic", wantDCR: true, wantScope: ptr("mcp:basic offline_access")},
		{name: "offline-access-not-supported", o: fakeOpts{prmAt: "header", mdAt: "oauth", prmScopes: []string{"mcp:basic", "offline_access"}, asScopes: []string{"mcp:basic"}}, wantMethod: "client_secret_basic", wantDCR: true, wantScope: ptr("mcp:basic")},
		{name: "iss-correct-required", o: fakeOpts{prmAt: "header", mdAt: "oauth", issSupported: true, issMode: "correct"}, wantMethod: "client_secret_basic", wantDCR: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.o)
			opts := e.loginOpts(t)
			if !tt.noChallenge {
				opts.Challenge = e.challenge401(t)
			}
			if tt.edit != nil {
				tt.edit(&opts)
			}
			tok, err := Login(context.Background(), opts)
			if err != nil {
				t.Fatalf("Login: %v", err)
			}
			if tok.AccessToken == "" {
				t.Fatal("no access token")
			}
			f := e.f
			if len(f.authReqs) != 1 || len(f.tokenReqs) != 1 {
				t.Fatalf("%d authorization and %d token requests, want 1 each", len(f.authReqs), len(f.tokenReqs))
			}
			aq, tr := f.authReqs[0], f.tokenReqs[0]
			if tr.method != tt.wantMethod {
				t.Errorf("token endpoint auth %s, want %s", tr.method, tt.wantMethod)
			}
			if aq.Get("code_challenge_method") != "S256" || aq.Get("response_type") != "code" || aq.Get("state") == "" {
				t.Errorf("authorization request lacks PKCE/state: %v", aq)
			}
			wantRes := f.base + "/mcp"
			if tt.o.prmAt == "root" {
				wantRes = f.base
			}
			if aq.Get("resource") != wantRes || tr.form.Get("resource") != wantRes {
				t.Errorf("resource %q / %q, want %q", aq.Get("resource"), tr.form.Get("resource"), wantRes)
			}
			if tt.wantScope != nil {
				_, has := aq["scope"]
				if *tt.wantScope == "" && has {
					t.Errorf("scope sent: %q", aq.Get("scope"))
				}
				if *tt.wantScope != "" && aq.Get("scope") != *tt.wantScope {
					t.Errorf("scope %q, want %q", aq.Get("scope"), *tt.wantScope)
				}
			}
			if (len(f.regs) > 0) != tt.wantDCR {
				t.Errorf("%d registrations, want DCR=%v", len(f.regs), tt.wantDCR)
			}
			if len(f.regs) > 0 {
				r := f.regs[0]
				if r["client_name"] != "mcpwire" || !slices.Equal(anyStrings(r["grant_types"]), []string{"authorization_code", "refresh_token"}) {
					t.Errorf("registration body %v", r)
				}
			}
			if tt.wantClient != "" && aq.Get("client_id") != tt.wantClient {
				t.Errorf("client_id %q, want %q", aq.Get("client_id"), tt.wantClient)
			}
			for _, p := range tt.wantPaths {
				if !f.requested(p) {
					t.Errorf("%s not requested; requested %v", p, f.paths)
				}
			}
			for _, p := range tt.trapPaths {
				if f.requested(p) {
					t.Errorf("trap %s requested", p)
				}
			}
			resp, err := e.use(t)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("using the token: %v %v", resp, err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestLoginRefusals(t *testing.T) {
	tests := []struct {
		name        string
		o           fakeOpts
		mutate      func(url.Values)
		edit        func(*LoginOptions)
		wantErr     func(error) bool
		wantAuthReq bool // an authorization request was made
	}{
		{name: "no-pkce", o: fakeOpts{prmAt: "header", mdAt: "oauth", noPKCE: true},
			wantErr: func(err error) bool { return errors.Is(err, ErrPKCEUnsupported) }},
		{name: "resource-mismatch", o: fakeOpts{prmAt: "header", mdAt: "oauth", prmResource: "https://evil.example.com/mcp"},
			wantErr: func(err error) bool { var e *ResourceMismatchError; return errors.As(err, &e) }},
		{name: "resource-other-path", o: fakeOpts{prmAt: "path", mdAt: "oauth", prmResource: "http://127.0.0.1/other"},
			wantErr: func(err error) bool { var e *ResourceMismatchError; return errors.As(err, &e) }},
		{name: "issuer-mismatch-metadata", o: fakeOpts{prmAt: "header", mdAt: "oauth", issuerOverride: "https://honest.example"},
			wantErr: func(err error) bool { var e *IssuerMismatchError; return errors.As(err, &e) }},
		{name: "wrong-state", o: fakeOpts{prmAt: "header", mdAt: "oauth"}, mutate: func(q url.Values) { q.Set("state", "forged") }, wantAuthReq: true,
			wantErr: func(err error) bool {
				var e *AuthorizationError
				return errors.As(err, &e) && e.Code == "state_mismatch"
			}},
		{name: "wrong-iss", o: fakeOpts{prmAt: "header", mdAt: "oauth", issSupported: true, issMode: "wrong"}, wantAuthReq: true,
			wantErr: func(err error) bool { var e *IssuerMismatchError; return errors.As(err, &e) }},
		{name: "wrong-iss-unadvertised", o: fakeOpts{prmAt: "header", mdAt: "oauth", issMode: "wrong"}, wantAuthReq: true,
			wantErr: func(err error) bool { var e *IssuerMismatchError; return errors.As(err, &e) }},
		{name: "iss-missing", o: fakeOpts{prmAt: "header", mdAt: "oauth", issSupported: true}, wantAuthReq: true,
			wantErr: func(err error) bool { var e *IssuerMismatchError; return errors.As(err, &e) }},
		{name: "no-client-id", o: fakeOpts{prmAt: "header", mdAt: "oauth", noDCR: true},
			wantErr: func(err error) bool { return errors.Is(err, ErrNoClientID) }},
		{name: "as-error", o: fakeOpts{prmAt: "header", mdAt: "oauth"}, wantAuthReq: true,
			mutate: func(q url.Values) { q.Del("code"); q.Set("error", "access_denied") },
			wantErr: func(err error) bool {
				var e *AuthorizationError
				return errors.As(err, &e) && e.Code == "access_denied"
			}},
		{name: "token-error", o: fakeOpts{prmAt: "header", mdAt: "oauth"}, wantAuthReq: true,
			mutate: func(q url.Values) { q.Set("code", "bogus-"+sentinel) },
			wantErr: func(err error) bool {
				var e *TokenError
				return errors.As(err, &e) && e.Code == "invalid_grant" && !strings.ContainsRune(e.Description, 0x1b)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.o)
			opts := e.loginOpts(t)
			opts.Challenge = e.challenge401(t)
			opts.OpenBrowser = browser(t, tt.mutate)
			if tt.edit != nil {
				tt.edit(&opts)
			}
			_, err := Login(context.Background(), opts)
			if err == nil || !tt.wantErr(err) {
				t.Fatalf("Login error %v (%T)", err, err)
			}
			if got := len(e.f.authReqs) > 0; got != tt.wantAuthReq {
				t.Errorf("authorization request made: %v, want %v", got, tt.wantAuthReq)
			}
			if tt.wantAuthReq && tt.name != "token-error" && len(e.f.tokenReqs) != 0 {
				t.Errorf("token request made after a rejected authorization response")
			}
			noToken(t, e.store, "srv", "after a failed login")
		})
	}
}

func TestPasteMode(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth"})
	opts := e.loginOpts(t)
	var loc string
	opts.OpenBrowser = func(authURL string) error {
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(authURL)
		if err != nil {
			return err
		}
		resp.Body.Close()
		loc = resp.Header.Get("Location")
		return nil
	}
	opts.ReadPastedURL = func() (string, error) { return "  " + loc + "\n", nil }
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if resp, err := e.use(t); err != nil || resp.StatusCode != 200 {
		t.Fatalf("using the token: %v", err)
	}
}

func TestRegistrationReuse(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth"})
	for i := 0; i < 2; i++ {
		if _, err := Login(context.Background(), e.loginOpts(t)); err != nil {
			t.Fatalf("Login %d: %v", i, err)
		}
		checkMode(t, e.store.Path("srv"))
	}
	if len(e.f.regs) != 1 {
		t.Errorf("%d registrations for two logins at one issuer, want 1", len(e.f.regs))
	}
	// Another issuer: the stored registration must not be used there
	// (nor the one kept for the real issuer, forgotten here).
	rec, _, _ := e.store.Load("srv")
	if err := e.store.DeleteClient(rec.Client.Issuer); err != nil {
		t.Fatal(err)
	}
	rec.Client.Issuer = "https://other.example"
	if err := e.store.Save("srv", rec); err != nil {
		t.Fatal(err)
	}
	if _, err := Login(context.Background(), e.loginOpts(t)); err != nil {
		t.Fatalf("Login: %v", err)
	}
	if len(e.f.regs) != 2 {
		t.Errorf("registration reused with another issuer")
	}
}

// TestRegistrationKeptAcrossLogout: a logout forgets the tokens, not the
// registered client: the next login at the same issuer reuses it.
func TestRegistrationKeptAcrossLogout(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth"})
	if _, err := Login(context.Background(), e.loginOpts(t)); err != nil {
		t.Fatal(err)
	}
	rec, _, _ := e.store.Load("srv")
	if err := Logout(context.Background(), http.DefaultClient, e.store, "srv"); err != nil {
		t.Fatal(err)
	}
	noToken(t, e.store, "srv", "after the logout")
	kept := e.store.LoadClient(rec.Client.Issuer)
	if kept == nil || kept.ClientID != rec.Client.ClientID {
		t.Fatalf("the registration was not kept: %+v", kept)
	}
	checkMode(t, e.store.clientPath(rec.Client.Issuer))
	if _, err := Login(context.Background(), e.loginOpts(t)); err != nil {
		t.Fatal(err)
	}
	if len(e.f.regs) != 1 {
		t.Errorf("%d registrations across a logout, want 1", len(e.f.regs))
	}
	if r, _, _ := e.store.Load("srv"); r == nil || r.Client.ClientID != rec.Client.ClientID {
		t.Errorf("the second login did not use the kept client")
	}
}

func TestRefresh(t *testing.T) {
	ctx := context.Background()
	t.Run("rotation-before-expiry", func(t *testing.T) {
		e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", refresh: true, rotate: true, expiresIn: 30})
		if _, err := Login(ctx, e.loginOpts(t)); err != nil {
			t.Fatal(err)
		}
		before, _, _ := e.store.Load("srv")
		resp, err := e.use(t) // 30s < 60s skew: refreshed first
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("use: %v", err)
		}
		after, _, _ := e.store.Load("srv")
		checkMode(t, e.store.Path("srv"))
		if after.Token.RefreshToken == before.Token.RefreshToken || after.Token.AccessToken == before.Token.AccessToken {
			t.Error("rotated tokens not persisted")
		}
		if got := e.f.tokenReqs[len(e.f.tokenReqs)-1].form.Get("resource"); got != before.Resource {
			t.Errorf("refresh resource %q", got)
		}
	})
	t.Run("refresh-on-401-keeps-unrotated", func(t *testing.T) {
		e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", refresh: true, expiresIn: 3600})
		if _, err := Login(ctx, e.loginOpts(t)); err != nil {
			t.Fatal(err)
		}
		before, _, _ := e.store.Load("srv")
		e.f.mu.Lock()
		delete(e.f.access, before.Token.AccessToken) // server forgets it
		e.f.mu.Unlock()
		resp, err := e.use(t)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("use: %v", err)
		}
		after, _, _ := e.store.Load("srv")
		if after.Token.RefreshToken != before.Token.RefreshToken {
			t.Error("unrotated refresh token not kept")
		}
	})
	t.Run("expired-refresh-token", func(t *testing.T) {
		e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", refresh: true, expiresIn: 10})
		if _, err := Login(ctx, e.loginOpts(t)); err != nil {
			t.Fatal(err)
		}
		e.f.mu.Lock()
		clear(e.f.refreshes)
		e.f.mu.Unlock()
		_, err := e.use(t)
		if !errors.Is(err, ErrLoginRequired) {
			t.Fatalf("error %v, want ErrLoginRequired", err)
		}
	})
	t.Run("no-refresh-token", func(t *testing.T) {
		e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", expiresIn: 3600})
		if _, err := Login(ctx, e.loginOpts(t)); err != nil {
			t.Fatal(err)
		}
		rec, _, _ := e.store.Load("srv")
		e.f.mu.Lock()
		delete(e.f.access, rec.Token.AccessToken)
		e.f.mu.Unlock()
		_, err := e.use(t)
		var lr *LoginRequiredError
		if !errors.As(err, &lr) || len(lr.Challenges) == 0 || lr.Challenges[0].ResourceMetadata() == "" {
			t.Fatalf("error %v, want *LoginRequiredError with the challenge", err)
		}
		if st, _ := e.store.Status("srv", time.Now().Add(2*time.Hour)); st != StatusExpired {
			t.Errorf("status %v, want expired", st)
		}
	})
}

func TestStepUp(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", challengeScope: "mcp:basic", requireScopes: []string{"mcp:basic", "mcp:write"}})
	var attempts Attempts
	var requested [][]string
	authorize := func(ctx context.Context, scopes []string, chs []Challenge) error {
		opts := e.loginOpts(t)
		opts.Scopes = scopes
		requested = append(requested, scopes)
		_, err := Login(ctx, opts)
		return err
	}
	op := func(ctx context.Context) error {
		rec, _, _ := e.store.Load("srv")
		var src TokenSource = NewStoreSource(nil, e.store, "srv", rec)
		c := &http.Client{Transport: &Transport{Source: src, Resource: e.f.serverURL()}}
		resp, err := c.Get(e.f.serverURL())
		if err != nil {
			return err
		}
		resp.Body.Close()
		var held []string
		if rec != nil {
			held = rec.Token.Scopes()
		}
		return AuthError(resp.StatusCode, resp.Header, held)
	}
	if err := WithStepUp(ctx, &attempts, authorize, op); err != nil {
		t.Fatalf("WithStepUp: %v", err)
	}
	if attempts.Count() != 2 || !slices.Equal(requested[0], []string{"mcp:basic"}) || !slices.Equal(requested[1], []string{"mcp:basic", "mcp:write"}) {
		t.Errorf("attempts %d, scopes %v", attempts.Count(), requested)
	}

	// A server that never is satisfied: at most 3 authorizations.
	e2 := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", requireScopes: []string{"mcp:write"}, alwaysForbid: true})
	e = e2
	requested = nil
	attempts = Attempts{}
	err := WithStepUp(ctx, &attempts, authorize, op)
	if !errors.Is(err, ErrTooManyAttempts) || len(e2.f.authReqs) != 3 {
		t.Fatalf("error %v after %d authorization requests, want ErrTooManyAttempts after 3", err, len(e2.f.authReqs))
	}
}

func TestTransportScope(t *testing.T) {
	var got []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.URL.String()+" "+r.Header.Get("Authorization"))
		return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	})
	rec := &Record{Resource: "https://mcp.example.com/api", Token: &Token{AccessToken: "at-" + sentinel}}
	c := &http.Client{Transport: &Transport{Base: base, Source: NewStoreSource(nil, nil, "x", rec), Resource: rec.Resource}}
	for _, u := range []string{"https://mcp.example.com/api", "https://mcp.example.com/api/x", "https://mcp.example.com/apix", "https://evil.example.com/api", "http://mcp.example.com/api", "https://mcp.example.com:444/api"} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := []bool{true, true, false, false, false, false}
	for i, g := range got {
		if strings.Contains(g, "Bearer") != want[i] {
			t.Errorf("%s: bearer=%v, want %v", g[:strings.IndexByte(g, ' ')], !want[i], want[i])
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestLogoutRevokes(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", refresh: true, revocation: true})
	if _, err := Login(context.Background(), e.loginOpts(t)); err != nil {
		t.Fatal(err)
	}
	if err := Logout(context.Background(), nil, e.store, "srv"); err != nil {
		t.Fatalf("Logout: %v", err)
	}
	if len(e.f.revoked) != 2 {
		t.Errorf("%d tokens revoked, want 2", len(e.f.revoked))
	}
	if _, err := os.Stat(e.store.Path("srv")); !os.IsNotExist(err) {
		t.Error("token file still there")
	}
}

func TestStore(t *testing.T) {
	s := NewStore(t.TempDir())
	now := time.Now()
	if st, _ := s.Status("a/b", now); st != StatusNotAuthenticated {
		t.Errorf("missing: %v", st)
	}
	if got := FileName("../x y"); strings.ContainsAny(got, "/ ") || strings.HasPrefix(got, ".") {
		t.Errorf("FileName %q", got)
	}
	cases := []struct {
		tok  *Token
		want Status
	}{
		{&Token{AccessToken: "a"}, StatusAuthenticated},
		{&Token{AccessToken: "a", Expiry: now.Add(-time.Hour)}, StatusExpired},
		{&Token{AccessToken: "a", RefreshToken: "r", Expiry: now.Add(-time.Hour)}, StatusRefreshable},
	}
	for _, c := range cases {
		if err := s.Save("a/b", &Record{Resource: "https://x", TokenEndpoint: "https://x/token", Token: c.tok}); err != nil {
			t.Fatal(err)
		}
		checkMode(t, s.Path("a/b"))
		if fi, _ := os.Stat(s.Dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %04o", fi.Mode().Perm())
		}
		if st, warn := s.Status("a/b", now); st != c.want || warn != "" {
			t.Errorf("status %v (warning %q), want %v", st, warn, c.want)
		}
	}
	os.Chmod(s.Path("a/b"), 0o644)
	if _, warn, err := s.Load("a/b"); err != nil || warn == "" {
		t.Errorf("no warning for mode 0644 (err %v)", err)
	}
	os.WriteFile(s.Path("a/b"), []byte("{bad"), 0o600)
	if st, _ := s.Status("a/b", now); st != StatusInvalid {
		t.Errorf("bad file: %v", st)
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if err := s.Delete("a/b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("a/b"); err != nil {
		t.Fatal(err)
	}
	_ = filepath.Join
}

// TestTransportKeepsRoundTripperContract: a 401 and a 403 come back as
// responses, whether a token was sent or not, after one refresh for a 401
// to a token; AuthError then says what they mean. An error is returned
// only when no answer was had.
func TestTransportKeepsRoundTripperContract(t *testing.T) {
	var sent []string
	status := http.StatusUnauthorized
	challenge := `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="a"`
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.Header.Get("Authorization"))
		h := http.Header{}
		h.Set("WWW-Authenticate", challenge)
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader("no")), Request: r}, nil
	})
	resource := "https://mcp.example.com/api"
	for _, tc := range []struct {
		name string
		rec  *Record
		want int // requests sent
	}{
		{"no token", nil, 1},
		// A token without a refresh token: the 401 is the answer.
		{"token", &Record{Resource: resource, Token: &Token{AccessToken: "at-" + sentinel, Scope: "a"}}, 1},
	} {
		sent = nil
		status = http.StatusUnauthorized
		c := &http.Client{Transport: &Transport{Base: base, Source: NewStoreSource(nil, nil, "x", tc.rec), Resource: resource}}
		resp, err := c.Post(resource, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatalf("%s: 401 came back as an error: %v", tc.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 || len(sent) != tc.want {
			t.Fatalf("%s: status %d after %d requests, want 401 after %d", tc.name, resp.StatusCode, len(sent), tc.want)
		}
		var lr *LoginRequiredError
		if err := AuthError(resp.StatusCode, resp.Header, nil); !errors.As(err, &lr) || len(lr.Challenges) != 1 || lr.Challenges[0].ResourceMetadata() == "" {
			t.Fatalf("%s: AuthError(401) = %v", tc.name, err)
		}

		sent = nil
		status = http.StatusForbidden
		challenge = `Bearer error="insufficient_scope", scope="a b"`
		resp, err = c.Post(resource, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatalf("%s: 403 came back as an error: %v", tc.name, err)
		}
		resp.Body.Close()
		var su *StepUpError
		if err := AuthError(resp.StatusCode, resp.Header, []string{"c"}); !errors.As(err, &su) ||
			strings.Join(su.Scopes, " ") != "c a b" || strings.Join(su.Required, " ") != "a b" {
			t.Fatalf("%s: AuthError(403) = %v", tc.name, err)
		}
		challenge = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="a"`
	}
	if err := AuthError(http.StatusForbidden, http.Header{}, nil); err != nil {
		t.Fatalf("a bare 403 is no step-up: %v", err)
	}
	if err := AuthError(http.StatusOK, http.Header{}, nil); err != nil {
		t.Fatalf("AuthError(200) = %v", err)
	}
}

// noToken fails t unless the store holds no token file for server: a
// Load that fails (a file that is there but cannot be read) is no proof
// that none is left.
func noToken(t *testing.T, s *Store, server, when string) {
	t.Helper()
	rec, _, err := s.Load(server)
	switch {
	case err != nil:
		t.Errorf("%s: the token file cannot be read, so it is there: %v", when, err)
	case rec != nil:
		t.Errorf("%s: a token file is left", when)
	}
}
