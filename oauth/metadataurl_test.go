package oauth

import (
	"context"
	"errors"
	"testing"
)

// TestAuthServerMetadataURL: a server whose discovery is broken (its
// metadata names another issuer) fails discovery; given the metadata
// document's URL, every flow reads it instead: the browser flow, the
// device grant and the client_credentials grant.
func TestAuthServerMetadataURL(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "path", issuerOverride: "https://as.elsewhere.example", device: true, deviceInterval: 1,
		clientID: "machine", clientSecret: "cs-" + sentinel})
	mdURL := e.f.base + e.f.mdPath()
	cc := ClientCredentialsOptions{ServerURL: e.f.serverURL(), ClientID: "machine", ClientSecret: "cs-" + sentinel, Store: e.store, ServerName: "srv", Logf: e.logf}
	var im *IssuerMismatchError
	if _, err := ClientCredentials(context.Background(), cc); !errors.As(err, &im) {
		t.Fatalf("broken discovery: %v", err)
	}
	cc.AuthServerMetadataURL = mdURL
	if _, err := ClientCredentials(context.Background(), cc); err != nil {
		t.Fatalf("client credentials with the metadata URL: %v", err)
	}

	opts := e.loginOpts(t)
	opts.AuthServerMetadataURL = mdURL
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatalf("browser login with the metadata URL: %v", err)
	}

	c := newDeviceClock()
	var shown DevicePrompt
	opts = e.deviceOpts(t, c, &shown)
	opts.AuthServerMetadataURL = mdURL
	c.person[1] = func() { act(t, &shown, "approve")() }
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatalf("device login with the metadata URL: %v", err)
	}
	if rec, _, _ := e.store.Load("srv"); rec == nil || rec.Grant != "device_code" || rec.Issuer != "https://as.elsewhere.example" {
		t.Fatalf("record %+v", rec)
	}
	noSecret(t, e, nil)
}
