package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/oauth"
)

// leak marks every secret the fake authorization server hands out.
const leak = fakeauth.Leak

// TestMain doubles as the BROWSER program of the login tests: run with
// MCPWIRE_TEST_BROWSER=1 and the authorization URL, it approves at once,
// like a user. Run as "mcp serve-demo", it is the demo server of a
// command line mounted as "agent mcp" (see TestMounted).
func TestMain(m *testing.M) {
	manager.RunSandboxLauncher() // the sandbox launcher of the tests' contained servers
	if len(os.Args) >= 3 && os.Args[1] == spawnHelperArg {
		os.Exit(spawnHelper(os.Args[2:])) // see descendants_linux_test.go
	}
	if len(os.Args) == 3 && os.Args[1] == "mcp" && os.Args[2] == "serve-demo" {
		os.Exit(Main(context.Background(), os.Args[2:], OSEnv()))
	}
	if os.Getenv("MCPWIRE_TEST_BROWSER") == "1" && len(os.Args) == 2 {
		if err := fakeauth.Approve(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "browser:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	removeBuilt()
	os.Exit(code)
}

// runner runs mcpwire in-process with one home folder and collects every
// output, for the secrets check.
type runner struct {
	t       *testing.T
	home    string
	env     map[string]string
	all     bytes.Buffer
	program string // Env.Program; "" = the default
}

func newRunner(t *testing.T) *runner {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPWIRE_TEST_BROWSER", "1")
	return &runner{t: t, home: t.TempDir(), env: map[string]string{"BROWSER": exe, "NO_COLOR": "1"}}
}

func (r *runner) run(want int, args ...string) (stdout, stderr string) {
	r.t.Helper()
	var out, errb bytes.Buffer
	exe, _ := os.Executable()
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: r.home, Home: r.home,
		Getenv: func(k string) string { return r.env[k] }, Program: r.program, Executable: exe}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := Main(ctx, args, env)
	r.all.WriteString(out.String() + errb.String())
	if code != want {
		r.t.Fatalf("mcpwire %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func TestLoginCallLogout(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")

	// No token: exit 4 naming the login, no browser.
	_, stderr := r.run(ExitAuth, "call", "srv", "echo", "text=hi")
	if !strings.Contains(stderr, "mcpwire login srv") {
		t.Fatalf("no login hint:\n%s", stderr)
	}
	r.run(ExitAuth, "test", "srv", "--json")
	stdout, _ := r.run(0, "list", "--json", "--no-connect")
	if !strings.Contains(stdout, `"auth": "not needed"`) {
		t.Fatalf("list before login:\n%s", stdout)
	}

	stdout, stderr = r.run(0, "login", "srv")
	if !strings.Contains(stdout, "logged in to srv (scopes mcp:read, expires ") {
		t.Fatalf("login said:\n%s", stdout)
	}
	if !strings.Contains(stderr, f.URL+"/authorize?") {
		t.Fatalf("login did not print the URL:\n%s", stderr)
	}
	tokenFile := filepath.Join(r.home, "mcp-tokens", "srv.json")
	checkMode(t, tokenFile)
	stdout, _ = r.run(0, "list", "--json", "--no-connect")
	if !strings.Contains(stdout, `"auth": "authenticated"`) {
		t.Fatalf("list after login:\n%s", stdout)
	}
	stdout, _ = r.run(0, "call", "srv", "echo", "text=hello")
	if !strings.Contains(stdout, "hello") {
		t.Fatalf("call:\n%s", stdout)
	}
	r.run(0, "test", "srv", "--json")
	r.run(0, "call", "srv", "echo", "text=hi", "--json")

	// An expired token is refreshed, and the rotated one saved.
	store := oauth.NewStore(r.home)
	rec, _, err := store.Load("srv")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	rec.Token.Expiry = time.Now().Add(-time.Hour)
	if err := store.Save("srv", rec); err != nil {
		t.Fatal(err)
	}
	stdout, _ = r.run(0, "list", "--json", "--no-connect")
	if !strings.Contains(stdout, `"auth": "refreshable"`) {
		t.Fatalf("list with an expired token:\n%s", stdout)
	}
	r.run(0, "call", "srv", "echo", "text=again")
	if f.Refreshes != 1 {
		t.Fatalf("%d refreshes, want 1", f.Refreshes)
	}
	checkMode(t, tokenFile)

	// Step-up: tools/call needs more scope; the next login asks for the union.
	f.Mu.Lock()
	f.NeedScope = "mcp:write"
	f.Mu.Unlock()
	_, stderr = r.run(ExitAuth, "call", "srv", "echo", "text=hi")
	if !strings.Contains(stderr, "mcpwire login srv") || !strings.Contains(stderr, "mcp:write") {
		t.Fatalf("step-up failure:\n%s", stderr)
	}
	r.run(0, "login", "srv")
	f.Mu.Lock()
	last := f.AuthScopes[len(f.AuthScopes)-1]
	f.Mu.Unlock()
	if !slices.Contains(last, "mcp:write") || !slices.Contains(last, "mcp:read") {
		t.Fatalf("step-up login asked for %v", last)
	}
	r.run(0, "call", "srv", "echo", "text=hi")
	if _, err := os.Stat(filepath.Join(r.home, "mcp-tokens", ".stepup-srv.json")); !os.IsNotExist(err) {
		t.Fatalf("step-up state not cleared after success: %v", err)
	}

	stdout, _ = r.run(0, "logout", "srv")
	if !strings.Contains(stdout, "logged out of srv") || f.Revoked == 0 {
		t.Fatalf("logout: %q, %d revocations", stdout, f.Revoked)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Fatalf("token file still there: %v", err)
	}
	_, stderr = r.run(0, "logout", "srv")
	if !strings.Contains(stderr, "not logged in") {
		t.Fatalf("second logout:\n%s", stderr)
	}
	r.run(ExitAuth, "call", "srv", "echo", "text=hi", "--json")

	if strings.Contains(r.all.String(), leak) {
		t.Fatalf("a secret reached the output:\n%s", r.all.String())
	}
}

func TestStepUpLimit(t *testing.T) {
	f := fakeauth.New(t)
	f.NeedScope, f.NeverGrant = "mcp:admin", "mcp:admin"
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	for i := 0; i < 3; i++ {
		r.run(0, "login", "srv", "--json")
		r.run(ExitAuth, "call", "srv", "echo", "text=hi")
	}
	_, stderr := r.run(ExitAuth, "login", "srv")
	if !strings.Contains(stderr, "too many authorization attempts") {
		t.Fatalf("fourth login:\n%s", stderr)
	}
	if n := len(f.AuthScopes); n != 3 {
		t.Fatalf("%d authorization requests, want 3", n)
	}
	checkMode(t, filepath.Join(r.home, "mcp-tokens", ".stepup-srv.json"))
	r.run(0, "logout", "srv")
	r.run(0, "login", "srv")
	if strings.Contains(r.all.String(), leak) {
		t.Fatalf("a secret reached the output:\n%s", r.all.String())
	}
}

func TestLoginAdHocURLAndNoBrowser(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	u := f.URL + "/mcp"
	host := strings.TrimPrefix(f.URL, "http://")
	// --no-browser: the redirected address is pasted on stdin. Fetch it
	// the way a person's browser would, from the printed URL.
	var out, errb bytes.Buffer
	pr, pw := io.Pipe()
	env := Env{Stdin: pr, Stdout: &out, Stderr: &lineWatcher{w: &errb, onURL: func(authURL string) {
		go func() {
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Get(authURL)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			resp.Body.Close()
			io.WriteString(pw, resp.Header.Get("Location")+"\n")
		}()
	}}, Dir: r.home, Home: r.home, Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if code := Main(ctx, []string{"login", u, "--no-browser"}, env); code != 0 {
		t.Fatalf("login --no-browser: exit %d\n%s", code, errb.String())
	}
	pw.Close()
	checkMode(t, filepath.Join(r.home, "mcp-tokens", oauth.FileName(host)))
	stdout, _ := r.run(0, "call", u, "echo", "text=adhoc")
	if !strings.Contains(stdout, "adhoc") {
		t.Fatalf("call:\n%s", stdout)
	}
	r.run(0, "logout", u)
	if strings.Contains(out.String()+errb.String()+r.all.String(), leak) {
		t.Fatal("a secret reached the output")
	}
}

// lineWatcher passes writes on and calls onURL with the first
// authorization URL it sees.
type lineWatcher struct {
	w     io.Writer
	onURL func(string)
	once  sync.Once
}

func (l *lineWatcher) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "http") && strings.Contains(line, "/authorize?") {
			l.once.Do(func() { l.onURL(line) })
		}
	}
	return l.w.Write(p)
}

func TestLoginRefusals(t *testing.T) {
	r := newRunner(t)
	r.run(0, "add", "local", "--", "true")
	r.run(ExitUsage, "login", "local")
	r.run(ExitConfig, "login", "nosuch")
	r.run(ExitUsage, "login")
	r.run(ExitUsage, "login", "http://127.0.0.1:1/mcp", "--client-secret-env", "UNSET_VAR")
	stdout, _ := r.run(0, "list", "--json", "--no-connect")
	if !strings.Contains(stdout, `"auth": "none"`) {
		t.Fatalf("stdio AUTH:\n%s", stdout)
	}
	// A server that does not ask for a login.
	h := demo.NewHTTPHandler(demo.Options{})
	srv := httptest.NewServer(h)
	defer func() { srv.Close(); h.Close() }()
	_, stderr := r.run(0, "login", srv.URL+"/mcp")
	if !strings.Contains(stderr, "does not ask for a login") {
		t.Fatalf("login to an open server:\n%s", stderr)
	}
}

func checkMode(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s has mode %04o, want 0600", path, fi.Mode().Perm())
	}
}
