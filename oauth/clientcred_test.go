package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"
)

func pemKey(t *testing.T, key any) string {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

func TestClientCredentials(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	tests := []struct {
		name       string
		o          fakeOpts
		secret     string
		key        string
		alg        string
		wantMethod string
	}{
		{name: "secret-basic", o: fakeOpts{authMethods: []string{"client_secret_basic"}}, secret: "cs-" + sentinel, wantMethod: "client_secret_basic"},
		{name: "secret-post", o: fakeOpts{authMethods: []string{"client_secret_post"}}, secret: "cs-" + sentinel, wantMethod: "client_secret_post"},
		{name: "es256", o: fakeOpts{authMethods: []string{"private_key_jwt"}, ecKey: &ec.PublicKey}, key: pemKey(t, ec), alg: "ES256", wantMethod: "private_key_jwt"},
		{name: "rs256", o: fakeOpts{authMethods: []string{"private_key_jwt"}, rsaKey: &rk.PublicKey}, key: pemKey(t, rk), wantMethod: "private_key_jwt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.prmAt, tt.o.mdAt = "path", "oauth"
			tt.o.clientID, tt.o.clientSecret = "machine", tt.secret
			e := newEnv(t, tt.o)
			tok, err := ClientCredentials(context.Background(), ClientCredentialsOptions{
				ServerURL: e.f.serverURL(), ClientID: "machine", ClientSecret: tt.secret, PrivateKeyPEM: tt.key, SigningAlgorithm: tt.alg,
				Store: e.store, ServerName: "srv", Logf: e.logf,
			})
			if err != nil {
				t.Fatalf("ClientCredentials: %v", err)
			}
			if tok.AccessToken == "" || len(e.f.tokenReqs) != 1 {
				t.Fatal("no token")
			}
			tr := e.f.tokenReqs[0]
			if tr.method != tt.wantMethod || tr.form.Get("grant_type") != "client_credentials" || tr.form.Get("resource") != e.f.serverURL() {
				t.Errorf("token request %s %v", tr.method, tr.form)
			}
			if resp, err := e.use(t); err != nil || resp.StatusCode != 200 {
				t.Fatalf("using the token: %v", err)
			}
		})
	}
	t.Run("wrong-key", func(t *testing.T) {
		other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		e := newEnv(t, fakeOpts{prmAt: "path", mdAt: "oauth", authMethods: []string{"private_key_jwt"}, ecKey: &ec.PublicKey})
		_, err := ClientCredentials(context.Background(), ClientCredentialsOptions{ServerURL: e.f.serverURL(), ClientID: "machine", PrivateKeyPEM: pemKey(t, other)})
		var te *TokenError
		if !errors.As(err, &te) || te.Code != "invalid_client" {
			t.Fatalf("error %v, want invalid_client", err)
		}
	})
	t.Run("bad-key", func(t *testing.T) {
		if _, err := ClientAssertion("not a key", "", "c", "https://as", nowForTest()); err == nil {
			t.Fatal("no error for a bad key")
		}
		if _, err := ClientAssertion(pemKey(t, rk), "ES256", "c", "https://as", nowForTest()); err == nil {
			t.Fatal("ES256 with an RSA key accepted")
		}
	})
}

func TestCrossAppAccess(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "header", mdAt: "oauth", authMethods: []string{"client_secret_basic"}, clientID: "xaa-client", clientSecret: "xaa-" + sentinel})
	tok, err := CrossAppAccess(context.Background(), CrossAppOptions{
		ServerURL: e.f.serverURL(), Challenge: e.challenge401(t),
		ClientID: "xaa-client", ClientSecret: "xaa-" + sentinel,
		IDToken: "idtoken-" + sentinel, IdPTokenEndpoint: e.f.base + "/idp/token", IdPClientID: "idp-client",
		Store: e.store, ServerName: "srv", Logf: e.logf,
	})
	if err != nil {
		t.Fatalf("CrossAppAccess: %v", err)
	}
	if tok.AccessToken == "" {
		t.Fatal("no token")
	}
	if tr := e.f.tokenReqs[0]; tr.method != "client_secret_basic" || tr.form.Get("grant_type") != GrantJWTBearer {
		t.Errorf("jwt-bearer request %s %v", tr.method, tr.form.Get("grant_type"))
	}
	if resp, err := e.use(t); err != nil || resp.StatusCode != 200 {
		t.Fatalf("using the token: %v", err)
	}
}
