package oauth

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Sentinel errors callers branch on. They are wrapped with context; test
// them with errors.Is.
var (
	// ErrLoginRequired means there is no usable token and none can be
	// obtained without the user: run the interactive login.
	ErrLoginRequired = errors.New("oauth: login required")
	// ErrNoResourceMetadata means no protected resource metadata was found
	// at any of the places the specification lists.
	ErrNoResourceMetadata = errors.New("oauth: no protected resource metadata")
	// ErrNoAuthServerMetadata means no authorization server metadata was
	// found at any of the well-known locations.
	ErrNoAuthServerMetadata = errors.New("oauth: no authorization server metadata")
	// ErrPKCEUnsupported means the authorization server does not advertise
	// PKCE with S256; the specification forbids going on.
	ErrPKCEUnsupported = errors.New("oauth: authorization server does not support PKCE S256")
	// ErrNoClientID means no client identifier could be obtained: no
	// pre-registered client, no client metadata document support and no
	// dynamic registration.
	ErrNoClientID = errors.New("oauth: no client id (configure oauth.client_id for this server)")
	// ErrTooManyAttempts means the authorization attempt limit was reached.
	ErrTooManyAttempts = errors.New("oauth: too many authorization attempts")
	// ErrRedirect means a server answered with a redirect, which is refused.
	ErrRedirect = errors.New("oauth: redirect refused")
	// ErrNoDeviceGrant means the device authorization grant was asked
	// for and the authorization server's metadata offers none (no
	// device_authorization_endpoint).
	ErrNoDeviceGrant = errors.New("oauth: the authorization server does not offer the device authorization grant")
	// ErrDeviceDenied means the person denied a device login
	// (access_denied).
	ErrDeviceDenied = errors.New("oauth: the login was denied at the authorization server (access_denied)")
	// ErrDeviceExpired means a device login's code expired, or the wait
	// for its approval ended, before it was approved.
	ErrDeviceExpired = errors.New("oauth: the code expired before the login was approved")
)

// A ResourceMismatchError reports protected resource metadata whose
// resource does not cover the server being accessed (RFC 9728 section 3.3).
// No authorization request is made after it.
type ResourceMismatchError struct {
	Resource string // the metadata's resource, redacted
	Server   string // the server URL, redacted
}

func (e *ResourceMismatchError) Error() string {
	return fmt.Sprintf("oauth: protected resource metadata is for %s, not %s", e.Resource, e.Server)
}

// An IssuerMismatchError reports an issuer that differs from the expected
// one: in authorization server metadata (RFC 8414 section 3.3) or in the
// iss parameter of an authorization response (RFC 9207).
type IssuerMismatchError struct {
	Where    string // "metadata" or "authorization response"
	Expected string
	Got      string
}

func (e *IssuerMismatchError) Error() string {
	got := e.Got
	if got == "" {
		got = "none"
	}
	return fmt.Sprintf("oauth: issuer mismatch in %s: expected %s, got %s", e.Where, safe.Sanitize(e.Expected), safe.Sanitize(got))
}

// A TokenError is an error response of a token, registration or revocation
// endpoint (RFC 6749 section 5.2). Description is stripped of control
// characters.
type TokenError struct {
	StatusCode  int
	Code        string
	Description string
}

func (e *TokenError) Error() string {
	s := "oauth: token endpoint error " + e.Code
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// An AuthorizationError is an error in the authorization response that came
// back to the redirect URI: the server's error, a wrong state, a wrong iss.
type AuthorizationError struct {
	Code        string // the server's error code, or "state_mismatch", "missing_code"
	Description string
}

func (e *AuthorizationError) Error() string {
	s := "oauth: authorization failed: " + e.Code
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}

// A LoginRequiredError says why a login is needed; errors.Is(err,
// ErrLoginRequired) holds for it. Challenges holds the server's
// WWW-Authenticate challenges when a 401 caused it; pass them to Login.
type LoginRequiredError struct {
	Reason     string
	Challenges []Challenge
	Err        error
}

func (e *LoginRequiredError) Error() string {
	s := "oauth: login required"
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is reports ErrLoginRequired.
func (e *LoginRequiredError) Is(target error) bool { return target == ErrLoginRequired }

// Unwrap returns the underlying error, if any.
func (e *LoginRequiredError) Unwrap() error { return e.Err }

// A StepUpError reports a 403 insufficient_scope answer: the caller should
// authorize again with Scopes (the union of the scopes held and the ones
// the server asked for) and retry, counting attempts with an [Attempts].
type StepUpError struct {
	Scopes    []string // union of held and required scopes
	Required  []string // the challenge's scope
	Challenge Challenge
}

func (e *StepUpError) Error() string {
	return "oauth: insufficient scope, authorization needed for: " + safe.Sanitize(strings.Join(e.Required, " "))
}

// An HTTPStatusError is an unexpected HTTP answer from an OAuth endpoint.
type HTTPStatusError struct {
	Op         string
	URL        string // redacted
	StatusCode int
	Body       string // at most 200 bytes, control characters stripped
}

func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("oauth: %s %s: status %d", e.Op, e.URL, e.StatusCode)
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}
