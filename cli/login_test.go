package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
)

// TestLoginForAgentsAndPeople: login when logged in says so and exits 0
// (--force logs in again); with --json or --events the authorization
// address is an event on stdout before the result; logout and login again
// reuse the registered client.
func TestLoginForAgentsAndPeople(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")

	// --json: one document, the address a member of it.
	stdout, _ := r.run(0, "login", "srv", "--json")
	var doc struct {
		OK               bool
		Server           string
		LoginNeeded      bool
		AlreadyLoggedIn  bool
		Scopes           []string
		AuthorizationURL string `json:"authorizationUrl"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !doc.OK || !doc.LoginNeeded || doc.AlreadyLoggedIn || !slices.Contains(doc.Scopes, "mcp:read") ||
		doc.Server != "srv" || !strings.HasPrefix(doc.AuthorizationURL, f.URL+"/authorize?") {
		t.Fatalf("login --json is not one document with the address (%v):\n%s", err, stdout)
	}

	// Logged in: say so, exit 0, no browser, nothing registered again.
	f.Mu.Lock()
	regs := f.Registered
	f.Mu.Unlock()
	stdout, stderr := r.run(0, "login", "srv")
	if !strings.Contains(stdout, "already logged in to srv (authenticated); to log in again: mcpwire login --force srv") || strings.Contains(stderr, "/authorize?") {
		t.Fatalf("login when logged in:\n%s\n%s", stdout, stderr)
	}
	stdout, _ = r.run(0, "login", "srv", "--json")
	if !strings.Contains(stdout, `"alreadyLoggedIn": true`) || strings.Contains(stdout, "authorization_url") {
		t.Fatalf("login --json when logged in:\n%s", stdout)
	}

	// A saved token the server no longer accepts is no reason to stop:
	// plain login logs in again.
	f.RevokeAll()
	stdout, _ = r.run(0, "login", "srv")
	if strings.Contains(stdout, "already logged in") || !strings.Contains(stdout, "logged in to srv") {
		t.Fatalf("login with a rejected token:\n%s", stdout)
	}

	// --force logs in again; --events gives the address, then the result.
	stdout, _ = r.run(0, "login", "srv", "--force", "--events")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"event":"authorization_url"`) || !strings.Contains(lines[1], `"event":"result"`) {
		t.Fatalf("login --force --events:\n%s", stdout)
	}

	// Logout keeps the registered client; the next login reuses it.
	r.run(0, "logout", "srv")
	r.run(0, "login", "srv")
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if f.Registered != regs {
		t.Fatalf("%d registrations after logout and login, want %d (the client is kept by issuer)", f.Registered, regs)
	}
	if strings.Contains(r.all.String(), fakeauth.Leak) {
		t.Fatal("a secret reached an output")
	}
}

// TestBrowserCommands: $BROWSER is commands separated by the path list
// separator, each split at spaces, %s standing for the address (else it
// is added last), %% for a %.
func TestBrowserCommands(t *testing.T) {
	sep := string(os.PathListSeparator)
	u := "http://127.0.0.1:1/a?b=c%20d"
	got := browserCommands("firefox"+sep+"chromium --headless %s --x=100%%"+sep+" ", u)
	want := [][]string{{"firefox", u}, {"chromium", "--headless", u, "--x=100%"}}
	if len(got) != len(want) || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) {
		t.Fatalf("browserCommands: %q, want %q", got, want)
	}
	if got := browserCommands("", u); len(got) != 1 || got[0][len(got[0])-1] != u {
		t.Fatalf("the platform's opener: %q", got)
	}
}

// TestBrowserFallsThrough: a $BROWSER command that cannot start is
// skipped for the next one.
func TestBrowserFallsThrough(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("$BROWSER is split at spaces, and the test binary's path may hold some on windows")
	}
	f := fakeauth.New(t)
	r := newRunner(t)
	r.env["BROWSER"] = filepath.Join(t.TempDir(), "no-such-browser") + string(os.PathListSeparator) + r.env["BROWSER"] + " %s"
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	stdout, _ := r.run(0, "login", "srv")
	if !strings.Contains(stdout, "logged in to srv") {
		t.Fatalf("login:\n%s", stdout)
	}
}

// TestListStrictNeedsLogin: list --strict exits 4 when a server needs a
// login (and plain list 0, naming it in its last line).
func TestListStrictNeedsLogin(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	stdout, _ := r.run(0, "list")
	if !strings.Contains(stdout, "1 server: 0 connected, 1 needs a login") {
		t.Fatalf("list:\n%s", stdout)
	}
	stdout, _ = r.run(ExitAuth, "list", "--strict", "--json")
	if !strings.Contains(stdout, `"needLogin": 1`) || !strings.Contains(stdout, `"log in: mcpwire login srv"`) {
		t.Fatalf("list --strict --json:\n%s", stdout)
	}
}
