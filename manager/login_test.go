package manager

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/fakeauth"
)

// TestLoginThroughTheManager runs the browser flow of Home.Login with
// the agent's own UI (an OpenURL that approves at once), a login while
// logged in (nothing asked) and a forced one, then the paste flow, a
// step-up and Logout; and checks that a server that needs no login is
// left alone.
func TestLoginThroughTheManager(t *testing.T) {
	f := fakeauth.New(t)
	home := t.TempDir()
	writeFile(t, home, `{"mcpServers": {"srv": {"url": "`+f.URL+`/mcp"}}}`)
	cfg := loadConfig(t, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	h := openHome(t, home)
	var shown []string
	res, err := h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), OpenURL: func(u string) error {
		shown = append(shown, u)
		go fakeauth.Approve(u)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 1 || !strings.HasPrefix(shown[0], f.URL+"/authorize?") {
		t.Fatalf("OpenURL was given %q", shown)
	}
	if res.Server != "srv" || res.NotNeeded || !slices.Equal(res.Scopes, []string{"mcp:read"}) || !res.Refreshable || res.Expiry.IsZero() {
		t.Fatalf("result %+v", res)
	}
	checkPrivate(t, filepath.Join(home, "mcp-tokens", "srv.json"))
	if s := h.Secrets("srv"); len(s) != 3 || !strings.Contains(strings.Join(s, " "), fakeauth.Leak) {
		t.Fatalf("Secrets = %d values", len(s))
	}

	// Logged in: a second login asks nothing of the person and says so;
	// Force logs in again.
	again, err := h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), OpenURL: func(string) error {
		t.Error("OpenURL called while logged in")
		return nil
	}})
	if err != nil || !again.AlreadyLoggedIn || again.State != AuthLoggedIn || !slices.Equal(again.Scopes, []string{"mcp:read"}) || !again.Refreshable {
		t.Fatalf("login while logged in = %+v, %v", again, err)
	}
	shown = nil
	forced, err := h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), Force: true, OpenURL: func(u string) error {
		shown = append(shown, u)
		go fakeauth.Approve(u)
		return nil
	}})
	if err != nil || forced.AlreadyLoggedIn || len(shown) != 1 {
		t.Fatalf("forced login = %+v, %v (%d addresses shown)", forced, err, len(shown))
	}

	// The token is used by a manager with only Config and Home.
	m, err := New(Options{Config: cfg, Home: h, TrustAll: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	r, err := m.Call(ctx, toolNamed(t, tools, "srv", "echo"), map[string]any{"text": "with a token"})
	if err != nil || r.Text() != "with a token" {
		t.Fatalf("call: %v, %v", r, err)
	}

	// Step-up: tools/call needs more scope; the call says so, and the next
	// login (pasted, as over SSH) asks for the union.
	f.Mu.Lock()
	f.NeedScope = "mcp:write"
	f.Mu.Unlock()
	_, err = m.Call(ctx, toolNamed(t, tools, "srv", "echo"), map[string]any{"text": "x"})
	var su *StepUpError
	if !errors.As(err, &su) || !slices.Contains(su.Required, "mcp:write") || !slices.Contains(su.Scopes, "mcp:read") {
		t.Fatalf("call without the scope: %v (%T), want a *StepUpError asking for mcp:write", err, err)
	}
	pasted := make(chan string, 1)
	_, err = h.Login(ctx, LoginOptions{Server: cfg.Server("srv"),
		OpenURL: func(u string) error {
			loc, err := fakeauth.Redirected(u)
			if err != nil {
				return err
			}
			pasted <- loc
			return nil
		},
		ReadPastedURL: func() (string, error) { return <-pasted, nil }})
	if err != nil {
		t.Fatal(err)
	}
	f.Mu.Lock()
	last := f.AuthScopes[len(f.AuthScopes)-1]
	f.Mu.Unlock()
	if !slices.Contains(last, "mcp:write") || !slices.Contains(last, "mcp:read") {
		t.Fatalf("the step-up login asked for %v", last)
	}

	out, err := h.Logout(ctx, "srv")
	if err != nil || !out.LoggedIn || !out.Revoked || out.RevokeErr != nil {
		t.Fatalf("Logout = %+v, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(home, "mcp-tokens", "srv.json")); !os.IsNotExist(err) {
		t.Fatalf("token file after logout: %v", err)
	}
	if out, err := h.Logout(ctx, "srv"); err != nil || out.LoggedIn {
		t.Fatalf("second Logout = %+v, %v", out, err)
	}

	// An open server needs no login: nothing is opened or saved.
	dh := demo.NewHTTPHandler(demo.Options{})
	open := httptest.NewServer(dh)
	defer func() { open.Close(); dh.Close() }()
	res, err = h.Login(ctx, LoginOptions{URL: open.URL + "/mcp", OpenURL: func(string) error {
		t.Error("OpenURL called for a server that needs no login")
		return nil
	}})
	if err != nil || !res.NotNeeded || res.Server != URLName(open.URL) {
		t.Fatalf("login to an open server = %+v, %v", res, err)
	}
}

// TestLoginRefusals: what Login refuses before anything is sent, and a
// server that is not there fails in the connect phase, not auth.
func TestLoginRefusals(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, `{"mcpServers": {"local": {"command": "true"}, "gone": {"url": "http://127.0.0.1:1/mcp"}}}`)
	cfg := loadConfig(t, home)
	ctx := context.Background()
	h := openHome(t, home)
	var se *ServerError
	for _, tc := range []struct {
		opts  LoginOptions
		phase string
	}{
		{LoginOptions{Server: cfg.Server("local")}, PhaseConfig},
		{LoginOptions{URL: "http://example.com/mcp"}, PhaseConfig}, // plain http to another host
		{LoginOptions{URL: "https://u:p@example.com/mcp"}, PhaseConfig},
		{LoginOptions{Server: cfg.Server("gone"), OpenURL: func(string) error { return nil }}, PhaseConnect},
	} {
		_, err := h.Login(ctx, tc.opts)
		if !errors.As(err, &se) || se.Phase != tc.phase {
			t.Errorf("Login(%s%s) = %v, want a *ServerError in %s", tc.opts.URL, nameOf(tc.opts), err, tc.phase)
		}
	}
	if _, err := h.Login(ctx, LoginOptions{}); err == nil {
		t.Error("Login without a server succeeded")
	}
}

func nameOf(o LoginOptions) string {
	if o.Server != nil {
		return o.Server.Name
	}
	return ""
}

// checkPrivate fails t unless path is a file of mode 0600.
func checkPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s has mode %04o, want 0600", path, fi.Mode().Perm())
	}
}
