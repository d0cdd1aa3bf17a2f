package manager

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// DefaultLoginTimeout bounds the wait for the browser to come back.
const DefaultLoginTimeout = oauth.DefaultLoginTimeout

// DeviceUse says whether a login uses the device authorization grant
// (RFC 8628): see LoginOptions.Device.
type DeviceUse int

// The uses of the device authorization grant.
const (
	DeviceNever     DeviceUse = iota // the browser (or paste) flow
	DeviceIfOffered                  // the device grant when offered, else the browser
	DeviceOnly                       // the device grant, or ErrNoDeviceGrant
)

// oauthDevice is u as the oauth package spells it.
func (u DeviceUse) oauthDevice() oauth.DeviceUse {
	switch u {
	case DeviceIfOffered:
		return oauth.DeviceIfOffered
	case DeviceOnly:
		return oauth.DeviceOnly
	}
	return oauth.DeviceNever
}

// A DevicePrompt is the code and the address of a device login, to show
// the person (no secret; every string is the server's: escape it for its
// sink). The addresses passed the rules of an OAuth endpoint.
type DevicePrompt struct {
	UserCode                string
	VerificationURI         string
	VerificationURIComplete string    // "" when the server sent none
	Expires                 time.Time // the end of the wait: the code's expiry, or the login's timeout
}

// showDevice hands show the prompt of an oauth device login.
func showDevice(show func(DevicePrompt) error) func(oauth.DevicePrompt) error {
	if show == nil {
		return nil
	}
	return func(p oauth.DevicePrompt) error {
		return show(DevicePrompt{UserCode: p.UserCode, VerificationURI: p.VerificationURI,
			VerificationURIComplete: p.VerificationURIComplete, Expires: p.Expires})
	}
}

// probeTimeout bounds the tokenless connection that learns how a server
// asks for a login.
const probeTimeout = 30 * time.Second

// LoginOptions say which server Login is for and how it reaches the
// person. Exactly one of Server and URL is set.
type LoginOptions struct {
	// Server is a configured HTTP server (valid, enabled; approval is
	// the caller's business: a login runs none of the server's code).
	Server *config.Server
	// URL is a server given by its address instead; its tokens are kept
	// under Name (default: URLName(URL)). Header is sent to it.
	URL    string
	Name   string
	Header map[string]string

	// Scopes replace the scopes asked for (default: the definition's
	// oauth.scopes, else what the server asks for). A pending step-up
	// (see StepUp) adds its scopes in any case.
	Scopes []string
	// ClientID, ClientSecret and ClientMetadataURL override the
	// definition's oauth settings. The definition's client_secret may
	// hold ${VAR} references, expanded with Getenv.
	ClientID, ClientSecret, ClientMetadataURL string
	// CallbackPort overrides the definition's oauth.callbackPort: the
	// loopback port of the browser flow's callback (0: the definition's,
	// else a free one).
	CallbackPort int
	// Getenv looks up the variables of the definition's client_secret
	// (default os.Getenv).
	Getenv func(string) string

	// ClientCredentials selects the client_credentials grant (a machine
	// login, no browser): with ClientSecret, or with PrivateKeyPEM (a
	// signed JWT, SigningAlgorithm ES256 or RS256, "" = from the key).
	ClientCredentials bool
	PrivateKeyPEM     string
	SigningAlgorithm  string
	// IDToken selects cross-app access: the identity provider's ID token
	// is exchanged at IdPTokenEndpoint (as IdPClientID, IdPClientSecret).
	IDToken                      string
	IdPTokenEndpoint             string
	IdPClientID, IdPClientSecret string
	// JWTAssertionFile selects workload identity: the RFC 7523
	// jwt-bearer grant with the JWT in this file (a CI system's OIDC
	// token), as ClientID. The file is read again whenever the token
	// expires (platforms rotate it).
	JWTAssertionFile string

	// OpenURL is given the authorization URL of the browser flow: show it
	// to the person and open their browser. It carries a one-time state;
	// show it to nobody else. Required for the browser flow.
	OpenURL func(url string) error
	// ReadPastedURL, when set, selects paste mode (for a browser on
	// another machine): after OpenURL, it returns the address the browser
	// was sent back to, as the person pasted it.
	ReadPastedURL func() (string, error)
	// Device says whether the device authorization grant (RFC 8628) is
	// used instead of the browser: DeviceNever (the zero value),
	// DeviceIfOffered (when the authorization server offers it: for a
	// person with no browser here, in an SSH session), DeviceOnly
	// (ErrNoDeviceGrant when not offered).
	Device DeviceUse
	// ShowDeviceCode is given the code and the address of a device
	// login, to show the person; the wait for their approval follows.
	// Required unless Device is DeviceNever (then OpenURL is required
	// only for DeviceIfOffered).
	ShowDeviceCode func(DevicePrompt) error
	// Timeout bounds the wait for the browser, or for the approval of a
	// device login (which also ends when its code expires) (default
	// DefaultLoginTimeout).
	Timeout time.Duration
	// Logf, when set, is told what the login does, step by step; never a
	// secret.
	Logf func(format string, args ...any)
	// Force logs in again although a usable token is there. Without it,
	// a browser login (no machine grant given, no step-up pending) whose
	// saved token the server still accepts does nothing: the result says
	// AlreadyLoggedIn.
	Force bool
}

// A LoginResult says how a login went.
type LoginResult struct {
	Server string
	// NotNeeded says the server answered without a token and nothing
	// was asked of the person (no tokens were saved).
	NotNeeded bool
	// AlreadyLoggedIn says a usable token was there and the server
	// accepted it: nothing was asked of the person (see Force). State
	// says how the token stood (AuthLoggedIn or AuthRefreshable).
	AlreadyLoggedIn bool
	State           AuthState
	Scopes          []string  // granted
	Expiry          time.Time // zero: the token does not expire
	Refreshable     bool      // a refresh token was granted
}

// URLName is the name a server given by URL goes by: its host and port.
func URLName(raw string) string {
	rest := raw
	if i := strings.Index(rest, "//"); i >= 0 {
		rest = rest[i+2:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	return rest
}

// CheckURL says whether raw may be used as a server URL: https, or plain
// http only to a loopback host, and no user:password in it. The error
// shows the URL redacted.
func CheckURL(raw string) error { return safe.CheckServerURL(raw, false) }

// Login logs in to an HTTP server for the home's token store: it asks the
// server (without a token) how it wants to be logged in to, then runs
// the authorization code flow with PKCE through opts.OpenURL (or the
// client_credentials grant, or cross-app access, or workload identity),
// and saves the tokens (0600, atomically). A server that answers without
// a token needs no login: the result says NotNeeded. A browser login
// whose saved token still works does nothing unless opts.Force: the
// result says AlreadyLoggedIn.
//
// A server that asked for more scope (StepUp) gets the union of the
// scopes, at most oauth.DefaultMaxAttempts times in a row; then Login
// fails with ErrTooManyAttempts until Logout.
//
// Errors are *ServerError: in the phase of the tokenless connection when
// the server could not be reached (connect, initialize…), else in the
// auth phase, wrapping what the flow said (ErrNoClientID,
// ErrPKCEUnsupported, *ResourceMismatchError, *IssuerMismatchError,
// context.DeadlineExceeded when the browser did not come back, …).
func (h *Home) Login(ctx context.Context, opts LoginOptions) (*LoginResult, error) {
	spec, o, err := loginTarget(&opts)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error {
		return &ServerError{Server: spec.Name, Phase: PhaseAuth, Err: ownAuthErrors(err)}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	clientSecret := expandVars(o.ClientSecret, getenv)
	if opts.ClientID != "" {
		o.ClientID = opts.ClientID
	}
	if opts.ClientSecret != "" {
		clientSecret = opts.ClientSecret
	}
	if opts.ClientMetadataURL != "" {
		o.ClientMetadataURL = opts.ClientMetadataURL
	}
	scopes := o.Scopes
	if len(opts.Scopes) > 0 {
		scopes = opts.Scopes
	}

	// Logged in already: nothing is asked of the person, unless Force, a
	// machine grant or a pending step-up says otherwise.
	su, _ := h.StepUp(spec.Name)
	machine := opts.ClientCredentials || opts.IDToken != "" || opts.JWTAssertionFile != ""
	if su == nil && !opts.Force && !machine {
		if res := h.stillLoggedIn(ctx, spec); res != nil {
			return res, nil
		}
	}
	// A step-up asked for more scope: ask for the union, a bounded number
	// of times in a row.
	if su != nil {
		var a oauth.Attempts
		for i := 0; i < su.Attempts; i++ {
			_ = a.Begin()
		}
		if err := a.Begin(); err != nil {
			return nil, fail(fmt.Errorf("%w: the server still asks for more scope (%s) after %d authorizations",
				err, strings.Join(su.Scopes, " "), su.Attempts))
		}
		scopes = oauth.UnionScopes(su.Scopes, scopes)
	}

	challenge, err := probeLogin(ctx, spec)
	if err != nil {
		return nil, err
	}
	if challenge == nil && o.ClientID == "" && !machine {
		return &LoginResult{Server: spec.Name, NotNeeded: true}, nil
	}

	store := h.tokens
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	var tok *oauth.Token
	switch {
	case opts.ClientCredentials:
		tok, err = oauth.ClientCredentials(ctx, oauth.ClientCredentialsOptions{ServerURL: spec.URL, Client: client,
			Challenge: challenge, ClientID: o.ClientID, ClientSecret: clientSecret, PrivateKeyPEM: opts.PrivateKeyPEM,
			SigningAlgorithm: opts.SigningAlgorithm, Scopes: scopes, AuthorizationServer: o.AuthorizationServer, AuthServerMetadataURL: o.AuthServerMetadataURL,
			Store: store, ServerName: spec.Name, Logf: opts.Logf})
	case opts.JWTAssertionFile != "":
		tok, err = oauth.WorkloadIdentity(ctx, oauth.WorkloadOptions{ServerURL: spec.URL, Client: client, Challenge: challenge,
			ClientID: o.ClientID, ClientSecret: clientSecret, AssertionFile: opts.JWTAssertionFile, Scopes: scopes,
			AuthorizationServer: o.AuthorizationServer, AuthServerMetadataURL: o.AuthServerMetadataURL, Store: store, ServerName: spec.Name, Logf: opts.Logf})
	case opts.IDToken != "":
		tok, err = oauth.CrossAppAccess(ctx, oauth.CrossAppOptions{ServerURL: spec.URL, Client: client, Challenge: challenge,
			ClientID: o.ClientID, ClientSecret: clientSecret, IDToken: opts.IDToken, IdPTokenEndpoint: opts.IdPTokenEndpoint,
			IdPClientID: opts.IdPClientID, IdPClientSecret: opts.IdPClientSecret, Scopes: scopes,
			AuthorizationServer: o.AuthorizationServer, AuthServerMetadataURL: o.AuthServerMetadataURL, Store: store, ServerName: spec.Name, Logf: opts.Logf})
	default:
		if opts.OpenURL == nil && opts.Device != DeviceOnly {
			return nil, fail(errors.New("no way to show the authorization URL (LoginOptions.OpenURL)"))
		}
		if opts.ShowDeviceCode == nil && opts.Device != DeviceNever {
			return nil, fail(errors.New("no way to show the code of a device login (LoginOptions.ShowDeviceCode)"))
		}
		port := o.CallbackPort
		if opts.CallbackPort != 0 {
			port = opts.CallbackPort
		}
		tok, err = oauth.Login(ctx, oauth.LoginOptions{ServerURL: spec.URL, Client: client, Challenge: challenge,
			ClientID: o.ClientID, ClientSecret: clientSecret, Scopes: scopes, ClientMetadataURL: o.ClientMetadataURL,
			CallbackPort: port, AuthServerMetadataURL: o.AuthServerMetadataURL,
			AuthorizationServer: o.AuthorizationServer, OpenBrowser: opts.OpenURL, ReadPastedURL: opts.ReadPastedURL,
			Device: opts.Device.oauthDevice(), ShowDeviceCode: showDevice(opts.ShowDeviceCode),
			Store: store, ServerName: spec.Name, Logf: opts.Logf, Timeout: timeout})
	}
	if err != nil {
		return nil, fail(err)
	}
	if su != nil {
		su.Attempts++
		_ = h.saveStepUp(spec.Name, su)
	}
	return &LoginResult{Server: spec.Name, State: AuthLoggedIn, Scopes: tok.Scopes(), Expiry: tok.Expiry, Refreshable: tok.RefreshToken != ""}, nil
}

// stillLoggedIn returns the result of a login that need not be made: the
// saved token is usable and the server accepts it (a session with it
// lists the tools). A token the server refuses (401, 403), or a server
// that cannot be reached, gives nil: the login goes on.
func (h *Home) stillLoggedIn(ctx context.Context, spec *Spec) *LoginResult {
	st := h.Auth(spec.Name)
	if !st.State.Usable() {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := Dial(pctx, spec, &DialOptions{HTTPClient: h.HTTPClient(spec.Name, spec.URL),
		Protocol: protocol.Options{ClientName: "mcpwire", ClientVersion: "login"}})
	if err != nil {
		return nil
	}
	defer conn.Close()
	_, err = conn.ListTools(pctx)
	var ce *protocol.CapabilityError
	if err != nil && !errors.As(err, &ce) {
		return nil
	}
	return &LoginResult{Server: spec.Name, AlreadyLoggedIn: true, State: st.State, Scopes: st.Scopes,
		Expiry: st.Expiry, Refreshable: st.Refreshable}
}

// loginTarget is the Spec of the server a login is for and a copy of its
// oauth settings (never nil).
func loginTarget(opts *LoginOptions) (*Spec, *config.OAuth, error) {
	o := &config.OAuth{}
	switch {
	case opts.Server != nil && opts.URL != "":
		return nil, nil, errors.New("manager: login: give a configured server or a URL, not both")
	case opts.Server != nil:
		s := opts.Server
		if s.Type == config.TypeStdio {
			return nil, nil, &ServerError{Server: s.Name, Phase: PhaseConfig, Err: errors.New("a stdio server: login is for servers reached over HTTP")}
		}
		spec, err := SpecFromConfig(s)
		if err != nil {
			return nil, nil, &ServerError{Server: s.Name, Phase: PhaseConfig, Err: err}
		}
		if s.OAuth != nil {
			c := *s.OAuth
			o = &c
		}
		return spec, o, nil
	case opts.URL != "":
		name := opts.Name
		if name == "" {
			name = URLName(opts.URL)
		}
		if err := CheckURL(opts.URL); err != nil {
			return nil, nil, &ServerError{Server: name, Phase: PhaseConfig, Err: err}
		}
		return &Spec{Name: name, Transport: config.TypeHTTP, URL: opts.URL, Header: opts.Header}, o, nil
	}
	return nil, nil, errors.New("manager: login: no server (LoginOptions.Server or URL)")
}

// probeLogin connects without a token and lists the tools, to learn
// whether and how the server asks for a login: the WWW-Authenticate
// values of its 401 (or 403), or nil when it answered.
func probeLogin(ctx context.Context, spec *Spec) ([]string, error) {
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	conn, err := Dial(pctx, spec, &DialOptions{HTTPClient: plain,
		Protocol: protocol.Options{ClientName: "mcpwire", ClientVersion: "login"}})
	if err == nil {
		_, err = conn.ListTools(pctx)
		if err != nil {
			err = conn.Explain(PhaseList, err)
		}
		conn.Close()
	}
	if err == nil {
		return nil, nil
	}
	var he *transport.HTTPError
	if errors.As(err, &he) && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden) {
		ch := he.Header.Values("WWW-Authenticate")
		if ch == nil {
			ch = []string{}
		}
		return ch, nil
	}
	return nil, err
}

// expandVars expands ${VAR} references in s.
func expandVars(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return os.Expand(s, getenv)
}

// A LogoutResult says what Logout did.
type LogoutResult struct {
	// LoggedIn says there was a token file (or one that could not be
	// read) to forget.
	LoggedIn bool
	// Revoked says the authorization server confirmed the revocation.
	Revoked bool
	// RevokeErr says why the revocation failed; the tokens are forgotten
	// all the same.
	RevokeErr error
}

// Logout forgets the tokens of the server name in the home's token
// store, revoking them first where the authorization server offers
// revocation, and forgets a pending step-up.
func (h *Home) Logout(ctx context.Context, name string) (*LogoutResult, error) {
	store := h.tokens
	rec, _, lerr := store.Load(name)
	_ = h.clearStepUp(name)
	if rec == nil && lerr == nil {
		return &LogoutResult{}, nil
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res := &LogoutResult{LoggedIn: true, Revoked: rec != nil && rec.RevocationEndpoint != ""}
	err := oauth.Logout(ctx, client, store, name)
	if err != nil && rec != nil {
		if r2, _, e2 := store.Load(name); e2 == nil && r2 == nil {
			// The file is gone; only the revocation failed.
			res.Revoked, res.RevokeErr = false, err
			err = nil
		}
	}
	if err != nil {
		return nil, &ServerError{Server: name, Phase: PhaseAuth, Err: ownAuthErrors(err)}
	}
	return res, nil
}
