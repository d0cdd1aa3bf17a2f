package manager

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
)

// TestDeviceLoginThroughTheManager: Home.Login with the device grant: the
// prompt is given to the agent's own UI, the person approves at the
// verification page after the first pending poll, the token is saved
// 0600 and used; a denial is ErrDeviceDenied; DeviceOnly at a server
// without the grant is ErrNoDeviceGrant, DeviceIfOffered there is the
// browser flow.
func TestDeviceLoginThroughTheManager(t *testing.T) {
	f := fakeauth.New(t)
	f.Mu.Lock()
	f.Device = true
	f.Mu.Unlock()
	home := t.TempDir()
	writeFile(t, home, `{"mcpServers": {"srv": {"url": "`+f.URL+`/mcp"}}}`)
	cfg := loadConfig(t, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := openHome(t, home)
	var wg sync.WaitGroup
	defer wg.Wait()
	var shown []DevicePrompt
	person := func(action string) func(DevicePrompt) error {
		return func(p DevicePrompt) error {
			shown = append(shown, p)
			select { // a poll of an earlier login
			case <-f.Polled():
			default:
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-f.Polled():
					if err := f.Act(action); err != nil {
						t.Error(err)
					}
				case <-ctx.Done():
				}
			}()
			return nil
		}
	}
	noBrowser := func(string) error { t.Error("a device login opened the browser"); return nil }
	res, err := h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), Device: DeviceOnly, ShowDeviceCode: person("approve"), OpenURL: noBrowser})
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 1 || !strings.HasPrefix(shown[0].UserCode, "BDWP-") || shown[0].VerificationURI != f.URL+"/device" || shown[0].Expires.IsZero() {
		t.Fatalf("shown %+v", shown)
	}
	if !slices.Equal(res.Scopes, []string{"mcp:read"}) || !res.Refreshable {
		t.Fatalf("result %+v", res)
	}
	checkPrivate(t, filepath.Join(home, "mcp-tokens", "srv.json"))
	if st := h.Auth("srv"); st.State != AuthLoggedIn {
		t.Fatalf("auth state %v", st.State)
	}

	_, err = h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), Device: DeviceOnly, ShowDeviceCode: person("deny"), Force: true})
	var se *ServerError
	if !errors.Is(err, ErrDeviceDenied) || !errors.As(err, &se) || se.Phase != PhaseAuth {
		t.Fatalf("denied: %v", err)
	}

	f.Mu.Lock()
	f.Device = false
	f.Mu.Unlock()
	if _, err := h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), Device: DeviceOnly, ShowDeviceCode: person("approve"), Force: true}); !errors.Is(err, ErrNoDeviceGrant) {
		t.Fatalf("DeviceOnly without the grant: %v", err)
	}
	_, err = h.Login(ctx, LoginOptions{Server: cfg.Server("srv"), Device: DeviceIfOffered, ShowDeviceCode: person("approve"), Force: true,
		OpenURL: func(u string) error { return fakeauth.Approve(u) }})
	if err != nil {
		t.Fatalf("DeviceIfOffered without the grant: %v", err)
	}
	if strings.Contains(strings.Join([]string{shown[0].UserCode, shown[0].VerificationURIComplete}, " "), fakeauth.Leak) {
		t.Error("the prompt carries a secret")
	}
}
