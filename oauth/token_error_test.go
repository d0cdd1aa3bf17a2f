package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestTokenErrorHidesRequest: a token endpoint whose error echoes the
// request (its form and its Authorization header) does not make the
// error show the code, the verifier, the client secret or an assertion,
// in any form (issue 11, item 11).
func TestTokenErrorHidesRequest(t *testing.T) {
	const (
		code      = "auth-code-8f2b1c"
		verifier  = "pkce-verifier-3e9d7a"
		secret    = "client-secret&<5a1f>"
		assertion = "eyJhbGciOi.assertion-77c4"
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		echo := "bad request: " + string(body) + " auth=" + r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant " + code, "error_description": echo})
	}))
	defer srv.Close()
	for _, auth := range []clientAuth{
		{method: "client_secret_basic", id: "client", secret: secret},
		{method: "client_secret_post", id: "client", secret: secret},
		{method: "private_key_jwt", id: "client", assertion: assertion},
	} {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}}
		ctx := WithServerURL(context.Background(), srv.URL+"/mcp")
		_, _, err := postToken(ctx, srv.Client(), srv.URL+"/token", form, auth, time.Now())
		var te *TokenError
		if !errors.As(err, &te) {
			t.Fatalf("%s: err = %v, want a *TokenError", auth.method, err)
		}
		msg := err.Error()
		for _, s := range []string{code, verifier, secret, url.QueryEscape(secret), assertion, "5a1f", "8f2b1c"} {
			if strings.Contains(msg, s) {
				t.Errorf("%s: the error shows %q: %s", auth.method, s, msg)
			}
		}
		if !strings.Contains(msg, "invalid_grant") || !strings.Contains(msg, "bad request") {
			t.Errorf("%s: the error lost its words: %s", auth.method, msg)
		}
	}
}
