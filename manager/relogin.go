package manager

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/mcpwire/mcpwire/oauth"
)

// ReloginClient is an HTTP client for a program that logs in by itself
// (`mcpwire proxy`): build makes the client over the home's tokens
// (HTTPClient, with whatever wraps it); when an answer says that a login
// is needed — a 401 that the stored tokens could not answer (none, or
// the refresh was refused), or a 403 insufficient_scope (the pending
// step-up is saved, so the login asks for the union of the scopes) —
// login runs, build makes the client again from the home, and the
// request is sent again, once.
//
// One login runs at a time: requests refused meanwhile wait for it
// (bounded by their own context) and are then sent again with its token,
// without a second login. A login that fails leaves the answer as it
// was (the layer above explains it). ctx bounds every login; it is the
// caller's (the program's) context, not a request's.
func ReloginClient(ctx context.Context, build func() *http.Client, login func(ctx context.Context) error) *http.Client {
	rt := &reloginTransport{ctx: ctx, build: build, login: login, sem: make(chan struct{}, 1)}
	rt.cur = build()
	c := *rt.cur
	c.Transport = rt
	return &c
}

// reloginTransport is the transport of ReloginClient.
type reloginTransport struct {
	ctx   context.Context
	build func() *http.Client
	login func(ctx context.Context) error
	sem   chan struct{} // held by the one login that runs

	mu    sync.Mutex
	cur   *http.Client // the client over the home's tokens
	gen   int          // logins made
	ended int          // logins that ended, made or failed
}

// A reloginMark is where the logins stood when a request went out.
type reloginMark struct{ gen, ended int }

// current is the client of the last login and where the logins stand.
func (t *reloginTransport) current() (http.RoundTripper, reloginMark) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rt := t.cur.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	return rt, reloginMark{t.gen, t.ended}
}

func (t *reloginTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt, mark := t.current()
	resp, err := rt.RoundTrip(req)
	if err != nil || !loginAsked(resp) || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
		return resp, err
	}
	if !t.relogin(req.Context(), mark) {
		return resp, nil
	}
	drainBody(resp)
	r2 := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if r2.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	rt, _ = t.current()
	return rt.RoundTrip(r2)
}

// relogin logs in unless a login ended since mark (then it does not
// try again: the requests refused while one login runs cost that one
// login); it reports whether there is a new login to send the request
// again with. It waits for a login that runs while ctx lasts.
func (t *reloginTransport) relogin(ctx context.Context, mark reloginMark) bool {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-t.sem }()
	if _, now := t.current(); now.ended != mark.ended {
		return now.gen != mark.gen
	}
	if t.login(t.ctx) != nil {
		t.mu.Lock()
		t.ended++
		t.mu.Unlock()
		return false
	}
	fresh := t.build()
	t.mu.Lock()
	old := t.cur
	t.cur, t.gen, t.ended = fresh, t.gen+1, t.ended+1
	t.mu.Unlock()
	old.CloseIdleConnections()
	return true
}

// loginAsked says whether resp asks for a login: a 401, or a 403 with
// error="insufficient_scope".
func loginAsked(resp *http.Response) bool {
	var su *oauth.StepUpError
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return true
	case http.StatusForbidden:
		return errors.As(oauth.AuthError(resp.StatusCode, resp.Header, nil), &su)
	}
	return false
}

// drainBody reads a little of an answer not used and closes it, so that
// its connection can be used again.
func drainBody(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
}
