package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// loginFlags are the flags of `mcpwire login`.
type loginFlags struct {
	noBrowser         bool
	scopes            string
	timeout           time.Duration
	json, verbose     bool
	clientID          string
	clientSecretEnv   string
	clientMetadataURL string
	clientCreds       bool
	privateKey        string
	signingAlg        string
	idTokenFile       string
	idpTokenEndpoint  string
	idpClientID       string
	idpSecretEnv      string
	headers           listFlag
}

// loginTarget is the server a login is for.
type loginTarget struct {
	name, url, home string
	header          map[string]string
	oauth           *config.OAuth // never nil
}

func runLogin(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("login")
	var lf loginFlags
	fs.BoolVar(&lf.noBrowser, "no-browser", false, "print the URL and read the address the browser was sent to from stdin (for SSH)")
	fs.StringVar(&lf.scopes, "scopes", "", `scopes to ask for, space separated (default: what the server asks for)`)
	fs.DurationVar(&lf.timeout, "timeout", oauth.DefaultLoginTimeout, "how long to wait for the browser")
	fs.BoolVar(&lf.json, "json", false, "print one JSON document on stdout")
	fs.BoolVar(&lf.verbose, "verbose", false, "say what the login does, step by step (never a secret)")
	fs.StringVar(&lf.clientID, "client-id", "", "a pre-registered client id (default: the definition's oauth.client_id)")
	fs.StringVar(&lf.clientSecretEnv, "client-secret-env", "", "read the pre-registered client secret from this environment `VAR`")
	fs.StringVar(&lf.clientMetadataURL, "client-metadata-url", "", "a Client ID Metadata Document URL to use as client id where supported")
	fs.BoolVar(&lf.clientCreds, "client-credentials", false, "log in as a machine with the client_credentials grant (no browser)")
	fs.StringVar(&lf.privateKey, "private-key", "", "client credentials: sign a JWT with this PEM `FILE` instead of a secret")
	fs.StringVar(&lf.signingAlg, "signing-alg", "", "client credentials: ES256 or RS256 (default: from the key)")
	fs.StringVar(&lf.idTokenFile, "id-token-file", "", "cross-app access: the identity provider's ID token, in this `FILE`")
	fs.StringVar(&lf.idpTokenEndpoint, "idp-token-endpoint", "", "cross-app access: the identity provider's token endpoint")
	fs.StringVar(&lf.idpClientID, "idp-client-id", "", "cross-app access: the client id at the identity provider")
	fs.StringVar(&lf.idpSecretEnv, "idp-client-secret-env", "", "cross-app access: read the identity provider client secret from this environment `VAR`")
	fs.Var(&lf.headers, "header", "an HTTP header 'K: V' for a URL target (repeatable)")
	pos, _, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	inv.json = lf.json
	if hasTail || len(pos) != 1 {
		return usageErr("login takes one NAME (a configured HTTP server) or an http(s):// URL")
	}
	lt, err := inv.loginTarget(ctx, pos[0], &lf)
	if err != nil {
		return err
	}
	o := lt.oauth
	clientSecret := expandVars(o.ClientSecret, inv.env.Getenv)
	if lf.clientID != "" {
		o.ClientID = lf.clientID
	}
	if lf.clientSecretEnv != "" {
		clientSecret = inv.env.Getenv(lf.clientSecretEnv)
		if clientSecret == "" {
			return usageErr("--client-secret-env: %s is not set", lf.clientSecretEnv)
		}
	}
	if lf.clientMetadataURL != "" {
		o.ClientMetadataURL = lf.clientMetadataURL
	}
	inv.addSecrets(clientSecret)
	for _, v := range lt.header {
		inv.addSecrets(v)
	}
	scopes := o.Scopes
	if lf.scopes != "" {
		scopes = strings.Fields(lf.scopes)
	}

	// A step-up asked for more scope: ask for the union, a bounded number
	// of times in a row.
	su, _ := manager.LoadStepUp(lt.home, lt.name)
	if su != nil {
		var a oauth.Attempts
		for i := 0; i < su.Attempts; i++ {
			_ = a.Begin()
		}
		if err := a.Begin(); err != nil {
			return &failure{code: ExitAuth, server: lt.name, phase: manager.PhaseAuth,
				err:   fmt.Errorf("%v: the server still asks for more scope (%s) after %d authorizations", err, strings.Join(su.Scopes, " "), su.Attempts),
				hints: []string{"check the scopes your account may have; to start over: mcpwire logout " + lt.name}}
		}
		scopes = oauth.UnionScopes(su.Scopes, scopes)
	}

	challenge, err := inv.probe(ctx, lt)
	if err != nil {
		return err
	}
	if challenge == nil && o.ClientID == "" && !lf.clientCreds && lf.idTokenFile == "" {
		inv.eprintf("mcpwire: %s does not ask for a login (it answered without a token); nothing to do\n", lt.name)
		if lf.json {
			inv.writeJSON(map[string]any{"schema": 1, "ok": true, "server": lt.name, "loginNeeded": false})
		}
		return nil
	}

	store := manager.TokenStore(lt.home)
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	logf := func(format string, args ...any) {
		if lf.verbose {
			inv.eprintf("mcpwire: %s: %s\n", lt.name, clean(fmt.Sprintf(format, args...)))
		}
	}
	var tok *oauth.Token
	switch {
	case lf.clientCreds:
		opts := oauth.ClientCredentialsOptions{ServerURL: lt.url, Client: client, Challenge: challenge, ClientID: o.ClientID,
			ClientSecret: clientSecret, SigningAlgorithm: lf.signingAlg, Scopes: scopes, AuthorizationServer: o.AuthorizationServer,
			Store: store, ServerName: lt.name, Logf: logf}
		if lf.privateKey != "" {
			pem, err := os.ReadFile(lf.privateKey)
			if err != nil {
				return usageErr("--private-key: %v", errors.Unwrap(err))
			}
			opts.PrivateKeyPEM = string(pem)
			inv.addSecrets(strings.TrimSpace(string(pem)))
		}
		tok, err = oauth.ClientCredentials(ctx, opts)
	case lf.idTokenFile != "":
		idt, rerr := os.ReadFile(lf.idTokenFile)
		if rerr != nil {
			return usageErr("--id-token-file: %v", errors.Unwrap(rerr))
		}
		idToken := strings.TrimSpace(string(idt))
		idpSecret := ""
		if lf.idpSecretEnv != "" {
			idpSecret = inv.env.Getenv(lf.idpSecretEnv)
		}
		inv.addSecrets(idToken, idpSecret)
		tok, err = oauth.CrossAppAccess(ctx, oauth.CrossAppOptions{ServerURL: lt.url, Client: client, Challenge: challenge,
			ClientID: o.ClientID, ClientSecret: clientSecret, IDToken: idToken, IdPTokenEndpoint: lf.idpTokenEndpoint,
			IdPClientID: lf.idpClientID, IdPClientSecret: idpSecret, Scopes: scopes, AuthorizationServer: o.AuthorizationServer,
			Store: store, ServerName: lt.name, Logf: logf})
	default:
		b := &browser{inv: inv, noBrowser: lf.noBrowser, timeout: lf.timeout}
		opts := oauth.LoginOptions{ServerURL: lt.url, Client: client, Challenge: challenge, ClientID: o.ClientID, ClientSecret: clientSecret,
			Scopes: scopes, ClientMetadataURL: o.ClientMetadataURL, AuthorizationServer: o.AuthorizationServer,
			OpenBrowser: b.open, Store: store, ServerName: lt.name, Logf: logf, Timeout: lf.timeout}
		if lf.noBrowser {
			opts.ReadPastedURL = b.readPasted
		}
		tok, err = oauth.Login(ctx, opts)
		b.wait()
	}
	if tok != nil {
		inv.addSecrets(tok.AccessToken, tok.RefreshToken)
	}
	if rec, _, _ := store.Load(lt.name); rec != nil && rec.Client != nil {
		inv.addSecrets(rec.Client.ClientSecret)
	}
	if err != nil {
		return loginFailure(lt.name, err)
	}
	if su != nil {
		su.Attempts++
		_ = manager.SaveStepUp(lt.home, lt.name, su)
	}
	granted := tok.Scopes()
	expires := "never"
	if !tok.Expiry.IsZero() {
		expires = tok.Expiry.Local().Format(time.RFC3339)
	}
	if lf.json {
		doc := map[string]any{"schema": 1, "ok": true, "server": lt.name, "scopes": granted, "refreshable": tok.RefreshToken != ""}
		if !tok.Expiry.IsZero() {
			doc["expires"] = tok.Expiry.UTC().Format(time.RFC3339)
		}
		inv.writeJSON(doc)
		return nil
	}
	sc := "no scopes"
	if len(granted) > 0 {
		sc = "scopes " + strings.Join(granted, " ")
	}
	inv.printf("logged in to %s (%s, expires %s)\n", lt.name, clean(sc), expires)
	return nil
}

// loginFailure maps a failed login to exit 4 with what to do next.
func loginFailure(name string, err error) error {
	f := &failure{code: ExitAuth, server: name, phase: manager.PhaseAuth, err: err}
	var rm *oauth.ResourceMismatchError
	var im *oauth.IssuerMismatchError
	switch {
	case errors.As(err, &rm), errors.As(err, &im):
		f.hints = append(f.hints, "the server's OAuth metadata does not match it; this may be an attack: do not log in, tell the server's operator")
	case errors.Is(err, oauth.ErrNoClientID):
		f.hints = append(f.hints, "the authorization server needs a pre-registered client: give --client-id and --client-secret-env VAR, or set oauth.client_id in the definition")
	case errors.Is(err, oauth.ErrPKCEUnsupported):
		f.hints = append(f.hints, "the authorization server does not offer PKCE S256, which MCP requires; tell its operator")
	case errors.Is(err, context.DeadlineExceeded):
		f.hints = append(f.hints, "the browser did not come back in time; try again, or raise --timeout, or use --no-browser")
	}
	return f
}

// loginTarget resolves the NAME or URL of a login.
func (inv *invocation) loginTarget(ctx context.Context, arg string, lf *loginFlags) (*loginTarget, error) {
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		_, home, err := inv.loadConfig()
		if err != nil {
			return nil, err
		}
		if err := transport.CheckURL(arg); err != nil {
			return nil, usageErr("%v", err)
		}
		lt := &loginTarget{name: urlName(arg), url: arg, home: home, header: map[string]string{}, oauth: &config.OAuth{}}
		for _, h := range lf.headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, usageErr("--header wants 'Name: value'")
			}
			lt.header[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		return lt, nil
	}
	t, err := inv.configuredTarget(ctx, arg)
	if err != nil {
		return nil, err
	}
	if t.spec.Transport == "stdio" {
		return nil, usageErr("%s is a stdio server: login is for servers reached over HTTP", arg)
	}
	o := &config.OAuth{}
	if t.server.OAuth != nil {
		c := *t.server.OAuth
		o = &c
	}
	return &loginTarget{name: t.spec.Name, url: t.spec.URL, home: t.home, header: t.spec.Header, oauth: o}, nil
}

// probe connects without a token and lists the tools, to learn whether
// and how the server asks for a login: the WWW-Authenticate values of its
// 401 (or 403), or nil when it answered.
func (inv *invocation) probe(ctx context.Context, lt *loginTarget) ([]string, error) {
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	spec := &manager.Spec{Name: lt.name, Transport: "http", URL: lt.url, Header: lt.header}
	plain := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	stop := inv.spinner("asking " + lt.name + " how to log in")
	conn, err := manager.Dial(pctx, spec, &manager.DialOptions{HTTPClient: plain,
		Protocol: protocol.Options{ClientName: "mcpwire", ClientVersion: Version}})
	if err == nil {
		_, err = conn.ListTools(pctx)
		conn.Close()
	}
	stop()
	if err == nil {
		return nil, nil
	}
	var he *transport.HTTPError
	if errors.As(err, &he) && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden) {
		ch := he.Header.Values("WWW-Authenticate")
		if ch == nil {
			ch = []string{}
		}
		return ch, nil
	}
	return nil, inv.serverFailure(spec, err)
}

// browser opens the authorization URL: $BROWSER, else the platform's
// opener; the URL is always printed on stderr too.
type browser struct {
	inv       *invocation
	noBrowser bool
	timeout   time.Duration
	done      chan struct{}
}

func (b *browser) open(authURL string) error {
	inv := b.inv
	if b.noBrowser {
		inv.eprintf("Open this address in a browser and log in:\n\n  %s\n\n", authURL)
		inv.eprintf("The browser then goes to an address starting with http://127.0.0.1:…/callback (it may show an error page).\nPaste that whole address here and press Enter:\n")
		return nil
	}
	inv.eprintf("Opening the browser to log in. If it does not open, visit:\n\n  %s\n\n", authURL)
	var cmd *exec.Cmd
	if br := inv.env.Getenv("BROWSER"); br != "" {
		cmd = exec.Command(br, authURL)
	} else {
		switch runtime.GOOS {
		case "darwin":
			cmd = exec.Command("open", authURL)
		case "windows":
			cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", authURL)
		default:
			cmd = exec.Command("xdg-open", authURL)
		}
	}
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		inv.eprintf("mcpwire: could not start the browser (%s): open the address above by hand\n", clean(cmd.Path))
	} else {
		b.done = make(chan struct{})
		go func() {
			defer close(b.done)
			_ = cmd.Wait()
		}()
	}
	inv.eprintf("Waiting for the browser to come back (up to %v; Ctrl-C to give up)…\n", b.timeout)
	return nil
}

// readPasted reads the redirected address from stdin.
func (b *browser) readPasted() (string, error) {
	line, err := bufio.NewReader(b.inv.env.Stdin).ReadString('\n')
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
