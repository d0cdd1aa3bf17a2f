package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// DefaultLoginTimeout bounds the wait for the browser's callback.
const DefaultLoginTimeout = 5 * time.Minute

// LoginOptions configures [Login]. Zero fields take defaults.
type LoginOptions struct {
	ServerURL string       // the MCP endpoint
	Client    *http.Client // for every request; nil = a default client; redirects are refused
	// Challenge holds the WWW-Authenticate values of the 401 or 403 that
	// led here (may be empty).
	Challenge []string
	// ClientID and ClientSecret are pre-registered credentials.
	ClientID, ClientSecret string
	// Scopes, when set, are requested instead of the scope selection
	// (challenge, then scopes_supported). Step-up passes the union here.
	Scopes []string
	// ClientMetadataURL is the Client ID Metadata Document URL used as
	// client_id when the server supports it.
	ClientMetadataURL string
	// AuthorizationServer overrides the issuer found in the resource
	// metadata.
	AuthorizationServer string
	// AuthServerMetadataURL, when set, is the authorization server's
	// metadata document itself, read instead of discovering it (for a
	// server whose discovery is broken).
	AuthServerMetadataURL string
	// CallbackPort, when not 0, is the loopback port the callback is
	// received on (redirect_uri http://127.0.0.1:PORT/callback), for an
	// authorization server that allows only a registered redirect URI.
	CallbackPort int
	// OpenBrowser is given the authorization URL (it carries state: show
	// it to the user only). Required.
	OpenBrowser func(url string) error
	// ReadPastedURL, when set, selects paste mode: after OpenBrowser the
	// user pastes the address the browser was redirected to.
	ReadPastedURL func() (string, error)
	// Device says whether the device authorization grant (RFC 8628) is
	// used instead: never (the zero value), when the authorization
	// server offers it, or only it.
	Device DeviceUse
	// ShowDeviceCode is given the code and address of a device login to
	// show the person; the wait for their approval follows. Required
	// unless Device is DeviceNever; OpenBrowser is then required only
	// for DeviceIfOffered.
	ShowDeviceCode func(DevicePrompt) error
	// Sleep waits between the polls of a device login (default: a timer
	// that ctx's end stops).
	Sleep      func(ctx context.Context, d time.Duration) error
	Store      *Store // nil = nothing saved
	ServerName string
	// Logf receives progress lines; never a secret.
	Logf func(format string, args ...any)
	// Timeout bounds the wait for the callback, or for the approval of
	// a device login, which also ends when its code expires (default 5
	// minutes).
	Timeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// session is one discovery result: where to authorize and for what.
type session struct {
	_ [0]func() // not comparable: no equality function in the binary

	resource string // the resource parameter
	prm      *ProtectedResourceMetadata
	md       *AuthServerMetadata
	issuer   string // the recorded issuer, for RFC 9207
}

func (o *LoginOptions) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// discover runs protected resource and authorization server discovery,
// with the 2025-03-26 fallbacks when the server has no resource metadata.
func discover(ctx context.Context, client *http.Client, serverURL string, challenge []string, asOverride string, log *logger, metadataURL ...string) (*session, []Challenge, error) {
	chs, err := ParseChallenges(challenge)
	if err != nil {
		log.printf("ignoring unparsable WWW-Authenticate header: %v", err)
	}
	canon, err := CanonicalResource(serverURL)
	if err != nil {
		return nil, chs, err
	}
	s := &session{resource: canon}
	prm, err := DiscoverResource(ctx, client, serverURL, chs)
	switch {
	case err == nil:
		s.prm = prm
		// RFC 9728 section 3.3: the resource identifier, exactly as published.
		s.resource = prm.Resource
		log.printf("protected resource metadata for %s", safe.RedactURL(prm.Resource))
	case errors.Is(err, ErrNoResourceMetadata):
		log.printf("no protected resource metadata; using 2025-03-26 discovery")
	default:
		return nil, chs, err
	}
	if len(metadataURL) > 0 && metadataURL[0] != "" {
		md, err := FetchAuthServerMetadata(ctx, client, metadataURL[0])
		if err != nil {
			return nil, chs, err
		}
		s.md, s.issuer = md, md.Issuer
		log.printf("authorization server %s (metadata from %s)", safe.RedactURL(s.issuer), safe.RedactURL(metadataURL[0]))
		return s, chs, nil
	}
	issuer := asOverride
	if issuer == "" && prm != nil {
		if len(prm.AuthorizationServers) == 0 {
			return nil, chs, errors.New("discovering authorization server: resource metadata lists no authorization server")
		}
		issuer = prm.AuthorizationServers[0]
	}
	if issuer != "" {
		md, err := DiscoverAuthServer(ctx, client, issuer)
		if err != nil {
			return nil, chs, err
		}
		s.md, s.issuer = md, md.Issuer
	} else {
		md, err := discoverLegacy(ctx, client, serverURL)
		if err != nil {
			return nil, chs, err
		}
		s.md, s.issuer = md, md.Issuer
	}
	log.printf("authorization server %s", safe.RedactURL(s.issuer))
	return s, chs, nil
}

// selectScopes applies the MCP scope selection strategy: explicit scopes,
// else the challenge's scope, else all of scopes_supported, else none;
// offline_access is added only when the authorization server lists it.
func selectScopes(explicit []string, chs []Challenge, prm *ProtectedResourceMetadata, md *AuthServerMetadata) []string {
	var scopes []string
	switch {
	case len(explicit) > 0:
		scopes = slices.Clone(explicit)
	default:
		if c, ok := Bearer(chs); ok && len(c.Scopes()) > 0 {
			scopes = c.Scopes()
		} else if prm != nil {
			scopes = slices.Clone(prm.ScopesSupported)
		}
	}
	hasOffline := slices.Contains(md.ScopesSupported, "offline_access")
	if !hasOffline {
		scopes = slices.DeleteFunc(scopes, func(s string) bool { return s == "offline_access" })
	} else if len(scopes) > 0 && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return UnionScopes(scopes, nil)
}

// UnionScopes returns the scopes of a then those of b not in a, without
// duplicates or empty strings.
func UnionScopes(a, b []string) []string {
	var out []string
	for _, s := range slices.Concat(a, b) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func joinScopes(s []string) string { return strings.Join(s, " ") }

// Login runs the authorization code flow with PKCE for the MCP server at
// opts.ServerURL: discovery, client registration, the browser (or paste)
// step on a loopback redirect, the code exchange. The resulting record is
// saved in opts.Store under opts.ServerName.
func Login(ctx context.Context, opts LoginOptions) (*Token, error) {
	ctx = withServerURL(ctx, opts.ServerURL)
	log := &logger{opts.Logf}
	if err := opts.checkWays(); err != nil {
		return nil, err
	}
	client := noRedirectClient(opts.Client)
	var rec *Record
	if opts.Store != nil {
		r, warn, err := opts.Store.Load(opts.ServerName)
		if warn != "" {
			log.printf("warning: %s", warn)
		}
		if err == nil {
			rec = r
		}
	}
	s, chs, err := discover(ctx, client, opts.ServerURL, opts.Challenge, opts.AuthorizationServer, log, opts.AuthServerMetadataURL)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	md := s.md
	if device, err := opts.useDevice(md); err != nil || device {
		if err != nil {
			return nil, fmt.Errorf("login: %w", err)
		}
		tok, err := deviceLogin(ctx, client, &opts, s, chs, rec, log)
		var refused *deviceRefused
		if !errors.As(err, &refused) || opts.Device != DeviceIfOffered || ctx.Err() != nil {
			return tok, err
		}
		log.printf("the device login could not start (%v); logging in with the browser", err)
	}
	if err := checkPKCE(md); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
		return nil, errors.New("login: authorization server metadata lacks authorization or token endpoint")
	}
	scopes := selectScopes(opts.Scopes, chs, s.prm, md)

	// Listen first: dynamic registration needs the redirect URI. Reuse the
	// port of a stored dynamic registration when it is free.
	stored := storedClient(rec, opts.Store, s.issuer)
	ln, err := listenLoopback(stored, opts.CallbackPort)
	if err != nil {
		return nil, fmt.Errorf("login: listening for the callback: %v", err)
	}
	defer ln.Close()
	redirectURI := "http://" + ln.Addr().String() + "/callback"

	reg, err := chooseClient(ctx, client, &opts, md, s.issuer, stored, rec, redirectURI, scopes, log)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}

	verifier := GenerateVerifier()
	state := randomString(32)
	q := url.Values{}
	q.Set("response_type", "code")
	q.Set("client_id", reg.ClientID)
	q.Set("redirect_uri", redirectURI)
	q.Set("code_challenge", S256Challenge(verifier))
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	q.Set("resource", s.resource)
	if len(scopes) > 0 {
		q.Set("scope", joinScopes(scopes))
	}
	// The browser, not do, goes to the authorization endpoint: the same
	// rule, checked here.
	if err := safe.CheckEndpointURL(md.AuthorizationEndpoint, opts.ServerURL); err != nil {
		return nil, fmt.Errorf("login: authorization endpoint: %w", err)
	}
	authURL, err := addQuery(md.AuthorizationEndpoint, q)
	if err != nil {
		return nil, fmt.Errorf("login: %v", err)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	cb := callbackCheck{state: state, issuer: s.issuer, issRequired: md.AuthorizationResponseIssParameterSupported}
	log.printf("authorizing at %s", safe.RedactURL(md.AuthorizationEndpoint))
	var code string
	if opts.ReadPastedURL != nil {
		if err := opts.OpenBrowser(authURL); err != nil {
			return nil, fmt.Errorf("login: opening the authorization URL: %v", err)
		}
		pasted, err := opts.ReadPastedURL()
		if err != nil {
			return nil, fmt.Errorf("login: reading the pasted URL: %v", err)
		}
		code, err = cb.checkPasted(pasted)
		if err != nil {
			return nil, fmt.Errorf("login: %w", err)
		}
	} else {
		code, err = waitCallback(ctx, ln, timeout, func() error { return opts.OpenBrowser(authURL) }, cb)
		if err != nil {
			return nil, fmt.Errorf("login: %w", err)
		}
	}

	form := url.Values{}
	form.Set("grant_type", "authorization_code")
	form.Set("code", code)
	form.Set("redirect_uri", redirectURI)
	form.Set("code_verifier", verifier)
	form.Set("resource", s.resource)
	now := opts.now()
	auth, err := s.withDPoP(reg.auth(), log)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	tok, _, err := postToken(ctx, client, md.TokenEndpoint, form, auth, now)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if err := granted(tok, scopes); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	log.printf("authorized")
	if opts.Store != nil {
		nr := &Record{
			Resource:           s.resource,
			Issuer:             s.issuer,
			TokenEndpoint:      md.TokenEndpoint,
			RevocationEndpoint: md.RevocationEndpoint,
			Client:             reg,
			Token:              tok,
			Scopes:             scopes,
			Grant:              "authorization_code",
			UpdatedAt:          now.UTC(),
			Login:              newLoginID(),
		}
		if err := opts.Store.Save(opts.ServerName, nr); err != nil {
			return tok, fmt.Errorf("login: %w", err)
		}
		if err := opts.Store.SaveClient(reg); err != nil {
			log.printf("warning: %v", err)
		}
	}
	return tok, nil
}

// granted checks the type of a token a login was granted and gives it
// the scopes asked for when the server named none.
func granted(tok *Token, scopes []string) error {
	if err := checkBearer(tok); err != nil {
		return err
	}
	if tok.Scope == "" {
		tok.Scope = joinScopes(scopes)
	}
	return nil
}

func checkBearer(tok *Token) error {
	if tok.TokenType != "" && !strings.EqualFold(tok.TokenType, "bearer") && !tok.IsDPoP() {
		return fmt.Errorf("unsupported token type %q", clip(safe.Sanitize(tok.TokenType), 40))
	}
	return nil
}

// chooseClient picks the client identity in the order of the MCP
// specification: pre-registered, Client ID Metadata Document, a stored
// dynamic registration for this issuer, dynamic registration.
func chooseClient(ctx context.Context, client *http.Client, opts *LoginOptions, md *AuthServerMetadata, issuer string, stored *ClientRegistration, rec *Record, redirectURI string, scopes []string, log *logger) (*ClientRegistration, error) {
	now := opts.now()
	if opts.ClientID != "" {
		// Pre-registered credentials belong to one authorization server.
		if rec != nil && rec.Client != nil && rec.Client.Kind == KindPreRegistered && rec.Client.ClientID == opts.ClientID && !sameIssuer(rec.Client.Issuer, issuer) {
			return nil, &IssuerMismatchError{Where: "pre-registered client", Expected: safe.RedactURL(rec.Client.Issuer), Got: safe.RedactURL(issuer)}
		}
		reg := &ClientRegistration{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, Issuer: issuer, Kind: KindPreRegistered, RegisteredAt: now.UTC()}
		if opts.ClientSecret != "" {
			reg.AuthMethod = secretMethod(md)
		} else {
			reg.AuthMethod = "none"
		}
		log.printf("using the pre-registered client")
		return reg, nil
	}
	if opts.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported {
		if err := checkMetadataURL(opts.ClientMetadataURL); err != nil {
			return nil, err
		}
		log.printf("using client metadata document %s", safe.RedactURL(opts.ClientMetadataURL))
		return &ClientRegistration{ClientID: opts.ClientMetadataURL, AuthMethod: "none", Issuer: issuer, Kind: KindMetadataDocument, RegisteredAt: now.UTC()}, nil
	}
	// A device login (no redirect URI) reuses a registration for the
	// device grant; a browser login one for its redirect URI.
	fits := redirectURI == "" && slices.Contains(stored.grantTypes(), GrantDeviceCode) ||
		redirectURI != "" && stored != nil && slices.Contains(stored.RedirectURIs, redirectURI)
	if fits && stored.Kind == KindDynamic && (stored.SecretExpiresAt.IsZero() || now.Before(stored.SecretExpiresAt)) {
		log.printf("reusing the stored client registration")
		return stored, nil
	}
	if md.RegistrationEndpoint != "" {
		log.printf("registering a client at %s", safe.RedactURL(md.RegistrationEndpoint))
		if redirectURI == "" {
			return RegisterDevice(ctx, client, md, scopes, now)
		}
		return Register(ctx, client, md, redirectURI, scopes, now)
	}
	return nil, ErrNoClientID
}

// listenLoopback listens on 127.0.0.1: on port when it is not 0 (and
// only there), else on the stored registration's port when possible, else
// on a free port.
func listenLoopback(stored *ClientRegistration, port int) (net.Listener, error) {
	if port != 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return nil, fmt.Errorf("the callback port %d (oauth.callbackPort) cannot be used: %v", port, err)
		}
		return ln, nil
	}
	if stored != nil && stored.Kind == KindDynamic {
		for _, r := range stored.RedirectURIs {
			u, err := url.Parse(r)
			if err != nil || u.Hostname() != "127.0.0.1" {
				continue
			}
			if p, err := strconv.Atoi(u.Port()); err == nil && p > 0 {
				if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", u.Port())); err == nil {
					return ln, nil
				}
			}
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

func addQuery(endpoint string, q url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("bad authorization endpoint %s", safe.RedactURL(endpoint))
	}
	old := u.Query()
	for k, vs := range q {
		old[k] = vs
	}
	u.RawQuery = old.Encode()
	return u.String(), nil
}

// callbackCheck validates an authorization response.
type callbackCheck struct {
	_ [0]func() // not comparable: no equality function in the binary

	state       string
	issuer      string
	issRequired bool
}

// check validates the query of an authorization response and returns the
// code. RFC 9207 comes first: on an iss mismatch nothing of the response,
// not even its error, is acted upon.
func (c callbackCheck) check(q url.Values) (string, error) {
	iss, hasIss := q["iss"]
	switch {
	case hasIss && (len(iss) != 1 || iss[0] != c.issuer):
		got := ""
		if len(iss) > 0 {
			got = iss[0]
		}
		return "", &IssuerMismatchError{Where: "authorization response", Expected: safe.RedactURL(c.issuer), Got: safe.RedactURL(got)}
	case !hasIss && c.issRequired:
		return "", &IssuerMismatchError{Where: "authorization response", Expected: safe.RedactURL(c.issuer)}
	}
	got := q.Get("state")
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(c.state)) != 1 {
		return "", &AuthorizationError{Code: "state_mismatch", Description: "the state in the response is not the one sent"}
	}
	if e := q.Get("error"); e != "" {
		return "", &AuthorizationError{Code: clip(safe.Sanitize(e), 100), Description: clip(safe.Sanitize(q.Get("error_description")), 300)}
	}
	code := q.Get("code")
	if code == "" {
		return "", &AuthorizationError{Code: "missing_code", Description: "the response has no code"}
	}
	return code, nil
}

// checkPasted validates a pasted redirect address (or just its query).
func (c callbackCheck) checkPasted(pasted string) (string, error) {
	pasted = strings.TrimSpace(pasted)
	raw := pasted
	if u, err := url.Parse(pasted); err == nil && u.Scheme != "" {
		raw = u.RawQuery
	} else if i := strings.IndexByte(pasted, '?'); i >= 0 {
		raw = pasted[i+1:]
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "", errors.New("the pasted text is not a redirected URL")
	}
	return c.check(q)
}

const callbackPage = `<!doctype html><html><head><meta charset="utf-8"><title>mcpwire</title></head><body><p>%s</p></body></html>`

// waitCallback serves /callback on ln, calls open, and waits for the
// authorization response, ctx's end or the timeout.
func waitCallback(ctx context.Context, ln net.Listener, timeout time.Duration, open func() error, c callbackCheck) (string, error) {
	type result struct {
		code string
		err  error
	}
	results := make(chan result, 1)
	// One path, matched by hand: http.ServeMux's pattern parser and
	// conflict checks cost the release binary 32,768 bytes.
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		code, err := c.check(r.URL.Query())
		msg := "Authorization complete. You can close this window and return to mcpwire."
		if err != nil {
			msg = "Authorization failed: " + err.Error()
			w.WriteHeader(http.StatusBadRequest)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, callbackPage, safe.HTMLText(msg))
		select {
		case results <- result{code, err}:
		default:
		}
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(ln)
	}()
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
		<-served
	}()
	if err := open(); err != nil {
		return "", fmt.Errorf("opening the authorization URL: %v", err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-results:
		return r.code, r.err
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for the authorization callback: %w", ctx.Err())
	case <-timer.C:
		return "", fmt.Errorf("no authorization callback within %v: finish the login in the browser, or use --no-browser", timeout)
	}
}
