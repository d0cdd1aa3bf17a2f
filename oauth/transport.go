package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// A Transport adds "Authorization: Bearer" to requests for the resource its
// token was issued for and passes every other request through untouched.
// It refreshes the token before expiry (through Source) and once after a
// 401, then sends the request again.
//
// It keeps the http.RoundTripper contract: every answer comes back as a
// response, a 401 or 403 included, and the layer above decides what it
// means ([AuthError] says it for MCP). An error means no answer: the
// request failed, or the token could not be had or refreshed for a reason
// other than a needed login (the token endpoint did not answer, say).
//
// A token bound to a DPoP key (RFC 9449) goes out as "Authorization: DPoP"
// with a fresh proof per request; a server's DPoP-Nonce is used in the
// next proofs, and a 401 use_dpop_nonce sends the request again once with
// it.
type Transport struct {
	Base     http.RoundTripper // nil = http.DefaultTransport
	Source   TokenSource
	Resource string // the resource the tokens are for (RFC 8707)

	mu     sync.Mutex
	nonces map[string]string   // the last DPoP-Nonce, by origin
	keys   map[string]*dpopKey // parsed DPoP keys, by their PEM
}

var _ http.RoundTripper = (*Transport)(nil)

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.Source == nil || t.Resource == "" || !ResourceCovers(t.Resource, req.URL.String()) {
		return t.base().RoundTrip(req)
	}
	// No token ever crosses plain http to a host that is not loopback,
	// whatever allowed plain http to the server ("allowHttp").
	if !strings.EqualFold(req.URL.Scheme, "https") && !safe.IsLoopbackHost(req.URL.Hostname()) {
		return t.base().RoundTrip(req)
	}
	ctx := req.Context()
	tok, err := t.Source.Token(ctx)
	if err != nil && !errors.Is(err, ErrLoginRequired) {
		closeBody(req)
		return nil, err
	}
	// Without a token the request goes out bare: a server may allow it,
	// and its 401 tells how to log in.
	resp, err := t.send(req, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || (req.Body != nil && req.GetBody == nil) {
		return resp, err
	}
	// A 401: refresh once (a source backed by a store reads it again
	// first, for a token another process saved) and send again. When no
	// fresh token can be had without the person, the 401 is the answer.
	fresh, rerr := t.Source.Refresh(ctx, tok)
	if errors.Is(rerr, ErrLoginRequired) {
		return resp, nil
	}
	drain(resp)
	if rerr != nil {
		return nil, rerr
	}
	r2, err := rewind(req)
	if err != nil {
		return nil, err
	}
	return t.send(r2, fresh)
}

// AuthError says what a 401 or 403 answer of an MCP server means for its
// login, from its status and WWW-Authenticate challenges: a
// *LoginRequiredError for 401 (with the challenges, to pass to Login);
// a *StepUpError for 403 with error="insufficient_scope" (its Scopes are
// held, the scopes of the token sent, joined with the ones asked for);
// nil for any other answer. A [Transport] returns such answers as they
// are; the layer above calls AuthError.
func AuthError(status int, header http.Header, held []string) error {
	chs, _ := ParseChallenges(header.Values("WWW-Authenticate"))
	switch status {
	case http.StatusUnauthorized:
		return &LoginRequiredError{Reason: "the server answered 401", Challenges: chs}
	case http.StatusForbidden:
		if c, ok := Bearer(chs); ok && c.ErrorCode() == "insufficient_scope" {
			return &StepUpError{Scopes: UnionScopes(held, c.Scopes()), Required: c.Scopes(), Challenge: c}
		}
	}
	return nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// send clones req, sets the token (if any) and sends it.
func (t *Transport) send(req *http.Request, tok *Token) (*http.Response, error) {
	if tok.IsDPoP() {
		return t.sendDPoP(req, tok)
	}
	r := req.Clone(req.Context())
	if tok != nil {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return t.base().RoundTrip(r)
}

// sendDPoP sends req with a DPoP-bound token and a fresh proof; a 401
// use_dpop_nonce is answered by sending it again, once, with the nonce.
func (t *Transport) sendDPoP(req *http.Request, tok *Token) (*http.Response, error) {
	key, err := t.dpopKey(tok.DPoPKey)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	origin := req.URL.Scheme + "://" + req.URL.Host
	for try := 0; ; try++ {
		r := req
		if try > 0 {
			if r, err = rewind(req); err != nil {
				return nil, err
			}
		}
		r = r.Clone(r.Context())
		t.mu.Lock()
		nonce := t.nonces[origin]
		t.mu.Unlock()
		proof, err := key.proof(r.Method, r.URL.String(), tok.AccessToken, nonce, time.Now())
		if err != nil {
			closeBody(r)
			return nil, err
		}
		r.Header.Set("Authorization", "DPoP "+tok.AccessToken)
		r.Header.Set("DPoP", proof)
		resp, err := t.base().RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			t.mu.Lock()
			if t.nonces == nil {
				t.nonces = map[string]string{}
			}
			t.nonces[origin] = n
			t.mu.Unlock()
		}
		if try > 0 || resp.StatusCode != http.StatusUnauthorized || dpopNonceAsked(resp) == "" || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
			return resp, nil
		}
		drain(resp)
	}
}

// dpopKey parses (once) the DPoP key of a token.
func (t *Transport) dpopKey(pemText string) (*dpopKey, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := t.keys[pemText]; k != nil {
		return k, nil
	}
	k, err := parseDPoPKey(pemText)
	if err != nil {
		return nil, &LoginRequiredError{Reason: "the token file's DPoP key is unreadable", Err: err}
	}
	if t.keys == nil {
		t.keys = map[string]*dpopKey{}
	}
	t.keys[pemText] = k
	return k, nil
}

func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, fmt.Errorf("retrying request: %v", err)
		}
		r.Body = body
	}
	return r, nil
}

// A StoreSource is a TokenSource backed by a token file: it hands out the
// stored token, refreshes it with the refresh token (keeping a rotated one)
// and saves the result.
//
// Before it refreshes (and after a 401) it reads the store again: a
// token another process saved since (a separate `mcpwire login`, or
// another mcpwire's refresh, which may have rotated the refresh token)
// is used instead, when it is for a resource that covers ServerURL.
type StoreSource struct {
	Client     *http.Client // nil = a default client
	Store      *Store       // nil = keep in memory only
	ServerName string
	// ServerURL is the server's address; a record read again is used
	// only when its resource covers it ("" = only when it is the
	// resource of the record held).
	ServerURL string
	Now       func() time.Time // nil = time.Now
	Skew      time.Duration    // 0 = DefaultExpirySkew

	mu  sync.Mutex
	rec *Record
}

// NewStoreSource returns a source for rec (typically from Store.Load).
func NewStoreSource(client *http.Client, store *Store, server string, rec *Record) *StoreSource {
	return &StoreSource{Client: client, Store: store, ServerName: server, rec: rec}
}

var _ TokenSource = (*StoreSource)(nil)

func (s *StoreSource) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *StoreSource) skew() time.Duration {
	if s.Skew > 0 {
		return s.Skew
	}
	return DefaultExpirySkew
}

// Record returns a copy of the current record.
func (s *StoreSource) Record() *Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return nil
	}
	r := *s.rec
	if r.Token != nil {
		t := *r.Token
		r.Token = &t
	}
	return &r
}

// Token implements TokenSource.
func (s *StoreSource) Token(ctx context.Context) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil || s.rec.Token == nil {
		return nil, &LoginRequiredError{Reason: "no token"}
	}
	if s.rec.Token.Valid(s.now(), s.skew()) {
		t := *s.rec.Token
		return &t, nil
	}
	if t := s.reloadLocked(nil, s.skew()); t != nil {
		return t, nil
	}
	return s.refreshLocked(ctx)
}

// Refresh implements TokenSource.
func (s *StoreSource) Refresh(ctx context.Context, stale *Token) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.reloadLocked(stale, 0); t != nil {
		return t, nil
	}
	if s.rec == nil || s.rec.Token == nil {
		return nil, &LoginRequiredError{Reason: "no token"}
	}
	if stale != nil && s.rec.Token.AccessToken != stale.AccessToken && s.rec.Token.Valid(s.now(), 0) {
		t := *s.rec.Token
		return &t, nil // refreshed meanwhile
	}
	return s.refreshLocked(ctx)
}

// reloadLocked reads the store again and keeps what it holds when that
// is another token than stale (and than the one held) for this server:
// it returns that token when it is valid for skew, else nil (the record
// read is kept all the same, so that a refresh uses its refresh token).
func (s *StoreSource) reloadLocked(stale *Token, skew time.Duration) *Token {
	if s.Store == nil {
		return nil
	}
	rec, _, err := s.Store.Load(s.ServerName)
	if err != nil || rec == nil || rec.Token == nil || rec.Token.AccessToken == "" {
		return nil
	}
	if s.rec != nil && s.rec.Token != nil && s.rec.Token.AccessToken == rec.Token.AccessToken {
		return nil
	}
	if !s.covers(rec) {
		return nil
	}
	s.rec = rec
	if (stale == nil || rec.Token.AccessToken != stale.AccessToken) && rec.Token.Valid(s.now(), skew) {
		t := *rec.Token
		return &t
	}
	return nil
}

// covers says whether rec, read again, is for this source's server.
func (s *StoreSource) covers(rec *Record) bool {
	if rec.Resource == "" {
		return false
	}
	if s.ServerURL != "" {
		return ResourceCovers(rec.Resource, s.ServerURL)
	}
	return s.rec != nil && s.rec.Resource == rec.Resource
}

func (s *StoreSource) refreshLocked(ctx context.Context) (*Token, error) {
	rec := s.rec
	ctx = withServerURL(ctx, rec.Resource)
	if rec.Token.RefreshToken == "" && rec.Grant == "jwt-bearer" && rec.AssertionFile != "" && rec.Client != nil && rec.TokenEndpoint != "" {
		return s.remintLocked(ctx)
	}
	if rec.Token.RefreshToken == "" {
		return nil, &LoginRequiredError{Reason: "the token expired and there is no refresh token"}
	}
	if rec.TokenEndpoint == "" || rec.Client == nil {
		return nil, &LoginRequiredError{Reason: "the token file lacks the token endpoint or client"}
	}
	form := url.Values{}
	form.Set("grant_type", "refresh_token")
	form.Set("refresh_token", rec.Token.RefreshToken)
	if rec.Resource != "" {
		form.Set("resource", rec.Resource)
	}
	now := s.now()
	auth := rec.Client.auth()
	if rec.Token.DPoPKey != "" {
		// The refreshed token is bound to the same key.
		key, err := parseDPoPKey(rec.Token.DPoPKey)
		if err != nil {
			return nil, &LoginRequiredError{Reason: "the token file's DPoP key is unreadable", Err: err}
		}
		auth.dpop = key
	}
	tok, _, err := postToken(ctx, noRedirectClient(s.Client), rec.TokenEndpoint, form, auth, now)
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) && (te.Code == "invalid_grant" || te.Code == "invalid_client" || te.Code == "unauthorized_client") {
			return nil, &LoginRequiredError{Reason: "the refresh token was rejected", Err: te}
		}
		return nil, fmt.Errorf("refreshing token: %w", err)
	}
	if err := checkBearer(tok); err != nil {
		return nil, fmt.Errorf("refreshing token: %w", err)
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = rec.Token.RefreshToken // not rotated: keep it
	}
	if tok.Scope == "" {
		tok.Scope = rec.Token.Scope
	}
	return s.keepLocked(rec, tok, now, "refreshing token")
}

// remintLocked gets a new token for a workload login: the jwt-bearer grant
// again, with the assertion file as it is now (platforms rotate it).
func (s *StoreSource) remintLocked(ctx context.Context) (*Token, error) {
	rec := s.rec
	assertion, err := readAssertion(rec.AssertionFile)
	if err != nil {
		return nil, &LoginRequiredError{Reason: "the token expired and the workload's JWT cannot be read", Err: err}
	}
	auth := rec.Client.auth()
	if rec.Token.DPoPKey != "" {
		if auth.dpop, err = parseDPoPKey(rec.Token.DPoPKey); err != nil {
			return nil, &LoginRequiredError{Reason: "the token file's DPoP key is unreadable", Err: err}
		}
	}
	now := s.now()
	tok, err := jwtBearer(ctx, noRedirectClient(s.Client), rec.TokenEndpoint, auth, assertion, rec.Resource, rec.Scopes, now)
	if err != nil {
		var te *TokenError
		if errors.As(err, &te) {
			return nil, &LoginRequiredError{Reason: "the workload's JWT was rejected", Err: te}
		}
		return nil, fmt.Errorf("getting a new token: %w", err)
	}
	return s.keepLocked(rec, tok, now, "getting a new token")
}

// keepLocked makes tok the source's token in a copy of rec, saves that
// record (when there is a Store) and returns a copy of tok; what names
// the operation in an error.
func (s *StoreSource) keepLocked(rec *Record, tok *Token, now time.Time, what string) (*Token, error) {
	nr := *rec
	nr.Token = tok
	nr.UpdatedAt = now.UTC()
	s.rec = &nr
	if s.Store != nil {
		if err := s.Store.Save(s.ServerName, &nr); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	t := *tok
	return &t, nil
}

// DefaultMaxAttempts is the number of authorizations Attempts allows.
const DefaultMaxAttempts = 3

// Attempts counts authorization attempts for one operation (the first
// login and every step-up), so that a server that keeps asking for more
// scope cannot loop forever.
type Attempts struct {
	Max int // 0 = DefaultMaxAttempts
	n   int
}

// Begin records an attempt; it returns ErrTooManyAttempts once Max
// attempts were made.
func (a *Attempts) Begin() error {
	limit := a.Max
	if limit <= 0 {
		limit = DefaultMaxAttempts
	}
	if a.n >= limit {
		return fmt.Errorf("%w (%d)", ErrTooManyAttempts, limit)
	}
	a.n++
	return nil
}

// Count returns the attempts made.
func (a *Attempts) Count() int { return a.n }

// WithStepUp runs op. When op fails with a *StepUpError or a
// LoginRequiredError, it calls authorize with the scopes to request (the
// union for a step-up, the challenge's scopes for a login; nil when none)
// and runs op again, making at most attempts.Max authorizations in all.
func WithStepUp(ctx context.Context, attempts *Attempts, authorize func(ctx context.Context, scopes []string, challenge []Challenge) error, op func(ctx context.Context) error) error {
	if attempts == nil {
		attempts = &Attempts{}
	}
	held := []string(nil)
	for {
		err := op(ctx)
		var su *StepUpError
		var lr *LoginRequiredError
		var scopes []string
		var chs []Challenge
		switch {
		case errors.As(err, &su):
			held = UnionScopes(held, su.Scopes)
			scopes, chs = held, []Challenge{su.Challenge}
		case errors.As(err, &lr):
			chs = lr.Challenges
			if c, ok := Bearer(chs); ok {
				held = UnionScopes(held, c.Scopes())
			}
			scopes = held
		default:
			return err
		}
		if aerr := attempts.Begin(); aerr != nil {
			return fmt.Errorf("%w: last error: %v", aerr, err)
		}
		if err := authorize(ctx, slices.Clone(scopes), chs); err != nil {
			return err
		}
	}
}

// Revoke revokes the tokens of rec at its revocation endpoint (RFC 7009):
// the refresh token, then the access token. Without an endpoint it does
// nothing.
func Revoke(ctx context.Context, client *http.Client, rec *Record) error {
	if rec == nil || rec.Token == nil || rec.RevocationEndpoint == "" || rec.Client == nil {
		return nil
	}
	ctx = withServerURL(ctx, rec.Resource)
	var errs []error
	for _, p := range [][2]string{{rec.Token.RefreshToken, "refresh_token"}, {rec.Token.AccessToken, "access_token"}} {
		if p[0] == "" {
			continue
		}
		form := url.Values{}
		form.Set("token", p[0])
		form.Set("token_type_hint", p[1])
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevocationEndpoint, nil)
		if err != nil {
			return fmt.Errorf("revoking token: %v", err)
		}
		rec.Client.auth().apply(req, form)
		body := form.Encode()
		req.Body = io.NopCloser(strings.NewReader(body))
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := do(client, req)
		if err != nil {
			errs = append(errs, fmt.Errorf("revoking %s: %w", p[1], err))
			continue
		}
		if resp.StatusCode != http.StatusOK {
			errs = append(errs, fmt.Errorf("revoking %s: %w", p[1], endpointError("revoking token", rec.RevocationEndpoint, resp, requestSecrets(form, rec.Client.auth())...)))
		}
		drain(resp)
	}
	return errors.Join(errs...)
}

// Logout revokes the stored tokens of server where the authorization
// server offers revocation, then deletes the token file. The file is
// deleted even when revocation fails; that error is returned.
func Logout(ctx context.Context, client *http.Client, store *Store, server string) error {
	rec, _, err := store.Load(server)
	var rerr error
	if err == nil && rec != nil {
		rerr = Revoke(ctx, client, rec)
	}
	if err := store.Delete(server); err != nil {
		return err
	}
	return rerr
}
