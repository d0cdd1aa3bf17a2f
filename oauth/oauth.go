package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Body limits for what servers send back.
const (
	maxMetadataBody = 1 << 20  // metadata and token responses
	maxErrorBody    = 64 << 10 // error answers
)

// DefaultExpirySkew is how long before its expiry a token is refreshed.
const DefaultExpirySkew = 60 * time.Second

// A Token is an OAuth 2.0 token response (RFC 6749 section 5.1), with the
// expiry computed when it arrived.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scope        string    `json:"scope,omitempty"` // granted scope, space separated
	// DPoPKey is the private key (PKCS#8 PEM) a DPoP token is bound to
	// (TokenType "DPoP"); a secret like the token itself.
	DPoPKey string `json:"dpop_key,omitempty"`
}

// Valid reports whether t has an access token that does not expire within
// skew of now.
func (t *Token) Valid(now time.Time, skew time.Duration) bool {
	if t == nil || t.AccessToken == "" {
		return false
	}
	return t.Expiry.IsZero() || now.Add(skew).Before(t.Expiry)
}

// Scopes returns the granted scopes.
func (t *Token) Scopes() []string {
	if t == nil {
		return nil
	}
	return strings.Fields(t.Scope)
}

// A TokenSource supplies tokens for one resource. Implementations are safe
// for concurrent use.
type TokenSource interface {
	// Token returns a token valid for at least the expiry skew, refreshing
	// it if needed. It returns an error matching ErrLoginRequired when no
	// token can be had without the user.
	Token(ctx context.Context) (*Token, error)
	// Refresh is called after the server rejected stale with a 401. It
	// returns a newer token (refreshing once if stale is still current).
	Refresh(ctx context.Context, stale *Token) (*Token, error)
}

// noRedirectClient returns a copy of c (or of a default client) that refuses
// redirects.
func noRedirectClient(c *http.Client) *http.Client {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return ErrRedirect }
	return &cc
}

// do sends req with c; a redirect answer becomes ErrRedirect.
func do(c *http.Client, req *http.Request) (*http.Response, error) {
	// Every OAuth endpoint is https; plain http only on loopback for an
	// MCP server on loopback (safe.CheckEndpointURL). No token, code or
	// secret crosses plain http to another host, whatever opted in.
	if err := safe.CheckEndpointURL(req.URL.String(), serverURLOf(req.Context())); err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, safe.RedactURL(req.URL.String()), err)
	}
	resp, err := noRedirectClient(c).Do(req)
	if err != nil {
		if errors.Is(err, ErrRedirect) {
			return nil, fmt.Errorf("%s %s: %w", req.Method, safe.RedactURL(req.URL.String()), ErrRedirect)
		}
		// url.Error carries the full URL; show the redacted one.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%s %s: %v", req.Method, safe.RedactURL(req.URL.String()), err)
	}
	return resp, nil
}

// readBody reads at most limit bytes; more is an error.
func readBody(resp *http.Response, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("response body larger than %d bytes", limit)
	}
	return data, nil
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// getJSON fetches u. It returns found=false for a 4xx answer (the caller
// probes the next location) and an error for anything else unexpected.
func getJSON(ctx context.Context, c *http.Client, u string) (data []byte, found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("fetching %s: %v", safe.RedactURL(u), err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := do(c, req)
	if err != nil {
		return nil, false, fmt.Errorf("fetching metadata: %w", err)
	}
	defer drain(resp)
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return nil, false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, false, statusError("fetching metadata", u, resp)
	}
	data, err = readBody(resp, maxMetadataBody)
	if err != nil {
		return nil, false, fmt.Errorf("fetching %s: %v", safe.RedactURL(u), err)
	}
	return data, true, nil
}

// statusError is an unexpected answer, with a short sanitized excerpt of
// its body (at most 200 bytes, one line).
func statusError(op, u string, resp *http.Response) error {
	body, _ := readBody(resp, maxErrorBody)
	s := safe.Sanitize(strings.Join(strings.Fields(string(body)), " "))
	return &HTTPStatusError{Op: op, URL: safe.RedactURL(u), StatusCode: resp.StatusCode, Body: clip(s, 200)}
}

// serverURLKey carries the URL of the MCP server an OAuth exchange is for.
type serverURLKey struct{}

// WithServerURL returns ctx carrying the URL of the MCP server whose
// OAuth endpoints are contacted under it: plain http to a loopback
// endpoint is allowed only when that server is on loopback too. Login,
// ClientCredentials, CrossAppAccess, DiscoverResource, refreshes and
// revocations set it themselves; a caller of DiscoverAuthServer alone sets
// it. Without it, every endpoint must be https.
func WithServerURL(ctx context.Context, serverURL string) context.Context {
	return context.WithValue(ctx, serverURLKey{}, serverURL)
}

// withServerURL is WithServerURL unless ctx carries a server URL already.
func withServerURL(ctx context.Context, serverURL string) context.Context {
	if serverURLOf(ctx) != "" {
		return ctx
	}
	return WithServerURL(ctx, serverURL)
}

func serverURLOf(ctx context.Context) string {
	s, _ := ctx.Value(serverURLKey{}).(string)
	return s
}

// clientAuth says how to authenticate a client at a token endpoint.
type clientAuth struct {
	method    string // client_secret_basic, client_secret_post, none, private_key_jwt
	id        string
	secret    string
	assertion string   // for private_key_jwt
	dpop      *dpopKey // proves possession of this key (RFC 9449) when set
}

// apply adds the client authentication to form and req.
func (a clientAuth) apply(req *http.Request, form url.Values) {
	switch a.method {
	case "client_secret_basic":
		// RFC 6749 section 2.3.1: the id and secret are form-urlencoded
		// before they go into the Basic credentials.
		req.SetBasicAuth(url.QueryEscape(a.id), url.QueryEscape(a.secret))
	case "client_secret_post":
		form.Set("client_id", a.id)
		form.Set("client_secret", a.secret)
	case "private_key_jwt":
		form.Set("client_id", a.id)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", a.assertion)
	default:
		if a.id != "" {
			form.Set("client_id", a.id)
		}
	}
}

// tokenResponse is the wire form of a token response.
type tokenResponse struct {
	AccessToken     string          `json:"access_token"`
	TokenType       string          `json:"token_type"`
	RefreshToken    string          `json:"refresh_token"`
	ExpiresIn       json.RawMessage `json:"expires_in"`
	Scope           string          `json:"scope"`
	IssuedTokenType string          `json:"issued_token_type"`
}

// postToken posts form to a token endpoint and decodes the answer. With
// auth.dpop it proves possession of the key (a DPoP header), sends the
// request again once when the server asks for a nonce, and marks the token
// with the key when the server bound it.
func postToken(ctx context.Context, c *http.Client, endpoint string, form url.Values, auth clientAuth, now time.Time) (*Token, *tokenResponse, error) {
	var nonce string
	var resp *http.Response
	for try := 0; ; try++ {
		// Build the body after auth has had its say.
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("token request to %s: %v", safe.RedactURL(endpoint), err)
		}
		auth.apply(req, form)
		body := form.Encode()
		req.Body = io.NopCloser(strings.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if auth.dpop != nil {
			proof, err := auth.dpop.proof(http.MethodPost, endpoint, "", nonce, now)
			if err != nil {
				return nil, nil, fmt.Errorf("token request: %w", err)
			}
			req.Header.Set("DPoP", proof)
		}
		resp, err = do(c, req)
		if err != nil {
			return nil, nil, fmt.Errorf("token request: %w", err)
		}
		// RFC 9449 section 8: use_dpop_nonce, with the nonce to use.
		if n := resp.Header.Get("DPoP-Nonce"); auth.dpop != nil && try == 0 && resp.StatusCode == http.StatusBadRequest && n != "" {
			data, _ := readBody(resp, maxMetadataBody)
			var te struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(data, &te) == nil && te.Error == "use_dpop_nonce" {
				drain(resp)
				nonce = n
				continue
			}
			resp.Body = io.NopCloser(strings.NewReader(string(data)))
		}
		break
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		// An endpoint may echo the request in its error: never the code,
		// the verifier, the client secret or an assertion.
		return nil, nil, endpointError("token request", endpoint, resp, requestSecrets(form, auth)...)
	}
	data, err := readBody(resp, maxMetadataBody)
	if err != nil {
		return nil, nil, fmt.Errorf("token request to %s: %v", safe.RedactURL(endpoint), err)
	}
	var tr tokenResponse
	if err := json.Unmarshal(data, &tr); err != nil {
		return nil, nil, fmt.Errorf("token request to %s: bad response: %v", safe.RedactURL(endpoint), jsonErr(err))
	}
	if tr.AccessToken == "" {
		return nil, nil, fmt.Errorf("token request to %s: response has no access_token", safe.RedactURL(endpoint))
	}
	tok := &Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken, Scope: tr.Scope}
	if auth.dpop != nil && strings.EqualFold(tr.TokenType, "DPoP") {
		tok.DPoPKey = auth.dpop.pem()
	}
	if n, ok := parseExpiresIn(tr.ExpiresIn); ok && n > 0 {
		tok.Expiry = now.Add(time.Duration(n) * time.Second)
	}
	return tok, &tr, nil
}

// jsonErr keeps a JSON error free of input bytes (a syntax error quotes
// none, a type error names the field only).
func jsonErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at offset %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %q has the wrong type", te.Field)
	}
	return errors.New("invalid JSON")
}

func parseExpiresIn(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		if f, err := n.Float64(); err == nil {
			return int64(f), true
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		var i int64
		if _, err := fmt.Sscan(s, &i); err == nil {
			return i, true
		}
	}
	return 0, false
}

// secretParams are the request parameters that hold secrets.
var secretParams = []string{"code", "code_verifier", "client_secret", "client_assertion", "assertion",
	"refresh_token", "subject_token", "actor_token", "token", "password", "device_code"}

// requestSecrets returns the secrets a request to an endpoint carries:
// its secret parameters and the client's credentials.
func requestSecrets(form url.Values, auth clientAuth) []string {
	out := []string{auth.secret, auth.assertion}
	for _, k := range secretParams {
		out = append(out, form[k]...)
	}
	return out
}

// endpointError turns a failed answer into a *TokenError when the body is
// an OAuth error object, else an *HTTPStatusError. The error code and
// description are sanitized, with secrets (what the request carried)
// masked in every form, then cut short.
func endpointError(op, u string, resp *http.Response, secrets ...string) error {
	body, _ := readBody(resp, maxErrorBody)
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		r := safe.NewRedactor(secrets...)
		return &TokenError{StatusCode: resp.StatusCode, Code: clip(safe.Sanitize(r.Redact(e.Error)), 100),
			Description: clip(safe.Sanitize(r.Redact(e.Description)), 300)}
	}
	return &HTTPStatusError{Op: op, URL: safe.RedactURL(u), StatusCode: resp.StatusCode}
}

// clip cuts s to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func jsonCompact(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func (o *logger) printf(format string, args ...any) {
	if o != nil && o.f != nil {
		o.f(format, args...)
	}
}

// logger wraps the caller's Logf; it is never given a secret.
type logger struct{ f func(string, ...any) }
