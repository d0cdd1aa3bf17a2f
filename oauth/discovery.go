package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata
// document (RFC 9728 section 2).
type ProtectedResourceMetadata struct {
	Resource                          string   `json:"resource"`
	AuthorizationServers              []string `json:"authorization_servers,omitempty"`
	JWKSURI                           string   `json:"jwks_uri,omitempty"`
	ScopesSupported                   []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported            []string `json:"bearer_methods_supported,omitempty"`
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
	ResourceName                      string   `json:"resource_name,omitempty"`
	ResourceDocumentation             string   `json:"resource_documentation,omitempty"`
	ResourcePolicyURI                 string   `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI                    string   `json:"resource_tos_uri,omitempty"`
}

// AuthServerMetadata is OAuth 2.0 Authorization Server Metadata (RFC 8414
// section 2), also read from OpenID Connect Discovery documents.
type AuthServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	RevocationEndpoint                         string   `json:"revocation_endpoint,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	DPoPSigningAlgValuesSupported              []string `json:"dpop_signing_alg_values_supported,omitempty"`
	// DeviceAuthorizationEndpoint offers the device authorization grant
	// (RFC 8628 section 4).
	DeviceAuthorizationEndpoint string `json:"device_authorization_endpoint,omitempty"`

	// legacyDefaults marks the 2025-03-26 default endpoints (no metadata).
	legacyDefaults bool
}

// ParseResourceMetadata decodes and checks a protected resource metadata
// document: resource is required and must be an absolute http(s) URL
// without a fragment; authorization servers must be http(s) URLs.
func ParseResourceMetadata(data []byte) (*ProtectedResourceMetadata, error) {
	var md ProtectedResourceMetadata
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("parsing protected resource metadata: %v", jsonErr(err))
	}
	if md.Resource == "" {
		return nil, errors.New("parsing protected resource metadata: no resource")
	}
	if err := checkURLShape(md.Resource, true); err != nil {
		return nil, fmt.Errorf("parsing protected resource metadata: resource: %v", err)
	}
	for _, as := range md.AuthorizationServers {
		if err := checkURLShape(as, true); err != nil {
			return nil, fmt.Errorf("parsing protected resource metadata: authorization server: %v", err)
		}
	}
	return &md, nil
}

// ParseAuthServerMetadata decodes and checks authorization server metadata:
// issuer is required and the endpoints present must be http(s) URLs.
func ParseAuthServerMetadata(data []byte) (*AuthServerMetadata, error) {
	var md AuthServerMetadata
	if err := json.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("parsing authorization server metadata: %v", jsonErr(err))
	}
	if md.Issuer == "" {
		return nil, errors.New("parsing authorization server metadata: no issuer")
	}
	if err := checkURLShape(md.Issuer, true); err != nil {
		return nil, fmt.Errorf("parsing authorization server metadata: issuer: %v", err)
	}
	for name, u := range map[string]string{
		"authorization_endpoint":        md.AuthorizationEndpoint,
		"token_endpoint":                md.TokenEndpoint,
		"registration_endpoint":         md.RegistrationEndpoint,
		"revocation_endpoint":           md.RevocationEndpoint,
		"jwks_uri":                      md.JWKSURI,
		"device_authorization_endpoint": md.DeviceAuthorizationEndpoint,
	} {
		if u == "" {
			continue
		}
		if err := checkURLShape(u, false); err != nil {
			return nil, fmt.Errorf("parsing authorization server metadata: %s: %v", name, err)
		}
	}
	return &md, nil
}

// checkURLShape checks a URL from metadata before anything is fetched
// from it: an OAuth endpoint by safe.CheckEndpointURL as if its own MCP
// server were on the same host (so plain http off loopback is refused at
// once; the request checks the rule again with the real server's URL),
// and when noQuery, without a query.
func checkURLShape(raw string, noQuery bool) error {
	if err := safe.CheckEndpointURL(raw, raw); err != nil {
		return err
	}
	if u, _ := url.Parse(raw); noQuery && u.RawQuery != "" {
		return fmt.Errorf("URL %s has a query", safe.RedactURL(raw))
	}
	return nil
}

// CanonicalResource returns the canonical URI of an MCP server (RFC 8707
// section 2): lower-case scheme and host, no fragment or query, no trailing
// slash on an empty path.
func CanonicalResource(serverURL string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("server URL %s is not an absolute http(s) URL", safe.RedactURL(serverURL))
	}
	path := u.EscapedPath()
	if path == "/" {
		path = ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + path, nil
}

// ResourceCovers reports whether a token for resource may be sent to
// target: same scheme, host and port, and resource's path is a prefix of
// target's path on a segment boundary.
func ResourceCovers(resource, target string) bool {
	r, err1 := url.Parse(resource)
	t, err2 := url.Parse(target)
	if err1 != nil || err2 != nil || r.Host == "" {
		return false
	}
	if !strings.EqualFold(r.Scheme, t.Scheme) || !strings.EqualFold(hostPort(r), hostPort(t)) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	tp := t.EscapedPath()
	if rp == "" {
		return true
	}
	return tp == rp || strings.HasPrefix(tp, rp+"/")
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return u.Hostname() + ":" + port
}

// origin returns scheme://host of u.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// DiscoverResource finds the protected resource metadata of the MCP server
// at serverURL (RFC 9728 and MCP "Protected Resource Metadata Discovery"):
// the resource_metadata URL of a challenge first, then
// /.well-known/oauth-protected-resource/<path>, then
// /.well-known/oauth-protected-resource. The document's resource must cover
// serverURL, else a *ResourceMismatchError. When nothing is found the error
// matches ErrNoResourceMetadata.
func DiscoverResource(ctx context.Context, client *http.Client, serverURL string, challenges []Challenge) (*ProtectedResourceMetadata, error) {
	ctx = withServerURL(ctx, serverURL)
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("discovering resource metadata: server URL %s is not an absolute http(s) URL", safe.RedactURL(serverURL))
	}
	var candidates []string
	for _, c := range challenges {
		if rm := c.ResourceMetadata(); rm != "" && (c.IsBearer() || c.IsDPoP()) {
			if checkURLShape(rm, false) == nil {
				candidates = append(candidates, rm)
			}
			break
		}
	}
	if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, origin(u)+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin(u)+"/.well-known/oauth-protected-resource")
	md, err := firstDocument(ctx, client, candidates, "discovering resource metadata", ParseResourceMetadata)
	switch {
	case err != nil:
		return nil, err
	case md == nil:
		return nil, fmt.Errorf("discovering resource metadata for %s: %w", safe.RedactURL(serverURL), ErrNoResourceMetadata)
	case !ResourceCovers(md.Resource, serverURL):
		return nil, &ResourceMismatchError{Resource: safe.RedactURL(md.Resource), Server: safe.RedactURL(serverURL)}
	}
	return md, nil
}

// firstDocument fetches the candidate URLs in order and parses the first
// document found; it returns nil, nil when none is found.
func firstDocument[T any](ctx context.Context, client *http.Client, candidates []string, op string, parse func([]byte) (*T, error)) (*T, error) {
	for _, c := range candidates {
		data, found, err := getJSON(ctx, client, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		if !found {
			continue
		}
		md, err := parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %v", op, safe.RedactURL(c), err)
		}
		return md, nil
	}
	return nil, nil
}

// authServerMetadataURLs lists the well-known URLs for issuer in the order
// of MCP "Authorization Server Metadata Discovery".
func authServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("issuer %s is not an absolute URL", safe.RedactURL(issuer))
	}
	o := origin(u)
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	if p == "" {
		return []string{
			o + "/.well-known/oauth-authorization-server",
			o + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		o + "/.well-known/oauth-authorization-server" + p,
		o + "/.well-known/openid-configuration" + p,
		o + p + "/.well-known/openid-configuration",
	}, nil
}

// sameIssuer compares issuers by simple string comparison, allowing only a
// trailing slash on an empty path.
func sameIssuer(a, b string) bool {
	if a == b {
		return true
	}
	trim := func(s string) string {
		if u, err := url.Parse(s); err == nil && (u.Path == "/" || u.Path == "") {
			return strings.TrimSuffix(s, "/")
		}
		return s
	}
	return trim(a) == trim(b)
}

// DiscoverAuthServer fetches the metadata of the authorization server
// issuer, trying RFC 8414 and OpenID Connect Discovery locations in the
// order the MCP specification gives. The document's issuer must equal
// issuer (RFC 8414 section 3.3), else an *IssuerMismatchError.
func DiscoverAuthServer(ctx context.Context, client *http.Client, issuer string) (*AuthServerMetadata, error) {
	urls, err := authServerMetadataURLs(issuer)
	if err != nil {
		return nil, fmt.Errorf("discovering authorization server: %v", err)
	}
	md, err := firstDocument(ctx, client, urls, "discovering authorization server", ParseAuthServerMetadata)
	switch {
	case err != nil:
		return nil, err
	case md == nil:
		return nil, fmt.Errorf("discovering authorization server %s: %w", safe.RedactURL(issuer), ErrNoAuthServerMetadata)
	case !sameIssuer(md.Issuer, issuer):
		return nil, &IssuerMismatchError{Where: "metadata", Expected: safe.RedactURL(issuer), Got: safe.RedactURL(md.Issuer)}
	}
	return md, nil
}

// discoverLegacy is the 2025-03-26 discovery for a server without
// protected resource metadata: the MCP server's origin is the
// authorization server; its metadata is at the origin's well-known path,
// else the default endpoints /authorize, /token and /register apply.
func discoverLegacy(ctx context.Context, client *http.Client, serverURL string) (*AuthServerMetadata, error) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("discovering authorization server: bad server URL %s", safe.RedactURL(serverURL))
	}
	o := origin(u)
	for _, c := range []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"} {
		data, found, err := getJSON(ctx, client, c)
		if err != nil {
			return nil, fmt.Errorf("discovering authorization server: %w", err)
		}
		if !found {
			continue
		}
		// 2025-03-26 metadata at the origin: its issuer may name another
		// path, so it is not compared with the origin.
		md, err := ParseAuthServerMetadata(data)
		if err != nil {
			return nil, fmt.Errorf("discovering authorization server at %s: %v", safe.RedactURL(c), err)
		}
		return md, nil
	}
	return &AuthServerMetadata{
		Issuer:                        o,
		AuthorizationEndpoint:         o + "/authorize",
		TokenEndpoint:                 o + "/token",
		RegistrationEndpoint:          o + "/register",
		CodeChallengeMethodsSupported: []string{"S256"},
		legacyDefaults:                true,
	}, nil
}

// FetchAuthServerMetadata reads the authorization server metadata
// document at u itself (a definition's authServerMetadataUrl, for a
// server whose discovery is broken): no well-known path is tried and its
// issuer is taken as it is. A missing document matches
// ErrNoAuthServerMetadata.
func FetchAuthServerMetadata(ctx context.Context, client *http.Client, u string) (*AuthServerMetadata, error) {
	md, err := firstDocument(ctx, client, []string{u}, "reading the authorization server metadata", ParseAuthServerMetadata)
	switch {
	case err != nil:
		return nil, err
	case md == nil:
		return nil, fmt.Errorf("reading the authorization server metadata %s: %w", safe.RedactURL(u), ErrNoAuthServerMetadata)
	}
	return md, nil
}
