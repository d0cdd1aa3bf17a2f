package oauth

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestSecretsNeverShown runs succeeding and failing flows and checks that no
// error string and no log line holds a token, code, verifier, state, client
// secret or ID token.
func TestSecretsNeverShown(t *testing.T) {
	ctx := context.Background()
	var outputs []string
	var secrets []string
	collect := func(e *testEnv, err error) {
		if err != nil {
			outputs = append(outputs, err.Error())
		}
		outputs = append(outputs, e.logs...)
		e.f.mu.Lock()
		for _, q := range e.f.authReqs {
			secrets = append(secrets, q.Get("state"), q.Get("code_challenge"))
		}
		for _, tr := range e.f.tokenReqs {
			secrets = append(secrets, tr.form.Get("code_verifier"), tr.form.Get("code"), tr.form.Get("client_assertion"))
		}
		e.f.mu.Unlock()
	}
	flows := []struct {
		o      fakeOpts
		mutate func(url.Values)
		edit   func(*LoginOptions)
	}{
		{o: fakeOpts{prmAt: "header", mdAt: "oauth", refresh: true}},
		{o: fakeOpts{prmAt: "header", mdAt: "oauth"}, mutate: func(q url.Values) { q.Set("state", "forged-"+sentinel) }},
		{o: fakeOpts{prmAt: "header", mdAt: "oauth", issMode: "wrong"}},
		{o: fakeOpts{prmAt: "header", mdAt: "oauth"}, mutate: func(q url.Values) { q.Set("code", "bogus-"+sentinel) }},
		{o: fakeOpts{prmAt: "header", mdAt: "oauth"}, mutate: func(q url.Values) { q.Set("error", "access_denied") }},
		{o: fakeOpts{prmAt: "header", mdAt: "oauth", noDCR: true, authMethods: []string{"client_secret_post"}, clientID: "c", clientSecret: "other"},
			edit: func(o *LoginOptions) { o.ClientID, o.ClientSecret = "c", "pre-"+sentinel }},
	}
	for _, fl := range flows {
		e := newEnv(t, fl.o)
		opts := e.loginOpts(t)
		opts.Challenge = e.challenge401(t)
		opts.OpenBrowser = browser(t, fl.mutate)
		if fl.edit != nil {
			fl.edit(&opts)
		}
		_, err := Login(ctx, opts)
		collect(e, err)
		if err == nil {
			// Refresh failure and a 401 after it.
			e.f.mu.Lock()
			clear(e.f.refreshes)
			clear(e.f.access)
			e.f.mu.Unlock()
			_, err := e.use(t)
			collect(e, err)
		}
	}
	// Step-up and cross-app failures.
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", requireScopes: []string{"x"}, alwaysForbid: true})
	if _, err := Login(ctx, e.loginOpts(t)); err != nil {
		t.Fatal(err)
	}
	_, err := e.use(t)
	collect(e, err)
	e = newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth"})
	_, err = CrossAppAccess(ctx, CrossAppOptions{ServerURL: e.f.serverURL(), ClientID: "c", ClientSecret: "s-" + sentinel,
		IDToken: "wrong-" + sentinel, IdPTokenEndpoint: e.f.base + "/idp/token", IdPClientID: "idp-client", Logf: e.logf})
	collect(e, err)

	if len(outputs) < 10 {
		t.Fatalf("only %d outputs collected", len(outputs))
	}
	for _, out := range outputs {
		if strings.Contains(out, sentinel) {
			t.Errorf("secret sentinel in output: %q", out)
		}
		for _, s := range secrets {
			if s != "" && strings.Contains(out, s) {
				t.Errorf("secret value in output: %q", out)
			}
		}
	}
}
