package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// deviceClock is the clock of a device login under test: each sleep is
// recorded and moves the clock on at once; person, when set, acts at
// the verification page before the given sleep (1-based) returns.
type deviceClock struct {
	t      time.Time
	sleeps []time.Duration
	person map[int]func()
}

func newDeviceClock() *deviceClock {
	return &deviceClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), person: map[int]func(){}}
}

func (c *deviceClock) now() time.Time { return c.t }

func (c *deviceClock) sleep(ctx context.Context, d time.Duration) error {
	c.sleeps = append(c.sleeps, d)
	c.t = c.t.Add(d)
	if f := c.person[len(c.sleeps)]; f != nil {
		f()
	}
	return ctx.Err()
}

// act posts the verification page's form as a person's browser would.
func act(t *testing.T, p *DevicePrompt, action string) func() {
	return func() {
		resp, err := http.PostForm(p.VerificationURI, url.Values{"user_code": {p.UserCode}, "action": {action}})
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("the verification page answered %d", resp.StatusCode)
		}
	}
}

// deviceOpts are Login options for a device login with clock c; the
// prompt shown is stored in *shown.
func (e *testEnv) deviceOpts(t *testing.T, c *deviceClock, shown *DevicePrompt) LoginOptions {
	o := e.loginOpts(t)
	o.OpenBrowser = func(string) error { t.Error("a device login opened the browser"); return nil }
	o.Device, o.Now, o.Sleep = DeviceOnly, c.now, c.sleep
	o.ShowDeviceCode = func(p DevicePrompt) error { *shown = p; return nil }
	return o
}

// TestDeviceLogin: the device grant end to end against the fake
// authorization server: dynamic registration for the device grant (no
// redirect URI), the device authorization request with scope and
// resource, the code shown, polls at the server's interval, 5 s more
// after slow_down, the token saved 0600 as device_code.
func TestDeviceLogin(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "path", device: true, deviceInterval: 1, slowDownAt: 2, refresh: true, prmScopes: []string{"mcp:read"}})
	c := newDeviceClock()
	var shown DevicePrompt
	opts := e.deviceOpts(t, c, &shown)
	c.person[3] = func() { act(t, &shown, "approve")() }
	tok, err := Login(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{time.Second, time.Second, 6 * time.Second}; !slices.Equal(c.sleeps, want) {
		t.Errorf("waits %v, want %v (the interval, then 5 s more after slow_down)", c.sleeps, want)
	}
	if !strings.HasPrefix(shown.UserCode, "WDJB-") || shown.VerificationURI != e.f.base+"/device" ||
		shown.VerificationURIComplete != shown.VerificationURI+"?user_code="+shown.UserCode || !shown.Expires.Equal(c.t.Add(-8*time.Second).Add(opts.Timeout)) {
		t.Errorf("prompt %+v", shown)
	}
	e.f.mu.Lock()
	reg, dreq := e.f.regs, e.f.deviceReq
	e.f.mu.Unlock()
	if len(reg) != 1 || reg[0]["redirect_uris"] != nil || !slices.Contains(reg[0]["grant_types"].([]any), any(GrantDeviceCode)) {
		t.Errorf("registration %v", reg)
	}
	if len(dreq) != 1 || dreq[0].Get("resource") != e.f.serverURL() || dreq[0].Get("scope") != "mcp:read" {
		t.Errorf("device authorization requests %v", dreq)
	}
	rec, _, err := e.store.Load("srv")
	if err != nil || rec == nil || rec.Grant != "device_code" || rec.Token.AccessToken != tok.AccessToken || rec.Token.RefreshToken == "" {
		t.Fatalf("saved %+v, %v", rec, err)
	}
	if fi, err := os.Stat(filepath.Join(e.store.Dir, "srv.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v", fi, err)
	}
	// The next device login reuses the registration.
	c2 := newDeviceClock()
	opts = e.deviceOpts(t, c2, &shown)
	c2.person[1] = func() { act(t, &shown, "approve")() }
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if e.f.mu.Lock(); len(e.f.regs) != 1 {
		t.Errorf("%d registrations, want 1", len(e.f.regs))
	}
	e.f.mu.Unlock()
	noSecret(t, e, nil)
}

// TestDevicePollBackoff: a failing token endpoint (503) is polled twice
// as slowly after, and a slow_down adds 5 s to that: the polls never
// speed up.
func TestDevicePollBackoff(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "path", device: true, deviceInterval: 2, unavailableAt: 1, slowDownAt: 2})
	c := newDeviceClock()
	var shown DevicePrompt
	opts := e.deviceOpts(t, c, &shown)
	c.person[3] = func() { act(t, &shown, "approve")() }
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{2 * time.Second, 4 * time.Second, 9 * time.Second}; !slices.Equal(c.sleeps, want) {
		t.Errorf("waits %v, want %v", c.sleeps, want)
	}
}

// noSecret fails when a secret of the fake server reached the logs or err.
func noSecret(t *testing.T, e *testEnv, err error) {
	t.Helper()
	all := strings.Join(e.logs, "\n")
	if err != nil {
		all += err.Error()
	}
	if strings.Contains(all, sentinel) {
		t.Errorf("a secret reached the output:\n%s", all)
	}
}

// TestDeviceEnds: denied, expired at the server, the wait's end without
// an answer, and ctx's end each stop the polls with their own error.
func TestDeviceEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       fakeOpts
		action  string
		cancel  bool
		want    error
		timeout time.Duration
	}{
		{name: "denied", o: fakeOpts{deviceInterval: 2}, action: "deny", want: ErrDeviceDenied},
		{name: "expired at the server", action: "expire", want: ErrDeviceExpired},
		{name: "never answered", o: fakeOpts{deviceInterval: 1, deviceExpires: 3}, want: ErrDeviceExpired},
		{name: "timeout", o: fakeOpts{deviceInterval: 1}, timeout: 4 * time.Second, want: ErrDeviceExpired},
		{name: "interrupted", cancel: true, want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.prmAt, tc.o.device = "path", true
			e := newEnv(t, tc.o)
			c := newDeviceClock()
			var shown DevicePrompt
			opts := e.deviceOpts(t, c, &shown)
			opts.Timeout = tc.timeout
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			switch {
			case tc.cancel:
				c.person[2] = cancel
			case tc.action != "":
				c.person[2] = func() { act(t, &shown, tc.action)() }
			}
			_, err := Login(ctx, opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if len(c.sleeps) > 20 {
				t.Errorf("%d polls", len(c.sleeps))
			}
			if rec, _, _ := e.store.Load("srv"); rec != nil {
				t.Error("a token was saved")
			}
			noSecret(t, e, err)
		})
	}
}

// TestDeviceHostileVerificationURI: an address the person would be sent
// to that is not the authorization server's kind of address is refused
// before anything is shown: javascript:, data:, plain http off
// loopback, a user name, control characters.
func TestDeviceHostileVerificationURI(t *testing.T) {
	for _, bad := range []string{"javascript:alert(1)", "data:text/html,<script>x</script>", "http://evil.example/device",
		"https://user:pw@as.example/device", "https://as.example/\x1b]8;;https://evil.example\x07device", "file:///etc/passwd", "//evil.example/d"} {
		for _, complete := range []bool{false, true} {
			o := fakeOpts{prmAt: "path", device: true, deviceURI: bad}
			if complete {
				o.deviceURI, o.deviceComplete = "", bad
			}
			e := newEnv(t, o)
			c := newDeviceClock()
			var shown DevicePrompt
			_, err := Login(context.Background(), e.deviceOpts(t, c, &shown))
			if err == nil || !strings.Contains(err.Error(), "verification_uri") || shown.UserCode != "" || len(c.sleeps) != 0 {
				t.Errorf("%q (complete %v): err %v, shown %+v, %d polls", bad, complete, err, shown, len(c.sleeps))
			}
			if err != nil && strings.ContainsAny(err.Error(), "\x1b\x07") {
				t.Errorf("the error carries control characters: %q", err)
			}
			noSecret(t, e, err)
		}
	}
}

// TestDeviceChoice: DeviceOnly without a device endpoint is
// ErrNoDeviceGrant; DeviceIfOffered falls back to the browser flow, also
// when the device endpoint refuses to start.
func TestDeviceChoice(t *testing.T) {
	e := newEnv(t, fakeOpts{prmAt: "path"})
	c := newDeviceClock()
	var shown DevicePrompt
	opts := e.deviceOpts(t, c, &shown)
	if _, err := Login(context.Background(), opts); !errors.Is(err, ErrNoDeviceGrant) {
		t.Fatalf("DeviceOnly without the grant: %v", err)
	}
	opts.Device, opts.OpenBrowser = DeviceIfOffered, browser(t, nil)
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatalf("DeviceIfOffered without the grant: %v", err)
	}
	if rec, _, _ := e.store.Load("srv"); rec == nil || rec.Grant != "authorization_code" {
		t.Errorf("record %+v", rec)
	}

	// A device endpoint that refuses the client: DeviceOnly fails with
	// its answer, DeviceIfOffered logs in with the browser.
	e = newEnv(t, fakeOpts{prmAt: "path", device: true, deviceRefuse: true})
	opts = e.deviceOpts(t, c, &shown)
	var te *TokenError
	if _, err := Login(context.Background(), opts); !errors.As(err, &te) || te.Code != "unauthorized_client" {
		t.Fatalf("DeviceOnly refused: %v", err)
	}
	opts.Device, opts.OpenBrowser = DeviceIfOffered, browser(t, nil)
	if _, err := Login(context.Background(), opts); err != nil {
		t.Fatalf("DeviceIfOffered refused: %v", err)
	}
	if rec, _, _ := e.store.Load("srv"); rec == nil || rec.Grant != "authorization_code" || shown.UserCode != "" {
		t.Errorf("record %+v, shown %+v", rec, shown)
	}
}

// FuzzDeviceResponse: the device authorization response parser never
// panics, and what it accepts holds its promises: the addresses pass the
// endpoint rules, the waits are positive and bounded, and an error never
// carries the device code.
func FuzzDeviceResponse(f *testing.F) {
	f.Add([]byte(`{"device_code":"dc","user_code":"WDJB-MJHT","verification_uri":"https://as.example/device","expires_in":1800,"interval":5}`))
	f.Add([]byte(`{"device_code":"dc","user_code":"u","verification_url":"https://as.example/d","verification_uri_complete":"https://as.example/d?u=1","expires_in":"900"}`))
	f.Add([]byte(`{"device_code":"dc","user_code":"u","verification_uri":"javascript:alert(1)","expires_in":1}`))
	f.Add([]byte(`{"device_code":"dc","user_code":"u","verification_uri":"http://127.0.0.1:9/d","expires_in":1e30,"interval":-3}`))
	f.Add([]byte(`[]`))
	const server = "https://mcp.example/mcp"
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := parseDeviceResponse(data, server)
		if err != nil {
			var dr deviceResponse
			if _ = json.Unmarshal(data, &dr); len(dr.DeviceCode) > 3 && strings.Contains(err.Error(), dr.DeviceCode) {
				t.Fatalf("the error carries the device code: %v", err)
			}
			return
		}
		if len(g.prompt.VerificationURI) > maxVerificationURI || len(g.prompt.UserCode) > maxUserCode || g.deviceCode == "" || g.prompt.UserCode == "" || g.interval <= 0 || g.expiresIn <= 0 || g.interval > g.expiresIn || g.expiresIn > 24*time.Hour {
			t.Fatalf("accepted %+v", g)
		}
		for _, u := range []string{g.prompt.VerificationURI, g.prompt.VerificationURIComplete} {
			if u != "" && safe.CheckEndpointURL(u, server) != nil {
				t.Fatalf("accepted the address %q", u)
			}
		}
	})
}
