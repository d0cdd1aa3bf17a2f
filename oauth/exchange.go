package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Grant and token type URNs of cross-app access.
const (
	GrantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange" // RFC 8693
	GrantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"     // RFC 7523
	TokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	TokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// CrossAppOptions configures [CrossAppAccess] (enterprise-managed
// authorization): an identity provider's ID token is exchanged at the IdP
// for an identity assertion grant (ID-JAG), which the MCP server's
// authorization server redeems for an access token.
type CrossAppOptions struct {
	ServerURL string
	Client    *http.Client
	Challenge []string
	// ClientID and ClientSecret identify mcpwire at the MCP server's
	// authorization server (HTTP Basic).
	ClientID, ClientSecret string
	// IDToken is the user's ID token from the IdP.
	IDToken string
	// IdPTokenEndpoint is the IdP's token endpoint; IdPClientID and
	// IdPClientSecret authenticate there (Basic with a secret, else the
	// client_id in the body).
	IdPTokenEndpoint             string
	IdPClientID, IdPClientSecret string
	Scopes                       []string
	AuthorizationServer          string
	// AuthServerMetadataURL, when set, is the authorization server's
	// metadata document, read instead of discovering it.
	AuthServerMetadataURL string
	Store                 *Store
	ServerName            string
	Logf                  func(format string, args ...any)
	Now                   func() time.Time
}

// CrossAppAccess runs the cross-app access flow: discovery, RFC 8693 token
// exchange at the IdP (subject: the ID token, requested type: ID-JAG,
// audience: the authorization server's issuer, resource: the MCP server),
// then the RFC 7523 jwt-bearer grant at the authorization server with
// client_secret_basic. The token is saved like any other.
func CrossAppAccess(ctx context.Context, opts CrossAppOptions) (*Token, error) {
	ctx = withServerURL(ctx, opts.ServerURL)
	log := &logger{opts.Logf}
	now := nowOf(opts.Now)
	if opts.IDToken == "" || opts.IdPTokenEndpoint == "" {
		return nil, errors.New("cross-app access: need an ID token and the IdP token endpoint")
	}
	if opts.ClientID == "" {
		return nil, fmt.Errorf("cross-app access: %w", ErrNoClientID)
	}
	if err := checkURLShape(opts.IdPTokenEndpoint, false); err != nil {
		return nil, fmt.Errorf("cross-app access: IdP token endpoint: %v", err)
	}
	client := noRedirectClient(opts.Client)
	s, chs, err := discoverTokenEndpoint(ctx, client, opts.ServerURL, opts.Challenge, opts.AuthorizationServer, opts.AuthServerMetadataURL, log)
	if err != nil {
		return nil, fmt.Errorf("cross-app access: %w", err)
	}
	md := s.md
	scopes := deleteScope(selectScopes(opts.Scopes, chs, s.prm, md), "offline_access")
	log.printf("exchanging the ID token at %s", safe.RedactURL(opts.IdPTokenEndpoint))
	jag, err := ExchangeIDToken(ctx, client, opts.IdPTokenEndpoint, opts.IdPClientID, opts.IdPClientSecret, opts.IDToken, s.issuer, s.resource, scopes, now)
	if err != nil {
		return nil, fmt.Errorf("cross-app access: %w", err)
	}
	reg := &ClientRegistration{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, AuthMethod: "client_secret_basic", Issuer: s.issuer, Kind: KindPreRegistered, RegisteredAt: now.UTC()}
	log.printf("redeeming the grant at %s", safe.RedactURL(md.TokenEndpoint))
	auth, err := s.withDPoP(reg.auth(), log)
	if err != nil {
		return nil, fmt.Errorf("cross-app access: %w", err)
	}
	tok, err := jwtBearer(ctx, client, md.TokenEndpoint, auth, jag, s.resource, scopes, now)
	if err != nil {
		return nil, fmt.Errorf("cross-app access: %w", err)
	}
	if err := s.save(opts.Store, opts.ServerName, reg, tok, scopes, "jwt-bearer", now); err != nil {
		return tok, fmt.Errorf("cross-app access: %w", err)
	}
	return tok, nil
}

// ExchangeIDToken performs RFC 8693 token exchange at an IdP's token
// endpoint, trading an ID token for an ID-JAG for audience (the
// authorization server's issuer) and resource.
func ExchangeIDToken(ctx context.Context, client *http.Client, endpoint, clientID, clientSecret, idToken, audience, resource string, scopes []string, now time.Time) (string, error) {
	form := url.Values{}
	form.Set("grant_type", GrantTokenExchange)
	form.Set("subject_token", idToken)
	form.Set("subject_token_type", TokenTypeIDToken)
	form.Set("requested_token_type", TokenTypeIDJAG)
	form.Set("audience", audience)
	form.Set("resource", resource)
	if len(scopes) > 0 {
		form.Set("scope", joinScopes(scopes))
	}
	auth := clientAuth{method: "none", id: clientID}
	if clientSecret != "" {
		auth = clientAuth{method: "client_secret_basic", id: clientID, secret: clientSecret}
	}
	tok, tr, err := postToken(ctx, noRedirectClient(client), endpoint, form, auth, now)
	if err != nil {
		return "", fmt.Errorf("token exchange: %w", err)
	}
	if tr.IssuedTokenType != "" && tr.IssuedTokenType != TokenTypeIDJAG {
		return "", fmt.Errorf("token exchange: issued token type %q, want %s", clip(safe.Sanitize(tr.IssuedTokenType), 80), TokenTypeIDJAG)
	}
	return tok.AccessToken, nil
}

// JWTBearerGrant redeems assertion with the RFC 7523 jwt-bearer grant at
// endpoint, authenticating as reg.
func JWTBearerGrant(ctx context.Context, client *http.Client, endpoint string, reg *ClientRegistration, assertion, resource string, scopes []string, now time.Time) (*Token, error) {
	return jwtBearer(ctx, client, endpoint, reg.auth(), assertion, resource, scopes, now)
}

// jwtBearer is JWTBearerGrant authenticating with auth.
func jwtBearer(ctx context.Context, client *http.Client, endpoint string, auth clientAuth, assertion, resource string, scopes []string, now time.Time) (*Token, error) {
	form := url.Values{}
	form.Set("grant_type", GrantJWTBearer)
	form.Set("assertion", assertion)
	if resource != "" {
		form.Set("resource", resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", joinScopes(scopes))
	}
	tok, _, err := postToken(ctx, noRedirectClient(client), endpoint, form, auth, now)
	if err != nil {
		return nil, fmt.Errorf("jwt-bearer grant: %w", err)
	}
	if err := checkBearer(tok); err != nil {
		return nil, fmt.Errorf("jwt-bearer grant: %w", err)
	}
	return tok, nil
}

// WorkloadOptions configures [WorkloadIdentity].
type WorkloadOptions struct {
	ServerURL string
	Client    *http.Client
	Challenge []string
	// ClientID names the workload's client at the authorization server;
	// ClientSecret, when set, authenticates it (HTTP Basic), else the
	// client_id goes in the body (auth method none).
	ClientID, ClientSecret string
	// AssertionFile is where the platform puts the workload's JWT (a CI
	// system's OIDC token, a pod's projected service account token). It
	// is read now, and again, by the token source, whenever the access
	// token has expired: platforms rotate the file.
	AssertionFile       string
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

// WorkloadIdentity logs a workload in with the JWT its platform gives it
// (workload identity federation, SEP-1933): discovery, then the RFC 7523
// jwt-bearer grant with the JWT as the assertion. An error of the
// authorization server (invalid_grant, invalid_scope,
// unauthorized_client…) is returned as it is: no retry, no other grant.
func WorkloadIdentity(ctx context.Context, opts WorkloadOptions) (*Token, error) {
	ctx = withServerURL(ctx, opts.ServerURL)
	log := &logger{opts.Logf}
	now := nowOf(opts.Now)
	if opts.ClientID == "" {
		return nil, fmt.Errorf("workload identity: %w", ErrNoClientID)
	}
	assertion, err := readAssertion(opts.AssertionFile)
	if err != nil {
		return nil, fmt.Errorf("workload identity: %w", err)
	}
	client := noRedirectClient(opts.Client)
	s, chs, err := discoverTokenEndpoint(ctx, client, opts.ServerURL, opts.Challenge, opts.AuthorizationServer, opts.AuthServerMetadataURL, log)
	if err != nil {
		return nil, fmt.Errorf("workload identity: %w", err)
	}
	md := s.md
	scopes := UnionScopes(nil, deleteScope(selectScopes(opts.Scopes, chs, s.prm, md), "offline_access"))
	reg := &ClientRegistration{ClientID: opts.ClientID, AuthMethod: "none", Issuer: s.issuer, Kind: KindPreRegistered, RegisteredAt: now.UTC()}
	if opts.ClientSecret != "" {
		reg.ClientSecret, reg.AuthMethod = opts.ClientSecret, "client_secret_basic"
	}
	auth, err := s.withDPoP(reg.auth(), log)
	if err != nil {
		return nil, fmt.Errorf("workload identity: %w", err)
	}
	log.printf("redeeming the workload's JWT at %s", safe.RedactURL(md.TokenEndpoint))
	tok, err := jwtBearer(ctx, client, md.TokenEndpoint, auth, assertion, s.resource, scopes, now)
	if err != nil {
		return nil, fmt.Errorf("workload identity: %w", err)
	}
	if opts.Store != nil {
		rec := s.record(reg, tok, scopes, "jwt-bearer", now)
		rec.AssertionFile = opts.AssertionFile
		if err := opts.Store.Save(opts.ServerName, rec); err != nil {
			return tok, fmt.Errorf("workload identity: %w", err)
		}
	}
	return tok, nil
}

// maxAssertion bounds an assertion file.
const maxAssertion = 64 << 10

// readAssertion reads a JWT from path (white space around it is dropped).
func readAssertion(path string) (string, error) {
	if path == "" {
		return "", errors.New("no assertion file")
	}
	b, err := safe.ReadFile(path, safe.KindCredential)
	if err != nil {
		return "", fmt.Errorf("reading the assertion: %v", err)
	}
	if len(b) > maxAssertion {
		return "", fmt.Errorf("the assertion file %s is more than %d bytes", path, maxAssertion)
	}
	a := strings.TrimSpace(string(b))
	if strings.Count(a, ".") != 2 || strings.ContainsAny(a, " \t\r\n") {
		return "", fmt.Errorf("the assertion file %s does not hold a JWT", path)
	}
	return a, nil
}
