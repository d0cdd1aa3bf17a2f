package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/manager"
)

// started is a run of mcpwire in-process that a test acts alongside.
type started struct {
	done           chan int
	stdout, stderr *bytes.Buffer
}

// start runs mcpwire with args under ctx while the test goes on; wait
// collects it.
func (r *runner) start(ctx context.Context, args ...string) *started {
	s := &started{done: make(chan int, 1), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	env := Env{Stdin: strings.NewReader(""), Stdout: s.stdout, Stderr: s.stderr, Dir: r.home, Home: r.home,
		Getenv: func(k string) string { return r.env[k] }, Program: r.program}
	go func() { s.done <- Main(ctx, args, env) }()
	return s
}

// wait returns the run's exit code and outputs, failing when it does
// not end within a minute.
func (s *started) wait(t *testing.T, r *runner, want int) (stdout, stderr string) {
	t.Helper()
	select {
	case code := <-s.done:
		r.all.WriteString(s.stdout.String() + s.stderr.String())
		if code != want {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, s.stdout, s.stderr)
		}
		return s.stdout.String(), s.stderr.String()
	case <-time.After(time.Minute):
		t.Fatal("mcpwire did not end")
	}
	return "", ""
}

// person waits for the first poll of a device login, then acts at the
// verification page as a person's browser would.
func person(t *testing.T, f *fakeauth.Server, action string) {
	t.Helper()
	select {
	case <-f.Polled():
	case <-time.After(30 * time.Second):
		t.Fatal("the login never polled")
	}
	if err := f.Act(action); err != nil {
		t.Fatal(err)
	}
}

func deviceServer(t *testing.T) (*fakeauth.Server, *runner) {
	f := fakeauth.New(t)
	f.Mu.Lock()
	f.Device = true
	f.Mu.Unlock()
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	return f, r
}

// TestLoginDevice: in an SSH session, login uses the device grant the
// server offers: the code and the address on stderr, the --json
// document with them as members, --events with a device_code event
// first; the token works; --no-device uses the browser; a denial is
// exit 4 with a hint; no secret reaches any output.
func TestLoginDevice(t *testing.T) {
	f, r := deviceServer(t)
	r.env["SSH_CONNECTION"] = "10.0.0.1 50000 10.0.0.2 22"
	ctx := context.Background()

	run := r.start(ctx, "login", "srv", "--json", "--verbose")
	person(t, f, "approve")
	stdout, stderr := run.wait(t, r, 0)
	var doc jLogin
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !doc.LoginNeeded || doc.AuthURL != "" || !strings.HasPrefix(doc.UserCode, "BDWP-") ||
		doc.VerifyURI != f.URL+"/device" || doc.VerifyComplete != doc.VerifyURI+"?user_code="+doc.UserCode {
		t.Fatalf("login --json (%v):\n%s", err, stdout)
	}
	if !strings.Contains(stderr, "open this address in a browser, on any device:\n\n  "+f.URL+"/device\n\nand enter the code:\n\n  "+doc.UserCode+"\n") {
		t.Errorf("the code is not shown:\n%s", stderr)
	}
	if f.Mu.Lock(); len(f.AuthScopes) != 0 {
		t.Error("a device login went through the browser")
	}
	f.Mu.Unlock()
	r.run(0, "call", "srv", "echo", "text=hi")

	run = r.start(ctx, "login", "srv", "--device", "--force", "--events")
	person(t, f, "approve")
	stdout, _ = run.wait(t, r, 0)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var ev jEvent
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &ev) != nil || ev.Event != "device_code" || ev.Server != "srv" ||
		!strings.HasPrefix(ev.Code, "BDWP-") || ev.URL != f.URL+"/device" || ev.Expires == "" || !strings.Contains(lines[1], `"event":"result"`) {
		t.Fatalf("login --events:\n%s", stdout)
	}

	stdout, _ = r.run(0, "login", "srv", "--no-device", "--force", "--json")
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || !strings.HasPrefix(doc.AuthURL, f.URL+"/authorize?") || doc.UserCode != "" {
		t.Fatalf("login --no-device:\n%s", stdout)
	}

	run = r.start(ctx, "login", "srv", "--force")
	person(t, f, "deny")
	_, stderr = run.wait(t, r, ExitAuth)
	if !strings.Contains(stderr, "denied") || !strings.Contains(stderr, "to try again: mcpwire login srv") {
		t.Errorf("a denied login:\n%s", stderr)
	}
	if strings.Contains(r.all.String(), fakeauth.Leak) {
		t.Fatal("a secret reached an output")
	}
}

// TestLoginDeviceInterrupted: Ctrl-C while login waits for the approval
// ends it at once with exit 130 and the code interrupted; no token is
// saved.
func TestLoginDeviceInterrupted(t *testing.T) {
	f, r := deviceServer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	run := r.start(ctx, "login", "srv", "--device", "--json")
	select {
	case <-f.Polled():
	case <-time.After(30 * time.Second):
		t.Fatal("the login never polled")
	}
	cancel(&Interrupt{Signal: "SIGINT", Code: ExitSignal})
	stdout, _ := run.wait(t, r, ExitSignal)
	if !strings.Contains(stdout, `"code": "interrupted"`) {
		t.Errorf("login interrupted:\n%s", stdout)
	}
	stdout, _ = r.run(0, "list", "--json", "--no-connect")
	if strings.Contains(stdout, `"auth": "logged in"`) {
		t.Errorf("a token was saved:\n%s", stdout)
	}
}

// TestLoginDeviceRefusals: --device at a server without the grant is
// exit 4 with a hint; a verification address that is not https (a
// javascript: URL, plain http off loopback) or carries control
// characters is refused before anything is shown; a hostile user code
// reaches the terminal escaped; --device and --no-device exclude each
// other.
func TestLoginDeviceRefusals(t *testing.T) {
	f, r := deviceServer(t)
	r.run(ExitUsage, "login", "srv", "--device", "--no-device")
	f.Mu.Lock()
	f.Device = false
	f.Mu.Unlock()
	_, stderr := r.run(ExitAuth, "login", "srv", "--device")
	if !strings.Contains(stderr, "offers no device login") {
		t.Errorf("--device without the grant:\n%s", stderr)
	}
	f.Mu.Lock()
	f.Device = true
	f.Mu.Unlock()
	for _, bad := range []string{"javascript:alert(1)//", "http://evil.example/device", "https://as.example/\x1b[2J\x1b]8;;https://evil.example\x07"} {
		f.Mu.Lock()
		f.VerificationURI = bad
		f.Mu.Unlock()
		_, stderr := r.run(ExitAuth, "login", "srv", "--device")
		if !strings.Contains(stderr, "verification_uri") || strings.Contains(stderr, "enter the code") || strings.ContainsAny(stderr, "\x1b\x07") {
			t.Errorf("verification_uri %q:\n%s", bad, stderr)
		}
	}
	f.Mu.Lock()
	f.VerificationURI, f.UserCode = "", "AB\x1b]52;c;ZXZpbA==\x07\x1b[2JCD\u202e"
	f.Mu.Unlock()
	run := r.start(context.Background(), "login", "srv", "--device")
	person(t, f, "approve")
	_, stderr = run.wait(t, r, 0)
	if strings.ContainsAny(stderr, "\x1b\x07\u202e") || !strings.Contains(stderr, "enter the code") {
		t.Errorf("a hostile user code reached the terminal:\n%q", stderr)
	}
	if strings.Contains(r.all.String(), fakeauth.Leak) {
		t.Fatal("a secret reached an output")
	}
}

// TestDeviceChoice: which logins offer the device grant: --device only
// it, --no-device never, --no-browser, an SSH session or (outside macOS
// and Windows) no display and no $BROWSER when the server offers it.
func TestDeviceChoice(t *testing.T) {
	for _, tc := range []struct {
		flags loginFlags
		env   map[string]string
		goos  string
		want  manager.DeviceUse
	}{
		{env: map[string]string{"DISPLAY": ":0"}, goos: "linux", want: manager.DeviceNever},
		{env: map[string]string{}, goos: "darwin", want: manager.DeviceNever},
		{env: map[string]string{"BROWSER": "firefox"}, goos: "linux", want: manager.DeviceNever},
		{env: map[string]string{}, goos: "linux", want: manager.DeviceIfOffered},
		{env: map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, goos: "freebsd", want: manager.DeviceNever},
		{env: map[string]string{"DISPLAY": ":0", "SSH_TTY": "/dev/pts/1"}, goos: "linux", want: manager.DeviceIfOffered},
		{env: map[string]string{"SSH_CONNECTION": "a 1 b 22"}, goos: "darwin", want: manager.DeviceIfOffered},
		{flags: loginFlags{noBrowser: true}, env: map[string]string{"DISPLAY": ":0"}, goos: "linux", want: manager.DeviceIfOffered},
		{flags: loginFlags{noDevice: true}, env: map[string]string{"SSH_TTY": "/dev/pts/1"}, goos: "linux", want: manager.DeviceNever},
		{flags: loginFlags{device: true}, env: map[string]string{"DISPLAY": ":0"}, goos: "windows", want: manager.DeviceOnly},
	} {
		if got := tc.flags.deviceUse(func(k string) string { return tc.env[k] }, tc.goos); got != tc.want {
			t.Errorf("%+v %v on %s: %v, want %v", tc.flags, tc.env, tc.goos, got, tc.want)
		}
	}
}

// TestLoginNoBrowserDevice: --no-browser at a server that offers the
// device grant shows a code instead of asking for a pasted address.
func TestLoginNoBrowserDevice(t *testing.T) {
	f, r := deviceServer(t)
	run := r.start(context.Background(), "login", "srv", "--no-browser")
	person(t, f, "approve")
	_, stderr := run.wait(t, r, 0)
	if !strings.Contains(stderr, "and enter the code:") || strings.Contains(stderr, "Paste that whole address") {
		t.Errorf("login --no-browser:\n%s", stderr)
	}
}
