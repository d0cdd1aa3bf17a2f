package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// GrantDeviceCode is the grant type of the device authorization grant
// (RFC 8628 section 3.4).
const GrantDeviceCode = "urn:ietf:params:oauth:grant-type:device_code"

// DeviceUse says whether [Login] uses the device authorization grant
// (RFC 8628) instead of the authorization code flow.
type DeviceUse int

const (
	// DeviceNever is the authorization code flow (browser or paste).
	DeviceNever DeviceUse = iota
	// DeviceIfOffered is the device grant when the authorization
	// server's metadata has a device_authorization_endpoint, else the
	// authorization code flow: for a person with no browser here (an SSH
	// session).
	DeviceIfOffered
	// DeviceOnly is the device grant; [ErrNoDeviceGrant] when the
	// authorization server does not offer it.
	DeviceOnly
)

// Bounds of the device grant's poll loop (RFC 8628 section 3.5).
const (
	defaultDeviceInterval = 5 * time.Second  // when the server gives none
	slowDownStep          = 5 * time.Second  // added on each slow_down
	maxBackoffInterval    = 60 * time.Second // the interval's own doubling stops here
	maxPollFailures       = 5                // unreachable or 5xx answers in a row
	maxUserCode           = 128              // bytes of a user_code
	maxDeviceCode         = 4096             // bytes of a device_code
	maxVerificationURI    = 2048             // bytes of a verification address, shown whole
)

// A DevicePrompt is what the person is shown to approve a device login
// (RFC 8628 section 3.3): the code to enter at VerificationURI, or the
// address that carries it. The URLs passed the rules of an OAuth
// endpoint (https; plain http only on loopback for a server on loopback;
// no other scheme); every string is the server's: escape it for its
// sink. No secret is in it.
type DevicePrompt struct {
	UserCode                string
	VerificationURI         string
	VerificationURIComplete string    // "" when the server sent none
	Expires                 time.Time // the end of the wait: the code's expiry, or the login's timeout
}

// deviceGrant is a checked device authorization response.
type deviceGrant struct {
	_ [0]func() // not comparable: no equality function in the binary

	prompt     DevicePrompt
	deviceCode string // a secret
	expiresIn  time.Duration
	interval   time.Duration
}

// deviceResponse is the wire form of a device authorization response
// (RFC 8628 section 3.2). verification_url is the name some servers
// used before the RFC.
type deviceResponse struct {
	DeviceCode              string          `json:"device_code"`
	UserCode                string          `json:"user_code"`
	VerificationURI         string          `json:"verification_uri"`
	VerificationURL         string          `json:"verification_url"`
	VerificationURIComplete string          `json:"verification_uri_complete"`
	ExpiresIn               json.RawMessage `json:"expires_in"`
	Interval                json.RawMessage `json:"interval"`
}

// parseDeviceResponse decodes and checks a device authorization response
// for the MCP server at serverURL. Its errors never hold the device code.
func parseDeviceResponse(data []byte, serverURL string) (*deviceGrant, error) {
	var dr deviceResponse
	if err := json.Unmarshal(data, &dr); err != nil {
		return nil, fmt.Errorf("bad response: %v", jsonErr(err))
	}
	if dr.VerificationURI == "" {
		dr.VerificationURI = dr.VerificationURL
	}
	switch {
	case dr.DeviceCode == "":
		return nil, errors.New("the response has no device_code")
	case len(dr.DeviceCode) > maxDeviceCode:
		return nil, fmt.Errorf("the device_code is longer than %d bytes", maxDeviceCode)
	case dr.UserCode == "":
		return nil, errors.New("the response has no user_code")
	case len(dr.UserCode) > maxUserCode:
		return nil, fmt.Errorf("the user_code is longer than %d bytes", maxUserCode)
	case dr.VerificationURI == "":
		return nil, errors.New("the response has no verification_uri")
	case len(dr.VerificationURI) > maxVerificationURI || len(dr.VerificationURIComplete) > maxVerificationURI:
		return nil, fmt.Errorf("a verification_uri is longer than %d bytes", maxVerificationURI)
	}
	// The person's browser goes there and they log in: the rules of an
	// authorization endpoint (RFC 6749 section 3.1: TLS), so no
	// javascript:, data: or file: address, and no plain http off
	// loopback (RFC 8628 section 5.4, remote phishing: the address
	// shown must be the authorization server's, unaltered on the way).
	if err := safe.CheckEndpointURL(dr.VerificationURI, serverURL); err != nil {
		return nil, fmt.Errorf("verification_uri: %w", err)
	}
	if dr.VerificationURIComplete != "" {
		if err := safe.CheckEndpointURL(dr.VerificationURIComplete, serverURL); err != nil {
			return nil, fmt.Errorf("verification_uri_complete: %w", err)
		}
	}
	exp, ok := parseExpiresIn(dr.ExpiresIn)
	if !ok || exp <= 0 {
		return nil, errors.New("the response has no positive expires_in")
	}
	expiresIn := seconds(exp)
	interval := defaultDeviceInterval
	if n, ok := parseExpiresIn(dr.Interval); ok && n > 0 {
		interval = seconds(n)
	}
	interval = min(interval, expiresIn)
	return &deviceGrant{
		prompt:     DevicePrompt{UserCode: dr.UserCode, VerificationURI: dr.VerificationURI, VerificationURIComplete: dr.VerificationURIComplete},
		deviceCode: dr.DeviceCode, expiresIn: expiresIn, interval: interval,
	}, nil
}

// seconds is n seconds, at most a day (no overflow, no endless wait).
func seconds(n int64) time.Duration {
	return time.Duration(min(n, 24*3600)) * time.Second
}

// requestDevice posts a device authorization request (RFC 8628 section
// 3.1), authenticating the client as at the token endpoint.
func requestDevice(ctx context.Context, client *http.Client, endpoint string, auth clientAuth, scopes []string, resource, serverURL string) (*deviceGrant, error) {
	form := url.Values{}
	if len(scopes) > 0 {
		form.Set("scope", joinScopes(scopes))
	}
	if resource != "" {
		form.Set("resource", resource) // RFC 8707, as in every MCP authorization request
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("device authorization request to %s: %v", safe.RedactURL(endpoint), err)
	}
	auth.dpop = nil // RFC 9449 binds the token, at the token endpoint
	auth.apply(req, form)
	body := form.Encode()
	req.Body = io.NopCloser(strings.NewReader(body))
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := do(client, req)
	if err != nil {
		return nil, fmt.Errorf("device authorization request: %w", err)
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("device authorization request: %w", endpointError("device authorization request", endpoint, resp, requestSecrets(form, auth)...))
	}
	data, err := readBody(resp, maxMetadataBody)
	if err != nil {
		return nil, fmt.Errorf("device authorization request to %s: %v", safe.RedactURL(endpoint), err)
	}
	g, err := parseDeviceResponse(data, serverURL)
	if err != nil {
		return nil, fmt.Errorf("device authorization response of %s: %w", safe.RedactURL(endpoint), err)
	}
	return g, nil
}

// devicePoll is the poll loop of the device grant: its clock and sleep.
type devicePoll struct {
	client   *http.Client
	endpoint string
	auth     clientAuth
	resource string
	now      func() time.Time
	sleep    func(ctx context.Context, d time.Duration) error
	log      *logger
}

// poll asks the token endpoint for the token of g until the person
// approved or denied it, the code expired, deadline passed or ctx ended.
// It waits g.interval before each request, 5 s more after each
// slow_down, and twice as long after an unreachable or failing endpoint
// (RFC 8628 section 3.5).
func (p *devicePoll) poll(ctx context.Context, g *deviceGrant, deadline time.Time) (*Token, error) {
	interval, failures := g.interval, 0
	for {
		if left := deadline.Sub(p.now()); left < interval {
			if err := p.sleep(ctx, max(left, 0)); err != nil {
				return nil, fmt.Errorf("waiting for the approval: %w", err)
			}
			return nil, fmt.Errorf("%w (waited until %s)", ErrDeviceExpired, deadline.Format(time.TimeOnly))
		}
		if err := p.sleep(ctx, interval); err != nil {
			return nil, fmt.Errorf("waiting for the approval: %w", err)
		}
		form := url.Values{}
		form.Set("grant_type", GrantDeviceCode)
		form.Set("device_code", g.deviceCode)
		if p.resource != "" {
			form.Set("resource", p.resource)
		}
		tok, _, err := postToken(ctx, p.client, p.endpoint, form, p.auth, p.now())
		if err == nil {
			return tok, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("waiting for the approval: %w", ctx.Err())
		}
		var te *TokenError
		var he *HTTPStatusError
		code := ""
		if errors.As(err, &te) {
			code = te.Code
		}
		switch {
		case code == "authorization_pending":
			failures = 0
		case code == "slow_down":
			failures = 0
			interval += slowDownStep
			p.log.printf("the authorization server asks to slow down: polling every %v", interval)
		case code == "access_denied":
			return nil, withDescription(ErrDeviceDenied, te.Description)
		case code == "expired_token":
			return nil, withDescription(ErrDeviceExpired, te.Description)
		case te != nil, errors.Is(err, ErrRedirect), errors.As(err, &he) && he.StatusCode < 500 && he.StatusCode != http.StatusTooManyRequests:
			return nil, err
		default: // unreachable, 429 or 5xx: back off, a bounded number of times
			if failures++; failures > maxPollFailures {
				return nil, err
			}
			interval = max(interval, min(2*interval, maxBackoffInterval))
			p.log.printf("polling failed (%v): polling every %v", err, interval)
		}
	}
}

// withDescription is err with the server's (sanitized) description.
func withDescription(err error, desc string) error {
	if desc == "" {
		return err
	}
	return fmt.Errorf("%w: the server says: %s", err, desc)
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkWays checks that Login can reach the person in the ways opts
// allow.
func (o *LoginOptions) checkWays() error {
	if o.Device != DeviceNever && o.ShowDeviceCode == nil {
		return errors.New("login: no way to show the code of a device login")
	}
	if o.Device != DeviceOnly && o.OpenBrowser == nil {
		return errors.New("login: no way to open the authorization URL")
	}
	return nil
}

// useDevice says whether the login uses the device grant at md.
func (o *LoginOptions) useDevice(md *AuthServerMetadata) (bool, error) {
	switch {
	case o.Device == DeviceNever:
		return false, nil
	case md.DeviceAuthorizationEndpoint != "" && md.TokenEndpoint != "":
		return true, nil
	case o.Device == DeviceOnly:
		return false, ErrNoDeviceGrant
	}
	return false, nil
}

// storedClient is the dynamic registration kept for issuer: the
// record's, else the one the store keeps across a logout.
func storedClient(rec *Record, store *Store, issuer string) *ClientRegistration {
	if rec != nil && rec.Client != nil && sameIssuer(rec.Client.Issuer, issuer) {
		return rec.Client
	}
	return store.LoadClient(issuer)
}

// deviceRefused is the error of a device login the authorization server
// refused to start (no client for the grant, an error answer of the
// device authorization endpoint): with DeviceIfOffered, Login goes on
// with the browser.
type deviceRefused struct{ err error }

func (e *deviceRefused) Error() string { return e.err.Error() }
func (e *deviceRefused) Unwrap() error { return e.err }

// deviceLogin is the rest of Login for the device authorization grant:
// the client, the device authorization request, the code shown, the
// polls, the record saved.
func deviceLogin(ctx context.Context, client *http.Client, opts *LoginOptions, s *session, chs []Challenge, rec *Record, log *logger) (*Token, error) {
	md := s.md
	scopes := selectScopes(opts.Scopes, chs, s.prm, md)
	reg, err := chooseClient(ctx, client, opts, md, s.issuer, storedClient(rec, opts.Store, s.issuer), rec, "", scopes, log)
	if err != nil {
		return nil, &deviceRefused{fmt.Errorf("login: %w", err)}
	}
	// Polls must not fail on a rule every one of them breaks.
	if err := safe.CheckEndpointURL(md.TokenEndpoint, opts.ServerURL); err != nil {
		return nil, fmt.Errorf("login: token endpoint: %w", err)
	}
	log.printf("asking for a device code at %s", safe.RedactURL(md.DeviceAuthorizationEndpoint))
	g, err := requestDevice(ctx, client, md.DeviceAuthorizationEndpoint, reg.auth(), scopes, s.resource, opts.ServerURL)
	var te *TokenError
	var he *HTTPStatusError
	if errors.As(err, &te) || errors.As(err, &he) {
		return nil, &deviceRefused{fmt.Errorf("login: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	now := opts.now()
	deadline := now.Add(min(g.expiresIn, timeout))
	g.prompt.Expires = deadline
	if err := opts.ShowDeviceCode(g.prompt); err != nil {
		return nil, fmt.Errorf("login: showing the code: %v", err)
	}
	auth, err := s.withDPoP(reg.auth(), log)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	p := &devicePoll{client: client, endpoint: md.TokenEndpoint, auth: auth, resource: s.resource, now: opts.now, sleep: opts.Sleep, log: log}
	if p.sleep == nil {
		p.sleep = sleepCtx
	}
	log.printf("waiting for the approval (polling %s every %v)", safe.RedactURL(md.TokenEndpoint), g.interval)
	tok, err := p.poll(ctx, g, deadline)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if err := granted(tok, scopes); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	log.printf("authorized")
	now = opts.now()
	if err := s.save(opts.Store, opts.ServerName, reg, tok, scopes, "device_code", now); err != nil {
		return tok, fmt.Errorf("login: %w", err)
	}
	if err := opts.Store.SaveClient(reg); err != nil {
		log.printf("warning: %v", err)
	}
	return tok, nil
}
