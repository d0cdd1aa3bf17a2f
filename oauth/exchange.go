package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
	Store                        *Store
	ServerName                   string
	Logf                         func(format string, args ...any)
	Now                          func() time.Time
}

// CrossAppAccess runs the cross-app access flow: discovery, RFC 8693 token
// exchange at the IdP (subject: the ID token, requested type: ID-JAG,
// audience: the authorization server's issuer, resource: the MCP server),
// then the RFC 7523 jwt-bearer grant at the authorization server with
// client_secret_basic. The token is saved like any other.
func CrossAppAccess(ctx context.Context, opts CrossAppOptions) (*Token, error) {
	ctx = withServerURL(ctx, opts.ServerURL)
	log := &logger{opts.Logf}
	now := time.Now()
	if opts.Now != nil {
		now = opts.Now()
	}
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
	s, chs, err := discoverTokenEndpoint(ctx, client, opts.ServerURL, opts.Challenge, opts.AuthorizationServer, log)
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
	tok, err := JWTBearerGrant(ctx, client, md.TokenEndpoint, reg, jag, s.resource, scopes, now)
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
	form := url.Values{}
	form.Set("grant_type", GrantJWTBearer)
	form.Set("assertion", assertion)
	if resource != "" {
		form.Set("resource", resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", joinScopes(scopes))
	}
	tok, _, err := postToken(ctx, noRedirectClient(client), endpoint, form, reg.auth(), now)
	if err != nil {
		return nil, fmt.Errorf("jwt-bearer grant: %w", err)
	}
	if err := checkBearer(tok); err != nil {
		return nil, fmt.Errorf("jwt-bearer grant: %w", err)
	}
	return tok, nil
}
