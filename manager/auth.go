package manager

import (
	"bytes"
	"encoding/json"
	"errors"
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

// TokenStore returns the OAuth token store of the home folder.
func TokenStore(home string) *oauth.Store { return oauth.NewStore(home) }

// AuthClient returns the *http.Client for the HTTP server called name at
// serverURL: its transport is an oauth.Transport over the server's token
// file in home, so stored tokens are sent (to that server only), refreshed
// before expiry and after a 401. Without a usable token requests go out
// bare. A 401 or 403 comes back as a response (the transport package
// makes it an *transport.HTTPError, which this package's errors explain as
// a *LoginRequiredError or *StepUpError in the auth phase); the scopes a
// 403 insufficient_scope asks for are remembered (see StepUp) for the
// next login. Nothing ever opens a browser.
func AuthClient(home, name, serverURL string) *http.Client {
	store := TokenStore(home)
	rec, _, err := store.Load(name)
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
	plain := &http.Client{Transport: base, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	src := oauth.NewStoreSource(plain, store, name, rec)
	su, _ := LoadStepUp(home, name)
	rt := &stepUpTransport{home: home, name: name, pending: su,
		next: &oauth.Transport{Base: base, Source: src, Resource: resource}}
	return &http.Client{Transport: rt}
}

// AuthClientFor is AuthClient for a configured server (for
// Options.HTTPClient).
func AuthClientFor(home string) func(*config.Server) *http.Client {
	return func(s *config.Server) *http.Client {
		u := ""
		if s.Expanded != nil {
			u = s.Expanded.URL
		}
		return AuthClient(home, s.Name, u)
	}
}

// NeedsLogin reports whether the HTTP server s must log in before it can
// be used: it has an oauth section or a token file, and no token that is
// valid or can be refreshed.
func NeedsLogin(home string, s *config.Server) bool {
	if s.Type == config.TypeStdio {
		return false
	}
	rec, _, err := TokenStore(home).Load(s.Name)
	if err != nil {
		return true
	}
	if rec == nil {
		return s.OAuth != nil
	}
	switch rec.Status(time.Now()) {
	case oauth.StatusAuthenticated, oauth.StatusRefreshable:
		return false
	}
	return true
}

// AuthStatus is the AUTH column of `mcpwire list` for s: "-" for stdio,
// else "not needed" (no token file, no oauth section), or the token
// file's state. warning is about the file's permissions.
func AuthStatus(home string, s *config.Server, now time.Time) (status, warning string) {
	if s.Type == config.TypeStdio {
		return "-", ""
	}
	store := TokenStore(home)
	if _, err := os.Stat(store.Path(s.Name)); errors.Is(err, fs.ErrNotExist) && s.OAuth == nil {
		return oauth.StatusNotNeeded.String(), ""
	}
	st, warn := store.Status(s.Name, now)
	return st.String(), warn
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

func stepUpPath(home, name string) string {
	return filepath.Join(TokenStore(home).Dir, ".stepup-"+oauth.FileName(name))
}

// LoadStepUp reads the pending step-up of name; none gives (nil, nil).
func LoadStepUp(home, name string) (*StepUp, error) {
	data, err := safe.ReadFile(stepUpPath(home, name), safe.KindCredential)
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

// SaveStepUp writes the pending step-up of name (mode 0600, atomically).
func SaveStepUp(home, name string, su *StepUp) error {
	data, _ := json.Marshal(su)
	return safe.WritePrivate(stepUpPath(home, name), data)
}

// ClearStepUp forgets the pending step-up of name.
func ClearStepUp(home, name string) error {
	err := os.Remove(stepUpPath(home, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// stepUpTransport remembers a 403 insufficient_scope for the next login
// and forgets it once the refused operation succeeds.
type stepUpTransport struct {
	home, name string
	next       http.RoundTripper

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
		if rec, _, lerr := TokenStore(t.home).Load(t.name); lerr == nil && rec != nil {
			held = oauth.UnionScopes(oauth.UnionScopes(held, rec.Scopes), rec.Token.Scopes())
		}
		p.Scopes = oauth.UnionScopes(held, su.Scopes)
		p.Method = method
		t.pending = p
		_ = SaveStepUp(t.home, t.name, p)
	case err == nil && resp.StatusCode/100 == 2:
		t.mu.Lock()
		if p := t.pending; p != nil && (p.Method == "" || p.Method == method) && method != "" && method != "initialize" {
			t.pending = nil
			_ = ClearStepUp(t.home, t.name)
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
