package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// ClientCredentialsOptions configures [ClientCredentials]: a machine
// client authenticating with a secret or a private-key JWT.
type ClientCredentialsOptions struct {
	ServerURL string
	Client    *http.Client
	Challenge []string // WWW-Authenticate values of a 401, may be empty
	ClientID  string
	// ClientSecret selects client_secret_basic or client_secret_post (by
	// what the server supports).
	ClientSecret string
	// PrivateKeyPEM selects private_key_jwt (RFC 7523 section 2.2): a PKCS#8
	// (or SEC 1 / PKCS#1) EC P-256 or RSA key.
	PrivateKeyPEM string
	// SigningAlgorithm is ES256 or RS256; "" = from the key.
	SigningAlgorithm    string
	Scopes              []string
	AuthorizationServer string
	// AuthServerMetadataURL, when set, is the authorization server's
	// metadata document, read instead of discovering it.
	AuthServerMetadataURL string
	Store                 *Store
	ServerName            string
	Logf                  func(format string, args ...any)
	Now                   func() time.Time
}

// ClientCredentials obtains a token with the client_credentials grant for
// the MCP server at opts.ServerURL, after the usual discovery, and saves it.
func ClientCredentials(ctx context.Context, opts ClientCredentialsOptions) (*Token, error) {
	ctx = withServerURL(ctx, opts.ServerURL)
	log := &logger{opts.Logf}
	now := nowOf(opts.Now)
	if opts.ClientID == "" {
		return nil, fmt.Errorf("client credentials: %w", ErrNoClientID)
	}
	client := noRedirectClient(opts.Client)
	s, chs, err := discoverTokenEndpoint(ctx, client, opts.ServerURL, opts.Challenge, opts.AuthorizationServer, opts.AuthServerMetadataURL, log)
	if err != nil {
		return nil, fmt.Errorf("client credentials: %w", err)
	}
	md := s.md
	reg := &ClientRegistration{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, Issuer: s.issuer, Kind: KindPreRegistered, RegisteredAt: now.UTC()}
	var auth clientAuth
	switch {
	case opts.PrivateKeyPEM != "":
		assertion, err := ClientAssertion(opts.PrivateKeyPEM, opts.SigningAlgorithm, opts.ClientID, s.issuer, now)
		if err != nil {
			return nil, fmt.Errorf("client credentials: %w", err)
		}
		auth = clientAuth{method: "private_key_jwt", id: opts.ClientID, assertion: assertion}
		reg.AuthMethod = "private_key_jwt"
	case opts.ClientSecret != "":
		reg.AuthMethod = secretMethod(md)
		auth = reg.auth()
	default:
		return nil, errors.New("client credentials: need a client secret or a private key")
	}
	scopes := selectScopes(opts.Scopes, chs, s.prm, md)
	scopes = UnionScopes(nil, deleteScope(scopes, "offline_access"))
	form := url.Values{}
	form.Set("grant_type", "client_credentials")
	form.Set("resource", s.resource)
	if len(scopes) > 0 {
		form.Set("scope", joinScopes(scopes))
	}
	log.printf("requesting a token with client_credentials at %s", safe.RedactURL(md.TokenEndpoint))
	if auth, err = s.withDPoP(auth, log); err != nil {
		return nil, fmt.Errorf("client credentials: %w", err)
	}
	tok, _, err := postToken(ctx, client, md.TokenEndpoint, form, auth, now)
	if err != nil {
		return nil, fmt.Errorf("client credentials: %w", err)
	}
	if err := checkBearer(tok); err != nil {
		return nil, fmt.Errorf("client credentials: %w", err)
	}
	if reg.AuthMethod == "private_key_jwt" {
		reg.ClientSecret = ""
	}
	if err := s.save(opts.Store, opts.ServerName, reg, tok, scopes, "client_credentials", now); err != nil {
		return tok, fmt.Errorf("client credentials: %w", err)
	}
	return tok, nil
}

// discoverTokenEndpoint runs discovery for a flow without a browser: the
// authorization server must have a token endpoint.
func discoverTokenEndpoint(ctx context.Context, client *http.Client, serverURL string, challenge []string, asOverride, metadataURL string, log *logger) (*session, []Challenge, error) {
	s, chs, err := discover(ctx, client, serverURL, challenge, asOverride, log, metadataURL)
	if err != nil {
		return nil, nil, err
	}
	if s.md.TokenEndpoint == "" {
		return nil, nil, errors.New("authorization server metadata has no token endpoint")
	}
	return s, chs, nil
}

// save writes the token of a flow, with the client it used, to store
// (nothing when store is nil).
func (s *session) save(store *Store, name string, reg *ClientRegistration, tok *Token, scopes []string, grant string, now time.Time) error {
	if store == nil {
		return nil
	}
	return store.Save(name, s.record(reg, tok, scopes, grant, now))
}

// record is what a flow without a browser saves.
func (s *session) record(reg *ClientRegistration, tok *Token, scopes []string, grant string, now time.Time) *Record {
	return &Record{Resource: s.resource, Issuer: s.issuer, TokenEndpoint: s.md.TokenEndpoint, RevocationEndpoint: s.md.RevocationEndpoint,
		Client: reg, Token: tok, Scopes: scopes, Grant: grant, UpdatedAt: now.UTC(), Login: newLoginID()}
}

// newLoginID is a new Record.Login: 128 random bits.
func newLoginID() string { return rand.Text() }

// nowOf is f's time, or the clock's when f is nil.
func nowOf(f func() time.Time) time.Time {
	if f != nil {
		return f()
	}
	return time.Now()
}

func deleteScope(s []string, name string) []string {
	var out []string
	for _, x := range s {
		if x != name {
			out = append(out, x)
		}
	}
	return out
}

// ParsePrivateKey reads a PEM private key: PKCS#8, SEC 1 EC or PKCS#1 RSA.
func ParsePrivateKey(pemText string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, errors.New("parsing private key: no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("parsing private key: unsupported PEM block %q", clip(safe.Sanitize(block.Type), 40))
	}
	if err != nil {
		return nil, errors.New("parsing private key: invalid key data")
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		return k, nil
	case *rsa.PrivateKey:
		return k, nil
	}
	return nil, errors.New("parsing private key: not an EC or RSA key")
}

// ClientAssertion builds and signs a JWT for private_key_jwt client
// authentication (RFC 7523 section 3): iss = sub = clientID, aud = the
// authorization server's issuer, a random jti, iat, and exp five minutes
// later. alg is ES256 (P-256 key, signature r||s, 64 bytes) or RS256; ""
// picks by key type.
func ClientAssertion(keyPEM, alg, clientID, audience string, now time.Time) (string, error) {
	key, err := ParsePrivateKey(keyPEM)
	if err != nil {
		return "", err
	}
	claims := map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": audience,
		"jti": randomString(16),
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
	}
	return SignJWT(key, alg, map[string]any{"typ": "JWT"}, claims)
}

// SignJWT signs claims with key as a compact JWS. header gets "alg" set.
func SignJWT(key crypto.Signer, alg string, header, claims map[string]any) (string, error) {
	if alg == "" {
		switch key.(type) {
		case *ecdsa.PrivateKey:
			alg = "ES256"
		case *rsa.PrivateKey:
			alg = "RS256"
		}
	}
	h := map[string]any{}
	for k, v := range header {
		h[k] = v
	}
	h["alg"] = alg
	enc := base64.RawURLEncoding
	signingInput := enc.EncodeToString(jsonCompact(h)) + "." + enc.EncodeToString(jsonCompact(claims))
	sum := sha256.Sum256([]byte(signingInput))
	var sig []byte
	switch alg {
	case "ES256":
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok || k.Curve != elliptic.P256() {
			return "", errors.New("signing JWT: ES256 needs an EC P-256 key")
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", fmt.Errorf("signing JWT: %v", err)
		}
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case "RS256":
		k, ok := key.(*rsa.PrivateKey)
		if !ok {
			return "", errors.New("signing JWT: RS256 needs an RSA key")
		}
		var err error
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		if err != nil {
			return "", fmt.Errorf("signing JWT: %v", err)
		}
	default:
		return "", fmt.Errorf("signing JWT: unsupported algorithm %q", clip(safe.Sanitize(alg), 20))
	}
	return signingInput + "." + enc.EncodeToString(sig), nil
}
