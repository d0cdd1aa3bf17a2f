package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// loginFlags are the flags of `mcpwire login`.
type loginFlags struct {
	noBrowser         bool
	device, noDevice  bool
	scopes            string
	timeout           time.Duration
	json, verbose     bool
	clientID          string
	clientSecretEnv   string
	clientMetadataURL string
	callbackPort      int
	clientCreds       bool
	privateKey        string
	signingAlg        string
	idTokenFile       string
	idpTokenEndpoint  string
	idpClientID       string
	idpSecretEnv      string
	jwtAssertionFile  string
	headers           listFlag
	force, events     bool
}

// loginDoc is `mcpwire login --json` (and the result event of --events).
type loginDoc struct {
	docHeader
	Server string `json:"server"`
	// LoginNeeded is false when the server answered without a token:
	// nothing was done.
	LoginNeeded bool `json:"loginNeeded"`
	// AlreadyLoggedIn is true when a usable token was there and --force
	// was not given: nothing was done.
	AlreadyLoggedIn bool     `json:"alreadyLoggedIn"`
	Scopes          []string `json:"scopes"`
	Refreshable     bool     `json:"refreshable"`
	Expires         string   `json:"expires"` // RFC 3339, UTC; "" when the token does not expire or none was issued
	// AuthorizationURL is the address the browser was sent to (or, with
	// --no-browser, shown); "" when the login needed none.
	AuthorizationURL string `json:"authorizationUrl"`
	// UserCode and the verification addresses are those of a device
	// login (RFC 8628); "" otherwise.
	UserCode                string `json:"userCode"`
	VerificationURI         string `json:"verificationUri"`
	VerificationURIComplete string `json:"verificationUriComplete"`
}

// loginEvent is the line login prints on stdout with --events when it
// opens the browser, so that an agent can show the address as it waits.
type loginEvent struct {
	_ [0]func() // not comparable: no equality function in the binary

	Event  string `json:"event"` // "authorization_url"
	Server string `json:"server"`
	URL    string `json:"url"`
}

// deviceEvent is the line login prints on stdout with --events when a
// device login shows its code.
type deviceEvent struct {
	_ [0]func() // not comparable: no equality function in the binary

	Event       string `json:"event"` // "device_code"
	Server      string `json:"server"`
	URL         string `json:"url"`                   // verification_uri
	URLComplete string `json:"urlComplete,omitempty"` // verification_uri_complete
	UserCode    string `json:"userCode"`
	Expires     string `json:"expires"` // RFC 3339, UTC: the end of the wait
}

func runLogin(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("login")
	var lf loginFlags
	fs.BoolVar(&lf.noBrowser, "no-browser", false, "no browser here: a device login when the server offers it, else print the URL and read the address the browser was sent to from stdin")
	fs.BoolVar(&lf.device, "device", false, "log in with a code to enter on any device (the device authorization grant, RFC 8628); an error when the server does not offer it")
	fs.BoolVar(&lf.noDevice, "no-device", false, "never log in with a device code, even in an SSH session or without a display")
	fs.StringVar(&lf.scopes, "scopes", "", `scopes to ask for, space separated (default: what the server asks for)`)
	fs.DurationVar(&lf.timeout, "timeout", manager.DefaultLoginTimeout, "how long to wait for the browser, or for the approval of a device login (which also ends when its code expires)")
	fs.BoolVar(&lf.json, "json", false, "print one JSON document on stdout")
	fs.BoolVar(&lf.verbose, "verbose", false, "say what the login does, step by step (never a secret)")
	fs.StringVar(&lf.clientID, "client-id", "", "a pre-registered client id (default: the definition's oauth.client_id)")
	fs.StringVar(&lf.clientSecretEnv, "client-secret-env", "", "read the pre-registered client secret from this environment `VAR`")
	fs.StringVar(&lf.clientMetadataURL, "client-metadata-url", "", "a Client ID Metadata Document URL to use as client id where supported")
	fs.IntVar(&lf.callbackPort, "callback-port", 0, "receive the browser's callback on this loopback `PORT` (redirect_uri http://127.0.0.1:PORT/callback; default: the definition's oauth.callbackPort, else a free port)")
	fs.BoolVar(&lf.clientCreds, "client-credentials", false, "log in as a machine with the client_credentials grant (no browser)")
	fs.StringVar(&lf.privateKey, "private-key", "", "client credentials: sign a JWT with this PEM `FILE` instead of a secret")
	fs.StringVar(&lf.signingAlg, "signing-alg", "", "client credentials: ES256 or RS256 (default: from the key)")
	fs.StringVar(&lf.idTokenFile, "id-token-file", "", "cross-app access: the identity provider's ID token, in this `FILE`")
	fs.StringVar(&lf.jwtAssertionFile, "jwt-assertion-file", "", "workload identity: log in with the JWT the platform puts in this `FILE` (RFC 7523 jwt-bearer, with --client-id); read again whenever the token expires")
	fs.StringVar(&lf.idpTokenEndpoint, "idp-token-endpoint", "", "cross-app access: the identity provider's token endpoint")
	fs.StringVar(&lf.idpClientID, "idp-client-id", "", "cross-app access: the client id at the identity provider")
	fs.StringVar(&lf.idpSecretEnv, "idp-client-secret-env", "", "cross-app access: read the identity provider client secret from this environment `VAR`")
	fs.Var(&lf.headers, "header", "an HTTP header 'K: V' for a URL target (repeatable)")
	fs.BoolVar(&lf.force, "force", false, "log in again even when a usable token is there")
	fs.BoolVar(&lf.events, "events", false, "print NDJSON events on stdout: the authorization address, then the result")
	pos, _, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	inv.json = lf.json
	if lf.json && lf.events {
		return usageErr("give --json or --events, not both")
	}
	if hasTail || len(pos) != 1 {
		return usageErr("login takes one NAME (a configured HTTP server) or an http(s):// URL")
	}
	if err := lf.checkDevice(); err != nil {
		return err
	}
	opts, h, err := inv.loginOptions(pos[0], &lf)
	if err != nil {
		return err
	}
	name := opts.Name
	if opts.Server != nil {
		name = opts.Server.Name
	}
	var b *browser
	done := func(doc loginDoc) error {
		doc.docHeader = inv.header(true)
		doc.Server, doc.Scopes, doc.AuthorizationURL = name, nonNil(doc.Scopes), b.authURL
		if p := b.prompt; p != nil {
			doc.UserCode, doc.VerificationURI, doc.VerificationURIComplete = p.UserCode, p.VerificationURI, p.VerificationURIComplete
		}
		switch {
		case lf.events:
			inv.emitLine(map[string]any{"event": "result", "result": doc})
		case lf.json:
			inv.writeJSON(doc)
		}
		return nil
	}
	b = &browser{inv: inv, noBrowser: lf.noBrowser, timeout: lf.timeout, server: name, event: lf.events}
	res, err := inv.loginWith(ctx, h, opts, &lf, b)
	if err != nil {
		var se *manager.ServerError
		if errors.As(err, &se) && se.Phase != manager.PhaseAuth {
			t := &target{spec: &manager.Spec{Name: name, Transport: "http", URL: opts.URL}, server: opts.Server}
			if opts.Server != nil {
				t.spec, _ = manager.SpecFromConfig(opts.Server)
			}
			return inv.serverFailure(t, err)
		}
		login := name
		if opts.URL != "" {
			login = loginWords(&manager.Spec{Name: name, URL: opts.URL}, false)
		}
		return inv.loginFailure(name, login, err)
	}
	if res.AlreadyLoggedIn {
		doc := loginDoc{LoginNeeded: true, AlreadyLoggedIn: true, Refreshable: res.Refreshable, Scopes: res.Scopes}
		if !res.Expiry.IsZero() {
			doc.Expires = res.Expiry.UTC().Format(time.RFC3339)
		}
		if !lf.json && !lf.events {
			inv.printf("already logged in to %s (%s); to log in again: %s\n", safe.Sanitize(name), res.State, inv.suggest("login", "--force", pos[0]))
		}
		return done(doc)
	}
	if res.NotNeeded {
		inv.say("%s does not ask for a login (it answered without a token); nothing to do\n", name)
		return done(loginDoc{})
	}
	expires := "never"
	if !res.Expiry.IsZero() {
		expires = res.Expiry.Local().Format(time.RFC3339)
	}
	if lf.json || lf.events {
		doc := loginDoc{LoginNeeded: true, Scopes: res.Scopes, Refreshable: res.Refreshable}
		if !res.Expiry.IsZero() {
			doc.Expires = res.Expiry.UTC().Format(time.RFC3339)
		}
		return done(doc)
	}
	sc := "no scopes"
	if len(res.Scopes) > 0 {
		sc = "scopes " + strings.Join(res.Scopes, " ")
	}
	inv.printf("logged in to %s (%s, expires %s)\n", name, safe.Sanitize(sc), expires)
	return nil
}

// loginWith runs the login of opts (for the server called b.server) as
// lf asks, its prompts shown through b; the tokens before and after are
// secrets of the invocation.
func (inv *invocation) loginWith(ctx context.Context, h *manager.Home, opts *manager.LoginOptions, lf *loginFlags, b *browser) (*manager.LoginResult, error) {
	name := b.server
	inv.tokenSecrets(h, name)
	opts.OpenURL, opts.ShowDeviceCode = b.open, b.showDevice
	opts.Device = lf.deviceUse(inv.env.Getenv, runtime.GOOS)
	if lf.noBrowser && !b.noPaste {
		opts.ReadPastedURL = func() (string, error) { return b.readPasted(ctx) }
	}
	opts.Timeout, opts.Force = lf.timeout, lf.force
	opts.Logf = func(format string, args ...any) {
		if lf.verbose {
			inv.say("%s: %s\n", name, safe.Sanitize(fmt.Sprintf(format, args...)))
		}
	}
	// The spinner runs until the browser is opened (or to the end of a
	// login without one).
	b.stopSpinner = inv.spinner("asking " + name + " how to log in")
	res, err := h.Login(ctx, *opts)
	b.stopSpinner()
	b.wait()
	inv.tokenSecrets(h, name)
	return res, err
}

// loginFailure maps a failed login to exit 4 with what to do next;
// login is what was given to login (a name, or a URL).
func (inv *invocation) loginFailure(name, login string, err error) error {
	f := &failure{code: ExitAuth, server: name, phase: manager.PhaseAuth, err: err}
	var se *manager.ServerError
	if errors.As(err, &se) {
		f.err = errors.New(se.Reason())
	}
	var rm *manager.ResourceMismatchError
	var im *manager.IssuerMismatchError
	switch {
	case errors.Is(err, manager.ErrTooManyAttempts):
		f.hints = append(f.hints, "check the scopes your account may have; to start over: "+inv.suggest("logout", login))
	case errors.As(err, &rm), errors.As(err, &im):
		f.hints = append(f.hints, "the server's OAuth metadata does not match it; this may be an attack: do not log in, tell the server's operator")
	case errors.Is(err, manager.ErrNoClientID):
		f.hints = append(f.hints, "the authorization server needs a pre-registered client: give --client-id and --client-secret-env VAR, or set oauth.client_id in the definition")
	case errors.Is(err, manager.ErrPKCEUnsupported):
		f.hints = append(f.hints, "the authorization server does not offer PKCE S256, which MCP requires; tell its operator")
	case errors.Is(err, manager.ErrNoDeviceGrant):
		f.hints = append(f.hints, "the authorization server offers no device login: log in without --device (--no-browser prints an address to open in a browser elsewhere)")
	case errors.Is(err, manager.ErrDeviceDenied):
		f.hints = append(f.hints, "the login was denied in the browser; to try again: "+inv.suggest("login", login))
	case errors.Is(err, manager.ErrDeviceExpired):
		f.hints = append(f.hints, "the code was not approved in time; run "+inv.suggest("login", login)+" again and approve before the time shown (or raise --timeout)")
	case errors.Is(err, context.DeadlineExceeded):
		f.hints = append(f.hints, "the browser did not come back in time; try again, or raise --timeout, or use --no-browser")
	}
	return f
}

// loginOptions resolves the NAME or URL of a login and the flags that
// say how to log in.
func (inv *invocation) loginOptions(arg string, lf *loginFlags) (*manager.LoginOptions, *manager.Home, error) {
	if lf.callbackPort < 0 || lf.callbackPort > 65535 {
		return nil, nil, usageErr("--callback-port takes a port from 1 to 65535")
	}
	opts := &manager.LoginOptions{Getenv: inv.env.Getenv, ClientID: lf.clientID, ClientMetadataURL: lf.clientMetadataURL, CallbackPort: lf.callbackPort,
		ClientCredentials: lf.clientCreds, SigningAlgorithm: lf.signingAlg, IdPTokenEndpoint: lf.idpTokenEndpoint, IdPClientID: lf.idpClientID}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return nil, nil, err
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		return nil, nil, fail(ExitConfig, manager.PhaseConfig, err)
	}
	if isURL(arg) {
		if err := manager.CheckURL(arg); err != nil {
			return nil, nil, usageErr("%v", err)
		}
		opts.URL, opts.Name, opts.Header = arg, manager.URLName(arg), map[string]string{}
		for _, h := range lf.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, nil, usageErr("--header wants 'Name: value'")
			}
			opts.Header[strings.TrimSpace(k)] = strings.TrimSpace(v)
			inv.addSecrets(config.SecretForms(v)...)
		}
	} else {
		s, err := inv.lookup(cfg, arg)
		if err != nil {
			return nil, nil, err
		}
		if _, _, err := inv.checkUsable(home, s); err != nil {
			return nil, nil, err
		}
		if s.Type == config.TypeStdio {
			return nil, nil, usageErr("%s is a stdio server: login is for servers reached over HTTP", arg)
		}
		opts.Server = s
		if s.OAuth != nil {
			inv.addSecrets(expandVars(s.OAuth.ClientSecret, inv.env.Getenv))
		}
	}
	if lf.clientSecretEnv != "" {
		opts.ClientSecret = inv.env.Getenv(lf.clientSecretEnv)
		if opts.ClientSecret == "" {
			return nil, nil, usageErr("--client-secret-env: %s is not set", lf.clientSecretEnv)
		}
		inv.addSecrets(opts.ClientSecret)
	}
	if lf.scopes != "" {
		opts.Scopes = strings.Fields(lf.scopes)
	}
	if lf.privateKey != "" {
		pem, err := safe.ReadFile(lf.privateKey, safe.KindCredential)
		if err != nil {
			return nil, nil, usageErr("--private-key: %v", errors.Unwrap(err))
		}
		opts.PrivateKeyPEM = string(pem)
		inv.addSecrets(strings.TrimSpace(string(pem)))
	}
	if lf.idTokenFile != "" {
		idt, err := safe.ReadFile(lf.idTokenFile, safe.KindCredential)
		if err != nil {
			return nil, nil, usageErr("--id-token-file: %v", errors.Unwrap(err))
		}
		opts.IDToken = strings.TrimSpace(string(idt))
		if lf.idpSecretEnv != "" {
			opts.IdPClientSecret = inv.env.Getenv(lf.idpSecretEnv)
		}
		inv.addSecrets(opts.IDToken, opts.IdPClientSecret)
	}
	if lf.jwtAssertionFile != "" {
		jwt, err := safe.ReadFile(lf.jwtAssertionFile, safe.KindCredential)
		if err != nil {
			return nil, nil, usageErr("--jwt-assertion-file: %v", errors.Unwrap(err))
		}
		opts.JWTAssertionFile = lf.jwtAssertionFile
		if !filepath.IsAbs(opts.JWTAssertionFile) {
			opts.JWTAssertionFile = filepath.Join(inv.env.Dir, opts.JWTAssertionFile)
		}
		inv.addSecrets(strings.TrimSpace(string(jwt)))
	}
	return opts, h, nil
}

// browser opens the authorization URL: $BROWSER, else the platform's
// opener; the URL is always printed on stderr too.
type browser struct {
	inv         *invocation
	noBrowser   bool
	timeout     time.Duration
	done        chan struct{}
	stopSpinner func()
	server      string
	noPaste     bool                  // --no-browser waits for the callback: stdin is not the person's (proxy)
	event       bool                  // --events: the address is an event on stdout too
	authURL     string                // the address opened, for the --json document
	prompt      *manager.DevicePrompt // the code of a device login, for the --json document
}

func (b *browser) open(authURL string) error {
	inv := b.inv
	b.stopSpinner()
	b.authURL = authURL
	if b.event {
		inv.emitLine(loginEvent{Event: "authorization_url", Server: b.server, URL: authURL})
	}
	if b.noBrowser && b.noPaste {
		inv.eprintf("Open this address in a browser on this machine and log in:\n\n  %s\n\n", authURL)
		inv.eprintf("Waiting for the browser to come back (up to %v)…\n", b.timeout)
		return nil
	}
	if b.noBrowser {
		inv.eprintf("Open this address in a browser and log in:\n\n  %s\n\n", authURL)
		inv.eprintf("The browser then goes to an address starting with http://127.0.0.1:…/callback (it may show an error page).\nPaste that whole address here and press Enter:\n")
		return nil
	}
	inv.eprintf("Opening the browser to log in. If it does not open, visit:\n\n  %s\n\n", authURL)
	var started *exec.Cmd
	var tried []string
	for _, words := range browserCommands(inv.env.Getenv("BROWSER"), authURL) {
		cmd := exec.Command(words[0], words[1:]...)
		cmd.Stdout, cmd.Stderr = nil, nil
		if cmd.Start() == nil {
			started = cmd
			break
		}
		tried = append(tried, words[0])
	}
	if started == nil {
		inv.say("could not start the browser (%s): open the address above by hand\n", safe.Sanitize(strings.Join(tried, ", ")))
	} else {
		b.done = make(chan struct{})
		go func() {
			defer close(b.done)
			_ = started.Wait()
		}()
	}
	inv.eprintf("Waiting for the browser to come back (up to %v; Ctrl-C to give up)…\n", b.timeout)
	return nil
}

// showDevice shows the code of a device login and the address to enter
// it at, on stderr (and as an event with --events); every string is the
// server's, through the terminal's escaper.
func (b *browser) showDevice(p manager.DevicePrompt) error {
	inv := b.inv
	b.stopSpinner()
	b.prompt = &p
	if b.event {
		inv.emitLine(deviceEvent{Event: "device_code", Server: b.server, URL: p.VerificationURI, URLComplete: p.VerificationURIComplete,
			UserCode: p.UserCode, Expires: p.Expires.UTC().Format(time.RFC3339)})
	}
	inv.eprintf("To log in to %s, open this address in a browser, on any device:\n\n  %s\n\nand enter the code:\n\n  %s\n\n",
		safe.Sanitize(b.server), safe.Sanitize(p.VerificationURI), safe.Sanitize(p.UserCode))
	if p.VerificationURIComplete != "" {
		inv.eprintf("(or open %s, which carries the code)\n", safe.Sanitize(p.VerificationURIComplete))
	}
	inv.eprintf("Enter the code only if you started this login yourself.\nWaiting for the approval (until %s; Ctrl-C to give up)…\n", p.Expires.Local().Format(time.TimeOnly))
	return nil
}

// checkDevice refuses device flags that contradict each other or a
// machine login.
func (lf *loginFlags) checkDevice() error {
	switch {
	case lf.device && lf.noDevice:
		return usageErr("give --device or --no-device, not both")
	case lf.device && (lf.clientCreds || lf.idTokenFile != "" || lf.jwtAssertionFile != ""):
		return usageErr("--device is a person's login: not with --client-credentials, --id-token-file or --jwt-assertion-file")
	}
	return nil
}

// deviceUse is how the login uses the device grant: only it with
// --device, never with --no-device, else when no browser can be opened
// here (--no-browser, an SSH session, no display) if the server offers it.
func (lf *loginFlags) deviceUse(getenv func(string) string, goos string) manager.DeviceUse {
	switch {
	case lf.device:
		return manager.DeviceOnly
	case lf.noDevice:
		return manager.DeviceNever
	case lf.noBrowser || noBrowserHere(getenv, goos):
		return manager.DeviceIfOffered
	}
	return manager.DeviceNever
}

// noBrowserHere says whether a browser is unlikely to open where mcpwire
// runs: an SSH session ($SSH_CONNECTION, $SSH_TTY), or, outside macOS and
// Windows, no display ($DISPLAY, $WAYLAND_DISPLAY) and no $BROWSER.
func noBrowserHere(getenv func(string) string, goos string) bool {
	if getenv("SSH_CONNECTION") != "" || getenv("SSH_TTY") != "" {
		return true
	}
	switch goos {
	case "darwin", "windows":
		return false
	}
	return getenv("BROWSER") == "" && getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == ""
}

// browserCommands are the commands that may open url, in order: those of
// $BROWSER when set (commands separated by the path list separator, ':'
// or ';' on Windows; each split at spaces, its %s replaced by the
// address, else the address added last; %% is a %), else the platform's
// opener.
func browserCommands(env, url string) [][]string {
	var out [][]string
	for _, entry := range filepath.SplitList(env) {
		words := strings.Fields(entry)
		if len(words) == 0 {
			continue
		}
		placed := false
		for i, w := range words {
			w = strings.ReplaceAll(w, "%%", "\x00")
			if strings.Contains(w, "%s") {
				w = strings.ReplaceAll(w, "%s", url)
				placed = true
			}
			words[i] = strings.ReplaceAll(w, "\x00", "%")
		}
		if !placed {
			words = append(words, url)
		}
		out = append(out, words)
	}
	if len(out) > 0 {
		return out
	}
	switch runtime.GOOS {
	case "darwin":
		return [][]string{{"open", url}}
	case "windows":
		return [][]string{{"rundll32", "url.dll,FileProtocolHandler", url}}
	}
	return [][]string{{"xdg-open", url}}
}

// readPasted reads the redirected address from stdin (the terminal when
// it is one), giving up when ctx ends: a signal does not wait for a paste.
func (b *browser) readPasted(ctx context.Context) (string, error) {
	in := b.inv.openPrompt()
	defer in.close()
	line, err := in.readLine(ctx)
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	if err != nil && line == "" {
		return "", errors.New("no address pasted")
	}
	return strings.TrimSpace(line), nil
}

// wait gives the browser program a moment to finish (a real browser may
// keep running: it is the user's, and left alone).
func (b *browser) wait() {
	if b.done == nil {
		return
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-b.done:
	case <-t.C:
	}
}

// expandVars expands ${VAR} references in s.
func expandVars(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return os.Expand(s, getenv)
}
