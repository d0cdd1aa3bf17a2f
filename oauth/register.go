package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Kinds of client registration.
const (
	KindPreRegistered    = "pre-registered"
	KindMetadataDocument = "metadata-document"
	KindDynamic          = "dynamic"
)

// ClientName is the client_name sent in dynamic registration.
const ClientName = "mcpwire"

// A ClientRegistration is a client identity at one authorization server.
type ClientRegistration struct {
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	AuthMethod   string   `json:"token_endpoint_auth_method,omitempty"`
	Issuer       string   `json:"issuer"` // the authorization server it belongs to
	Kind         string   `json:"kind"`
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// GrantTypes are the grants registered ("" in a registration kept
	// before they were recorded: the authorization code flow's).
	GrantTypes   []string  `json:"grant_types,omitempty"`
	RegisteredAt time.Time `json:"registered_at,omitzero"`
	// SecretExpiresAt is client_secret_expires_at; zero means never.
	SecretExpiresAt time.Time `json:"client_secret_expires_at,omitzero"`
}

// registrationRequest is the RFC 7591 client metadata we send.
type registrationRequest struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	Scope                   string   `json:"scope,omitempty"`
}

type registrationResponse struct {
	ClientID                string          `json:"client_id"`
	ClientSecret            string          `json:"client_secret"`
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method"`
	ClientSecretExpiresAt   json.RawMessage `json:"client_secret_expires_at"`
	RedirectURIs            []string        `json:"redirect_uris"`
}

// secretMethods are the token endpoint methods that use a client secret,
// in order of preference.
var secretMethods = [...]string{"client_secret_basic", "client_secret_post"}

// supportsMethod reports whether md allows method at the token endpoint.
// RFC 8414 section 2: an absent list means client_secret_basic only.
func supportsMethod(md *AuthServerMetadata, method string) bool {
	if len(md.TokenEndpointAuthMethodsSupported) == 0 {
		return method == "client_secret_basic" || (md.legacyDefaults && method == "none")
	}
	return slices.Contains(md.TokenEndpointAuthMethodsSupported, method)
}

// secretMethod picks how to send a client secret: the first of
// client_secret_basic, client_secret_post that md supports; basic when it
// lists neither.
func secretMethod(md *AuthServerMetadata) string {
	for _, m := range secretMethods {
		if supportsMethod(md, m) {
			return m
		}
	}
	return "client_secret_basic"
}

// requestedMethod is the token_endpoint_auth_method asked for in dynamic
// registration: a secret-based one when the server supports one, else none.
func requestedMethod(md *AuthServerMetadata) string {
	for _, m := range secretMethods {
		if supportsMethod(md, m) {
			return m
		}
	}
	if supportsMethod(md, "none") {
		return "none"
	}
	return "client_secret_basic"
}

// Register performs dynamic client registration (RFC 7591) at md's
// registration endpoint for redirectURI.
func Register(ctx context.Context, client *http.Client, md *AuthServerMetadata, redirectURI string, scopes []string, now time.Time) (*ClientRegistration, error) {
	return register(ctx, client, md, registrationRequest{
		RedirectURIs:  []string{redirectURI},
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
	}, scopes, now)
}

// RegisterDevice performs dynamic client registration (RFC 7591) for the
// device authorization grant: no redirect URI, no response type.
func RegisterDevice(ctx context.Context, client *http.Client, md *AuthServerMetadata, scopes []string, now time.Time) (*ClientRegistration, error) {
	return register(ctx, client, md, registrationRequest{
		GrantTypes:    []string{GrantDeviceCode, "refresh_token"},
		ResponseTypes: []string{},
	}, scopes, now)
}

// register sends reqBody, completed with what every registration says.
func register(ctx context.Context, client *http.Client, md *AuthServerMetadata, reqBody registrationRequest, scopes []string, now time.Time) (*ClientRegistration, error) {
	if md.RegistrationEndpoint == "" {
		return nil, errors.New("registering client: authorization server has no registration endpoint")
	}
	reqBody.ClientName = ClientName
	reqBody.TokenEndpointAuthMethod = requestedMethod(md)
	reqBody.ApplicationType = "native"
	reqBody.Scope = joinScopes(scopes)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, bytes.NewReader(jsonCompact(reqBody)))
	if err != nil {
		return nil, fmt.Errorf("registering client at %s: %v", safe.RedactURL(md.RegistrationEndpoint), err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := do(client, req)
	if err != nil {
		return nil, fmt.Errorf("registering client: %w", err)
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("registering client: %w", endpointError("registering client", md.RegistrationEndpoint, resp))
	}
	data, err := readBody(resp, maxMetadataBody)
	if err != nil {
		return nil, fmt.Errorf("registering client at %s: %v", safe.RedactURL(md.RegistrationEndpoint), err)
	}
	var rr registrationResponse
	if err := json.Unmarshal(data, &rr); err != nil {
		return nil, fmt.Errorf("registering client at %s: bad response: %v", safe.RedactURL(md.RegistrationEndpoint), jsonErr(err))
	}
	if rr.ClientID == "" {
		return nil, fmt.Errorf("registering client at %s: response has no client_id", safe.RedactURL(md.RegistrationEndpoint))
	}
	reg := &ClientRegistration{
		ClientID:     rr.ClientID,
		ClientSecret: rr.ClientSecret,
		Issuer:       md.Issuer,
		Kind:         KindDynamic,
		RedirectURIs: reqBody.RedirectURIs,
		GrantTypes:   reqBody.GrantTypes,
		RegisteredAt: now.UTC(),
	}
	if n, ok := parseExpiresIn(rr.ClientSecretExpiresAt); ok && n > 0 {
		reg.SecretExpiresAt = time.Unix(n, 0).UTC()
	}
	// Follow what the server registered; else decide from the secret.
	switch {
	case rr.TokenEndpointAuthMethod != "":
		reg.AuthMethod = rr.TokenEndpointAuthMethod
	case rr.ClientSecret == "":
		reg.AuthMethod = "none"
	case supportsMethod(md, "client_secret_basic"):
		reg.AuthMethod = "client_secret_basic"
	case supportsMethod(md, "client_secret_post"):
		reg.AuthMethod = "client_secret_post"
	default:
		reg.AuthMethod = "none"
	}
	return reg, nil
}

// auth returns how reg authenticates at the token endpoint.
func (reg *ClientRegistration) auth() clientAuth {
	m := reg.AuthMethod
	if reg.ClientSecret == "" {
		m = "none"
	}
	if m == "" {
		m = "client_secret_basic"
	}
	return clientAuth{method: m, id: reg.ClientID, secret: reg.ClientSecret}
}

// checkMetadataURL checks a Client ID Metadata Document URL: https with a
// path (draft-ietf-oauth-client-id-metadata-document section 3).
func checkMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("client metadata URL %s must be an https URL with a path", safe.RedactURL(raw))
	}
	return nil
}

// grantTypes are the grants reg was registered for: those recorded, else
// the authorization code flow's.
func (reg *ClientRegistration) grantTypes() []string {
	switch {
	case reg == nil:
		return nil
	case len(reg.GrantTypes) > 0:
		return reg.GrantTypes
	}
	return []string{"authorization_code", "refresh_token"}
}
