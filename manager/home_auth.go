package manager

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/oauth"
)

// An AuthState is where a server stands with its login, as the home's
// token file (and, for a configured server, its definition) says.
type AuthState int

// The states of a login.
const (
	// AuthNotLoggedIn: no usable token file, where one is needed (an
	// oauth section, or a server known by name only).
	AuthNotLoggedIn AuthState = iota
	// AuthNotApplicable: a stdio server; logins are for HTTP servers.
	AuthNotApplicable
	// AuthNotNeeded: an HTTP server with neither an oauth section nor a
	// token file.
	AuthNotNeeded
	// AuthLoggedIn: a token that has not expired.
	AuthLoggedIn
	// AuthRefreshable: an expired token with a refresh token, renewed
	// at its next use.
	AuthRefreshable
	// AuthExpired: an expired token and no way to renew it.
	AuthExpired
	// AuthInvalid: a token file that cannot be read or does not hold
	// together.
	AuthInvalid
)

// String is the state as `mcpwire list` shows it in its AUTH column.
func (s AuthState) String() string {
	switch s {
	case AuthNotApplicable:
		return "-"
	case AuthNotNeeded:
		return "not needed"
	case AuthLoggedIn:
		return "authenticated"
	case AuthRefreshable:
		return "refreshable"
	case AuthExpired:
		return "expired"
	case AuthInvalid:
		return "invalid"
	}
	return "not authenticated"
}

// Usable reports whether requests go out with a token that works or is
// renewed on the way (AuthLoggedIn, AuthRefreshable).
func (s AuthState) Usable() bool { return s == AuthLoggedIn || s == AuthRefreshable }

// An AuthStatus is what the home knows of a server's login.
type AuthStatus struct {
	State AuthState
	// Scopes are the scopes granted; Expiry is when the access token
	// expires (zero: never, or no token); Refreshable says a refresh
	// token is held.
	Scopes      []string
	Expiry      time.Time
	Refreshable bool
	// Warning is about the token file itself (its permissions), or "".
	Warning string
}

// Auth returns the login state of the server called name from its token
// file alone: AuthNotLoggedIn when there is none.
func (h *Home) Auth(name string) AuthStatus {
	rec, warn, err := h.tokens.Load(name)
	st := AuthStatus{Warning: warn}
	if err != nil {
		st.State = AuthInvalid
		return st
	}
	st.State = authState(rec.Status(time.Now()))
	if rec != nil && rec.Token != nil {
		st.Scopes, st.Expiry, st.Refreshable = rec.Token.Scopes(), rec.Token.Expiry, rec.Token.RefreshToken != ""
	}
	return st
}

// AuthFor returns the login state of the configured server s:
// AuthNotApplicable for stdio, AuthNotNeeded for an HTTP server with
// no oauth section and no token file, else what Auth says.
func (h *Home) AuthFor(s *config.Server) AuthStatus {
	if s.Type == config.TypeStdio {
		return AuthStatus{State: AuthNotApplicable}
	}
	if _, err := os.Lstat(h.tokens.Path(s.Name)); errors.Is(err, fs.ErrNotExist) && s.OAuth == nil {
		return AuthStatus{State: AuthNotNeeded}
	}
	return h.Auth(s.Name)
}

// authState maps the token store's states.
func authState(s oauth.Status) AuthState {
	switch s {
	case oauth.StatusAuthenticated:
		return AuthLoggedIn
	case oauth.StatusRefreshable:
		return AuthRefreshable
	case oauth.StatusExpired:
		return AuthExpired
	case oauth.StatusInvalid:
		return AuthInvalid
	case oauth.StatusNotNeeded:
		return AuthNotNeeded
	}
	return AuthNotLoggedIn
}

// NeedsLogin reports whether the HTTP server s must log in before it can
// be used: it has an oauth section or a token file, and no token that is
// valid or can be refreshed. A stdio server never does.
func (h *Home) NeedsLogin(s *config.Server) bool {
	switch st := h.AuthFor(s).State; st {
	case AuthNotApplicable, AuthNotNeeded:
		return false
	default:
		return !st.Usable()
	}
}

// Secrets returns the secrets of the token file of name (tokens, the
// registered client's secret), for a caller that must keep them out of
// what it prints.
func (h *Home) Secrets(name string) []string {
	rec, _, err := h.tokens.Load(name)
	if err != nil || rec == nil {
		return nil
	}
	var out []string
	if rec.Token != nil {
		out = append(out, rec.Token.AccessToken, rec.Token.RefreshToken)
		if rec.Token.DPoPKey != "" {
			out = append(out, rec.Token.DPoPKey)
		}
	}
	if rec.Client != nil {
		out = append(out, rec.Client.ClientSecret)
	}
	return out
}

// HTTPClient returns the *http.Client for the HTTP server called name at
// serverURL: its transport is an oauth.Transport over the server's token
// file, so stored tokens are sent (to that server only), refreshed
// before expiry and after a 401. Without a usable token requests go out
// bare. A 401 or 403 comes back as a response (the transport package
// makes it an *transport.HTTPError, which this package's errors explain as
// a *LoginRequiredError or *StepUpError in the auth phase); the scopes a
// 403 insufficient_scope asks for are remembered (see StepUp) for the
// next login. Redirects are refused. Nothing ever opens a browser.
func (h *Home) HTTPClient(name, serverURL string) *http.Client {
	return h.HTTPClientTLS(name, serverURL, nil)
}

// HTTPClientTLS is HTTPClient with TLS settings (a definition's "tls",
// see [TLSConfig]) for the server and its OAuth endpoints; nil keeps the
// defaults. The proxy is the environment's (HTTPS_PROXY, HTTP_PROXY,
// NO_PROXY), as for every request of mcpwire.
func (h *Home) HTTPClientTLS(name, serverURL string, tc *tls.Config) *http.Client {
	rec, _, err := h.tokens.Load(name)
	if err != nil {
		rec = nil
	}
	resource := ""
	if rec != nil && rec.Resource != "" && oauth.ResourceCovers(rec.Resource, serverURL) {
		resource = rec.Resource
	} else if r, err := oauth.CanonicalResource(serverURL); err == nil {
		resource = r
		if rec != nil && rec.Resource != "" {
			rec = nil // issued for another resource: never sent here
		}
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	if tc != nil {
		base.TLSClientConfig = tc
	}
	plain := &http.Client{Transport: base, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	src := oauth.NewStoreSource(plain, h.tokens, name, rec)
	src.ServerURL = serverURL
	su, _ := h.StepUp(name)
	rt := &stepUpTransport{home: h, name: name, pending: su,
		next: &oauth.Transport{Base: base, Source: src, Resource: resource}}
	return &http.Client{Transport: rt}
}

// httpClientFor is HTTPClient for a configured server (the default of
// Options.HTTPClient).
func (h *Home) httpClientFor(s *config.Server) *http.Client {
	u := ""
	if s.Expanded != nil {
		u = s.Expanded.URL
	}
	tc, err := TLSConfig(s)
	if err != nil {
		return ErrorClient(fmt.Errorf("server %q: %v", s.Name, err))
	}
	return WithHeadersHelper(h.HTTPClientTLS(s.Name, u, tc), s)
}

// A StepUp is the pending step-up of a server: the scopes the next login
// asks for and the authorizations made in a row for it. It is kept next
// to the token file and cleared once the operation that asked for more
// scope succeeds, or at logout.
type StepUp struct {
	Scopes   []string `json:"scopes"`
	Method   string   `json:"method,omitempty"` // the JSON-RPC method refused
	Attempts int      `json:"attempts"`         // authorizations made in a row
}

func (h *Home) stepUpPath(name string) string {
	return filepath.Join(h.tokens.Dir, ".stepup-"+oauth.FileName(name))
}

// StepUp returns the pending step-up of name; none gives (nil, nil).
func (h *Home) StepUp(name string) (*StepUp, error) {
	data, err := safe.ReadFile(h.stepUpPath(name), safe.KindCredential)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseStepUp(data)
}

// parseStepUp decodes a step-up file.
func parseStepUp(data []byte) (*StepUp, error) {
	var su StepUp
	if err := json.Unmarshal(data, &su); err != nil {
		return nil, errors.New("reading step-up state: invalid JSON")
	}
	if su.Attempts < 0 {
		su.Attempts = 0
	}
	return &su, nil
}

// saveStepUp writes the pending step-up of name (mode 0600, atomically).
func (h *Home) saveStepUp(name string, su *StepUp) error {
	data, _ := json.Marshal(su)
	return safe.WritePrivate(h.stepUpPath(name), data)
}

// clearStepUp forgets the pending step-up of name.
func (h *Home) clearStepUp(name string) error {
	err := os.Remove(h.stepUpPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// stepUpTransport remembers a 403 insufficient_scope for the next login
// and forgets it once the refused operation succeeds.
type stepUpTransport struct {
	_ [0]func() // not comparable: no equality function in the binary

	home *Home
	name string
	next http.RoundTripper

	mu      sync.Mutex
	pending *StepUp
}

func (t *stepUpTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	method := rpcMethod(req)
	resp, err := t.next.RoundTrip(req)
	var su *oauth.StepUpError
	switch {
	case err == nil && resp.StatusCode == http.StatusForbidden && errors.As(oauth.AuthError(resp.StatusCode, resp.Header, nil), &su):
		t.mu.Lock()
		defer t.mu.Unlock()
		p := t.pending
		if p == nil {
			p = &StepUp{Attempts: 1}
		}
		held := p.Scopes
		if rec, _, lerr := t.home.tokens.Load(t.name); lerr == nil && rec != nil {
			held = oauth.UnionScopes(oauth.UnionScopes(held, rec.Scopes), rec.Token.Scopes())
		}
		p.Scopes = oauth.UnionScopes(held, su.Scopes)
		p.Method = method
		t.pending = p
		_ = t.home.saveStepUp(t.name, p)
	case err == nil && resp.StatusCode/100 == 2:
		t.mu.Lock()
		if p := t.pending; p != nil && (p.Method == "" || p.Method == method) && method != "" && method != "initialize" {
			t.pending = nil
			_ = t.home.clearStepUp(t.name)
		}
		t.mu.Unlock()
	}
	return resp, err
}

// rpcMethod is the JSON-RPC method of a POST body, or "".
func rpcMethod(req *http.Request) string {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return ""
	}
	data = bytes.TrimSpace(data)
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(data, &m) == nil {
		return m.Method
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(data, &batch) == nil && len(batch) > 0 {
		return batch[0].Method
	}
	return ""
}
