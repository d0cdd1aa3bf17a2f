package manager

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/transport"
)

// TestHomeAuth: the typed login states of Home.AuthFor and Home.Auth,
// and NeedsLogin, for each kind of token file.
func TestHomeAuth(t *testing.T) {
	home := t.TempDir()
	h := openHome(t, home)
	now := time.Now()
	stdio := &config.Server{Name: "s", Type: config.TypeStdio}
	plain := &config.Server{Name: "p", Type: "http"}
	withOAuth := &config.Server{Name: "o", Type: "http", OAuth: &config.OAuth{ClientID: "c"}}
	check := func(s *config.Server, want AuthState, text string, needs bool) {
		t.Helper()
		if got := h.AuthFor(s).State; got != want || got.String() != text {
			t.Errorf("%s: AuthFor = %v, want %v (%q)", s.Name, got, want, text)
		}
		if got := h.NeedsLogin(s); got != needs {
			t.Errorf("%s: NeedsLogin = %v, want %v", s.Name, got, needs)
		}
	}
	check(stdio, AuthNotApplicable, "-", false)
	check(plain, AuthNotNeeded, "not needed", false)
	check(withOAuth, AuthNotLoggedIn, "not authenticated", true)
	if st := h.Auth("p"); st.State != AuthNotLoggedIn || st.State.Usable() {
		t.Errorf("Auth of a server without a token file = %+v", st)
	}

	store := oauth.NewStore(home)
	save := func(name string, tok *oauth.Token) {
		t.Helper()
		if err := store.Save(name, &oauth.Record{Resource: "http://127.0.0.1/mcp", TokenEndpoint: "http://127.0.0.1/token", Token: tok}); err != nil {
			t.Fatal(err)
		}
	}
	exp := now.Add(time.Hour).Truncate(time.Second)
	save("p", &oauth.Token{AccessToken: "a", Scope: "read write", Expiry: exp})
	check(plain, AuthLoggedIn, "authenticated", false)
	if st := h.Auth("p"); !st.State.Usable() || strings.Join(st.Scopes, " ") != "read write" || !st.Expiry.Equal(exp) || st.Refreshable {
		t.Errorf("Auth of a fresh token = %+v", st)
	}
	save("p", &oauth.Token{AccessToken: "a", RefreshToken: "r", Expiry: now.Add(-time.Hour)})
	check(plain, AuthRefreshable, "refreshable", false)
	if st := h.Auth("p"); !st.State.Usable() || !st.Refreshable {
		t.Errorf("Auth of a refreshable token = %+v", st)
	}
	save("p", &oauth.Token{AccessToken: "a", Expiry: now.Add(-time.Hour)})
	check(plain, AuthExpired, "expired", true)
	if err := os.WriteFile(store.Path("o"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	check(withOAuth, AuthInvalid, "invalid", true)
	if s := h.Secrets("o"); s != nil {
		t.Errorf("Secrets of an unreadable file = %q", s)
	}
}

func TestStepUpState(t *testing.T) {
	h := openHome(t, t.TempDir())
	if su, err := h.StepUp("x"); su != nil || err != nil {
		t.Fatal(su, err)
	}
	want := &StepUp{Scopes: []string{"a", "b"}, Method: "tools/call", Attempts: 2}
	if err := h.saveStepUp("x", want); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(h.stepUpPath("x"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("step-up file: %v, %v", fi, err)
	}
	got, err := h.StepUp("x")
	if err != nil || got.Attempts != 2 || strings.Join(got.Scopes, " ") != "a b" || got.Method != "tools/call" {
		t.Fatalf("StepUp = %+v, %v", got, err)
	}
	// The step-up file never looks like a server's token file.
	if strings.HasSuffix(h.stepUpPath("x"), oauth.NewStore(h.Dir()).Path("x")) {
		t.Fatal("step-up file collides with the token file")
	}
	if err := h.clearStepUp("x"); err != nil {
		t.Fatal(err)
	}
	if err := h.clearStepUp("x"); err != nil {
		t.Fatal(err)
	}
}

// TestAuthClient checks that the stored token goes to its server only,
// that a 401 and a 403 come back as responses (explained as a
// LoginRequiredError and a StepUpError), and that a 403
// insufficient_scope is remembered for the next login, then forgotten
// once the operation succeeds.
func TestAuthClient(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	forbid := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		f := forbid
		mu.Unlock()
		switch {
		case r.Header.Get("Authorization") != "Bearer tok-1":
			w.Header().Set("WWW-Authenticate", `Bearer scope="read"`)
			w.WriteHeader(http.StatusUnauthorized)
		case f && strings.Contains(string(body), "tools/call"):
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read write"`)
			w.WriteHeader(http.StatusForbidden)
		default:
			w.Write([]byte("{}"))
		}
	}))
	defer srv.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, "other "+r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer other.Close()

	home := t.TempDir()
	h := openHome(t, home)
	url := srv.URL + "/mcp"
	post := func(c *http.Client, u, method string) (*http.Response, error) {
		return c.Post(u, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`))
	}
	// No token: the request goes out bare; the 401 asks for a login.
	resp, err := post(h.HTTPClient("srv", url), url, "tools/list")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %v, %v; want a 401 response", resp, err)
	}
	resp.Body.Close()
	var lr *LoginRequiredError
	if !errors.As(explain("srv", PhaseList, transport.NewHTTPError("POST", url, resp), nil), &lr) {
		t.Fatalf("no token: a 401 is not explained as a login needed")
	}
	if err := oauth.NewStore(home).Save("srv", &oauth.Record{Resource: url, Scopes: []string{"read"},
		Token: &oauth.Token{AccessToken: "tok-1", Scope: "read", Expiry: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	c := h.HTTPClient("srv", url)
	resp, err = post(c, url, "tools/list")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("with token: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = post(c, other.URL+"/mcp", "tools/list")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = post(c, url, "tools/call")
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("403: %v, %v; want a 403 response", resp, err)
	}
	resp.Body.Close()
	var su *StepUpError
	if !errors.As(explain("srv", PhaseCall, transport.NewHTTPError("POST", url, resp), nil), &su) {
		t.Fatalf("a 403 insufficient_scope is not explained as a step-up")
	}
	st, _ := h.StepUp("srv")
	if st == nil || strings.Join(st.Scopes, " ") != "read write" || st.Attempts != 1 {
		t.Fatalf("step-up state %+v", st)
	}
	mu.Lock()
	forbid = false
	mu.Unlock()
	c = h.HTTPClient("srv", url)
	resp, err = post(c, url, "tools/list")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st, _ := h.StepUp("srv"); st == nil {
		t.Fatal("step-up state cleared by another method's success")
	}
	resp, err = post(c, url, "tools/call")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st, _ := h.StepUp("srv"); st != nil {
		t.Fatalf("step-up state kept after success: %+v", st)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.HasPrefix(s, "other ") && s != "other " {
			t.Fatalf("the token went to another server: %q", s)
		}
	}
}

func FuzzParseStepUp(f *testing.F) {
	f.Add([]byte(`{"scopes":["a","b"],"method":"tools/call","attempts":2}`))
	f.Add([]byte(`{"attempts":-5}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		su, err := parseStepUp(data)
		if err == nil && su.Attempts < 0 {
			t.Fatalf("negative attempts from %q", data)
		}
		if err != nil && strings.Contains(err.Error(), string(data)) && len(data) > 8 {
			t.Fatalf("error repeats the input: %v", err)
		}
	})
}

func FuzzRPCMethod(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	f.Add(`[{"method":"initialize"}]`)
	f.Add(`nope`)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err) // a fixed URL and a body of any bytes: never
		}
		_ = rpcMethod(req)
		// The body stays readable for the real send.
		b, _ := io.ReadAll(req.Body)
		if string(b) != body {
			t.Fatal("rpcMethod consumed the body")
		}
	})
}
