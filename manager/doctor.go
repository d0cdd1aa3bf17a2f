// This file holds Doctor, a service of one server at a time beside the
// Manager (which never calls it): the diagnosis of `mcpwire doctor`,
// phase by phase (definition, command or DNS and TLS, spawn or HTTP,
// OAuth discovery and the login state in a Home, initialize, version,
// tools), each with a verdict and what to do. It changes nothing.

package manager

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// Verdicts of a doctor check.
const (
	CheckOK   = "ok"
	CheckWarn = "warn"
	CheckFail = "fail"
	CheckSkip = "skip"
)

// A Check is one phase of a diagnosis, with a verdict and what to do.
type Check struct {
	Phase  string `json:"phase"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Took is how long the phase took to check (since the previous
	// check was set), for a JUnit report's times.
	Took time.Duration `json:"-"`
}

// DoctorPhases returns the phases a diagnosis reports, in order, for a
// transport ("stdio" or "http"; "sse" is reported as "http"). Phases
// that do not apply are reported as skipped, so the list is stable.
func DoctorPhases(transportName string) []string {
	if transportName == "stdio" {
		return []string{"definition", "command", "spawn", "stdout", "initialize", "version", "tools"}
	}
	return []string{"definition", "dns", "tls", "http", "oauth", "login", "initialize", "version", "tools"}
}

// DoctorOptions are what a diagnosis needs besides the Spec.
type DoctorOptions struct {
	Dial DialOptions
	// Definition is the verdict on the definition itself (valid, approved,
	// variables set), made by the caller; nil means "ok".
	Definition *Check
	// Home, when set, is where the login state is read from; an HTTP
	// server is then checked with its saved token (never shown), unless
	// Dial.HTTPClient is set.
	Home *Home
	// LoginCommand is the command a person runs to log in to this
	// server, for hints (default "mcpwire login NAME").
	LoginCommand string
	// Now is the clock for certificate expiry (default time.Now).
	Now func() time.Time
	// Server is the definition checked, when it is a configured one: its
	// "tls" (a CA, a client certificate) is used, and the tls check says
	// which proxy and CAs were used.
	Server *config.Server
}

// Doctor diagnoses the server of spec phase by phase. It never changes
// anything (no login, no file written). ctx bounds it.
func Doctor(ctx context.Context, spec *Spec, opts *DoctorOptions) []Check {
	if opts == nil {
		opts = &DoctorOptions{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LoginCommand == "" {
		opts.LoginCommand = "mcpwire login " + spec.Name
	}
	tc, tlsErr := TLSConfig(opts.Server)
	if opts.Home != nil && opts.Dial.HTTPClient == nil && spec.Transport != "stdio" {
		o := *opts
		o.Dial.HTTPClient = opts.Home.HTTPClientTLS(spec.Name, spec.URL, tc)
		opts = &o
	}
	d := &doctor{spec: spec, opts: opts, checks: map[string]*Check{}, tlsConf: tc, tlsErr: tlsErr, last: time.Now()}
	def := &Check{Phase: "definition", Status: CheckOK}
	if opts.Definition != nil {
		def = opts.Definition
		def.Phase = "definition"
	}
	d.set(def)
	if def.Status != CheckFail {
		if spec.Transport == "stdio" {
			d.stdio(ctx)
		} else {
			d.http(ctx)
		}
	}
	var out []Check
	for _, p := range DoctorPhases(spec.Transport) {
		if c, ok := d.checks[p]; ok {
			out = append(out, *c)
		} else {
			out = append(out, Check{Phase: p, Status: CheckSkip, Detail: "not reached"})
		}
	}
	return out
}

type doctor struct {
	spec   *Spec
	opts   *DoctorOptions
	checks map[string]*Check
	last   time.Time // when the previous check was set
	// tlsConf is the definition's "tls" (nil: the defaults); tlsErr why
	// its files could not be read.
	tlsConf *tls.Config
	tlsErr  error
}

// httpClient is the plain client of the checks: the environment's proxy,
// the definition's TLS settings, no redirects.
func (d *doctor) httpClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = d.tlsConf
	return &http.Client{Transport: base, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (d *doctor) set(c *Check) {
	now := time.Now()
	if c.Took == 0 && !d.last.IsZero() {
		c.Took = now.Sub(d.last)
	}
	d.last = now
	d.checks[c.Phase] = c
}

func (d *doctor) ok(phase, detail string) {
	d.set(&Check{Phase: phase, Status: CheckOK, Detail: detail})
}

func (d *doctor) fail(phase, detail, hint string) {
	d.set(&Check{Phase: phase, Status: CheckFail, Detail: detail, Hint: hint})
}

func (d *doctor) stdio(ctx context.Context) {
	path, err := lookPath(d.spec.Command, transport.ChildEnv(d.opts.Dial.Environ, d.spec.Env), d.spec.Dir)
	if err != nil {
		d.fail("command", err.Error(), "install it, or give its full path in the definition")
		return
	}
	d.ok("command", path)
	d.session(ctx)
}

// lookPath finds command as the child would: on the child's PATH, or
// relative to its working directory; it must be an executable file.
func lookPath(command string, env []string, dir string) (string, error) {
	if strings.ContainsAny(command, `/\`) {
		p := command
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("%s: %v", command, err)
		}
		return p, nil
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, command); executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on the server's PATH (%s)", command, pathVar)
}

// executable says why path is not an executable file, or nil.
func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return errors.New("no such file")
	case fi.IsDir():
		return errors.New("a directory, not a program")
	case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
		return errors.New("not executable (chmod +x?)")
	}
	return nil
}

// session spawns or connects, initializes and lists tools.
func (d *doctor) session(ctx context.Context) {
	conn, err := Dial(ctx, d.spec, &d.opts.Dial)
	if err != nil {
		var se *ServerError
		phase, detail, stderr := PhaseInitialize, err.Error(), ""
		if errors.As(err, &se) {
			phase, detail, stderr = se.Phase, se.Reason(), se.Stderr
		}
		hint := ""
		if stderr != "" {
			hint = "the server's stderr ends with: " + lastLines(stderr, 3)
		}
		if h := UnpassedHint(d.opts.Dial.Environ, d.spec, stderr+"\n"+detail); h != "" && hint != "" {
			hint = h + "; " + hint
		} else if h != "" {
			hint = h
		}
		if len(d.spec.Sandbox) > 0 && SandboxDenied(stderr+"\n"+detail) {
			hint = strings.TrimSuffix(SandboxHint(d.spec)+"; "+hint, "; ")
		}
		if errors.As(err, new(*SandboxError)) {
			d.fail("spawn", detail, "this machine enforces: "+SandboxSupport())
			return
		}
		switch phase {
		case PhaseSpawn:
			d.fail("spawn", detail, "run the command by hand to see why it does not start")
		case PhaseConnect:
			d.fail("http", detail, "check that the server is up and the URL is right")
		case PhaseAuth:
			d.fail("login", detail, "log in: "+d.opts.LoginCommand)
		default:
			if d.spec.Transport == "stdio" {
				d.ok("spawn", "started")
				if errors.As(err, new(*transport.ExitError)) {
					d.fail("initialize", "the server exited before answering initialize: "+detail, hint)
					return
				}
			}
			var ve *protocol.VersionError
			if errors.As(err, &ve) {
				d.ok("initialize", "answered")
				d.fail("version", ve.Error(), "upgrade the server or mcpwire")
				return
			}
			if hint == "" {
				hint = "the server did not complete the handshake; check its logs"
			}
			d.fail("initialize", detail, hint)
		}
		return
	}
	defer conn.Close()
	if d.spec.Transport == "stdio" {
		d.set(&Check{Phase: "spawn", Status: CheckOK, Detail: fmt.Sprintf("pid %d, %d ms", conn.Pid(), conn.Spawn.Milliseconds()), Took: conn.Spawn})
	}
	init := conn.Init()
	d.set(&Check{Phase: "initialize", Status: CheckOK, Detail: fmt.Sprintf("%s %s in %d ms", init.ServerInfo.Name, init.ServerInfo.Version, conn.Initialize.Milliseconds()), Took: conn.Initialize})
	switch v := conn.ProtocolVersion(); {
	case conn.Era() == protocol.EraModern:
		d.ok("version", v+" (modern era)")
	case v == protocol.LatestLegacyVersion:
		d.ok("version", v+" (legacy era)")
	default:
		d.set(&Check{Phase: "version", Status: CheckWarn, Detail: v + " (legacy era, older than " + protocol.LatestLegacyVersion + ")", Hint: "supported, but newer features are off"})
	}
	if init.Capabilities.Tools == nil {
		d.set(&Check{Phase: "tools", Status: CheckSkip, Detail: "the server offers no tools"})
	} else if tools, err := conn.ListTools(ctx); err != nil {
		d.fail("tools", err.Error(), "the server fails to list its tools")
	} else {
		d.tools(tools)
	}
	if d.spec.Transport == "stdio" {
		if n := conn.BadLines(); n > 0 {
			d.set(&Check{Phase: "stdout", Status: CheckWarn, Detail: fmt.Sprintf("%d line(s) on stdout were not JSON-RPC", n),
				Hint: "stdout is for protocol messages only; the server should log to stderr"})
		} else {
			d.ok("stdout", "only JSON-RPC")
		}
	}
}

// tools checks the tool list: names that do not fit the qualification
// rules, schemas that are not objects.
func (d *doctor) tools(tools []*protocol.Tool) {
	var problems []string
	for _, t := range tools {
		if q := qualify(d.spec.Name, t.Name); q != "mcp__"+d.spec.Name+"__"+t.Name {
			problems = append(problems, fmt.Sprintf("%q is offered as %s", t.Name, q))
		}
		var schema struct {
			Type json.RawMessage `json:"type"`
		}
		if json.Unmarshal(t.InputSchema, &schema) != nil || string(schema.Type) != `"object"` {
			problems = append(problems, fmt.Sprintf("%q has an input schema whose root is not an object", t.Name))
		}
	}
	detail := fmt.Sprintf("%d tools", len(tools))
	if len(problems) == 0 {
		d.ok("tools", detail)
		return
	}
	d.set(&Check{Phase: "tools", Status: CheckWarn, Detail: detail + "; " + strings.Join(problems, "; "),
		Hint: "names outside [A-Za-z0-9_-] or too long get a hash suffix; non-object schemas are normalized"})
}

func (d *doctor) http(ctx context.Context) {
	u, err := url.Parse(d.spec.URL)
	if err != nil || u.Host == "" {
		d.fail("dns", "the URL does not parse", "fix the definition's url")
		return
	}
	host := u.Hostname()
	if proxy, _ := NetworkReport(d.opts.Server, d.spec.URL); proxy != "none (direct)" {
		d.ok("dns", "resolved by the proxy "+proxy)
	} else if ip := net.ParseIP(host); ip != nil {
		d.ok("dns", "an IP address: "+host)
	} else {
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil {
			d.fail("dns", err.Error(), "check the host name and your DNS")
			return
		}
		d.ok("dns", strings.Join(addrs, ", "))
	}
	if u.Scheme == "https" {
		if !d.tls(ctx, u) {
			return
		}
	} else {
		d.set(&Check{Phase: "tls", Status: CheckSkip, Detail: "plain HTTP (allowed to loopback only)"})
	}
	status, challenges, modern, err := d.post(ctx)
	if err != nil {
		d.fail("http", err.Error(), "check that the server is up and the URL is right")
		return
	}
	switch {
	case status == http.StatusUnauthorized:
		d.ok("http", "401: the server wants a login")
		d.oauth(ctx, challenges)
	case status >= 200 && status < 300:
		d.ok("http", fmt.Sprintf("%d", status))
		d.set(&Check{Phase: "oauth", Status: CheckSkip, Detail: "not required"})
		d.set(&Check{Phase: "login", Status: CheckSkip, Detail: "not needed"})
	case status == 400 && modern:
		d.ok("http", "400 to a POST of initialize, with a modern error: a server of the 2026-07-28 era")
		d.set(&Check{Phase: "oauth", Status: CheckSkip, Detail: "not required"})
		d.set(&Check{Phase: "login", Status: CheckSkip, Detail: "not needed"})
	case status == 400 || status == 404 || status == 405:
		d.set(&Check{Phase: "http", Status: CheckWarn, Detail: fmt.Sprintf("%d to a POST of initialize", status), Hint: "an old HTTP+SSE server? the client falls back to it"})
	default:
		d.fail("http", fmt.Sprintf("%d to a POST of initialize", status), "the server refused the request; check its logs")
		return
	}
	if c := d.checks["login"]; c != nil && c.Status == CheckFail {
		return
	}
	d.session(ctx)
}

// tls checks the certificate: valid for the host, and when it expires.
func (d *doctor) tls(ctx context.Context, u *url.URL) bool {
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "443")
	}
	if d.tlsErr != nil {
		d.fail("tls", d.tlsErr.Error(), "fix the definition's tls files")
		return false
	}
	proxy, ca := NetworkReport(d.opts.Server, d.spec.URL)
	network := "; proxy: " + proxy + "; CAs: " + ca
	conf := &tls.Config{ServerName: u.Hostname(), InsecureSkipVerify: true}
	roots := (*x509.CertPool)(nil)
	if d.tlsConf != nil {
		conf.Certificates, roots = d.tlsConf.Certificates, d.tlsConf.RootCAs
	}
	if proxy != "none (direct)" {
		// The certificate is checked by the request through the proxy
		// (the http check); a direct dial would not reach the server.
		d.ok("tls", "through the proxy"+network)
		return true
	}
	dialer := &tls.Dialer{Config: conf}
	raw, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		d.fail("tls", err.Error()+network, "the TLS handshake failed; check the port, that the server speaks HTTPS, and (mTLS) the definition's tls.cert and tls.key")
		return false
	}
	conn := raw.(*tls.Conn)
	certs := conn.ConnectionState().PeerCertificates
	conn.Close()
	if len(certs) == 0 {
		d.fail("tls", "no certificate", "")
		return false
	}
	leaf := certs[0]
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, verr := leaf.Verify(x509.VerifyOptions{DNSName: u.Hostname(), Intermediates: inter, Roots: roots, CurrentTime: d.opts.Now()})
	left := leaf.NotAfter.Sub(d.opts.Now())
	switch {
	case left < 0:
		d.fail("tls", fmt.Sprintf("the certificate expired on %s", leaf.NotAfter.Format(time.DateOnly)), "the server must renew its certificate")
		return false
	case verr != nil:
		d.fail("tls", verr.Error()+network, "the certificate is not trusted for this host; the definition's tls.ca (or SSL_CERT_FILE) can add a CA")
		return false
	case left < 14*24*time.Hour:
		d.set(&Check{Phase: "tls", Status: CheckWarn, Detail: fmt.Sprintf("valid, but expires on %s", leaf.NotAfter.Format(time.DateOnly)) + network})
	default:
		d.ok("tls", fmt.Sprintf("valid until %s", leaf.NotAfter.Format(time.DateOnly))+network)
	}
	return true
}

// post sends a POST of initialize, without a token, and returns the status
// and any challenges, and whether a 400 carried an error only a server of
// the modern era sends (which refuses initialize). It starts no session
// that lasts: a session id that comes back is deleted.
func (d *doctor) post(ctx context.Context) (int, []oauth.Challenge, bool, error) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpwire-doctor","version":"1"}}}`, protocol.LatestLegacyVersion)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.spec.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		return 0, nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range d.spec.Header {
		req.Header.Set(k, v)
	}
	client := d.httpClient()
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, nil, false, fmt.Errorf("POST %s: %v", safe.RedactURL(d.spec.URL), err)
	}
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return 0, nil, false, fmt.Errorf("the server redirects to %s; mcpwire refuses redirects", safe.RedactURL(resp.Header.Get("Location")))
	}
	var e struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	modern := json.Unmarshal(answer, &e) == nil && e.Error != nil && e.Error.Code >= protocol.CodeUnsupportedProtocolVersion && e.Error.Code <= protocol.CodeHeaderMismatch
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		del, err := http.NewRequestWithContext(ctx, http.MethodDelete, d.spec.URL, nil)
		if err == nil {
			del.Header.Set("Mcp-Session-Id", sid)
			if r, err := client.Do(del); err == nil {
				r.Body.Close()
			}
		}
	}
	challenges, _ := oauth.ParseChallenges(resp.Header.Values("WWW-Authenticate"))
	return resp.StatusCode, challenges, modern, nil
}

// oauth checks discovery and the login state.
func (d *doctor) oauth(ctx context.Context, challenges []oauth.Challenge) {
	client := d.httpClient()
	// The endpoint rules (https; loopback http only for a loopback server)
	// follow the server this doctor checks.
	ctx = oauth.WithServerURL(ctx, d.spec.URL)
	var o config.OAuth
	if d.opts.Server != nil && d.opts.Server.OAuth != nil {
		o = *d.opts.Server.OAuth
	}
	prm, err := oauth.DiscoverResource(ctx, client, d.spec.URL, challenges)
	switch {
	case err == nil && (len(prm.AuthorizationServers) > 0 || o.AuthServerMetadataURL != "" || o.AuthorizationServer != ""):
		d.authServer(ctx, client, prm, &o)
	case err == nil:
		d.set(&Check{Phase: "oauth", Status: CheckWarn, Detail: "the resource metadata names no authorization server"})
	case errors.Is(err, oauth.ErrNoResourceMetadata):
		d.set(&Check{Phase: "oauth", Status: CheckWarn, Detail: "no protected resource metadata (a 2025-03-26 server?); login uses the older discovery"})
	default:
		d.fail("oauth", err.Error(), "discovery fails; login will fail too")
	}
	if d.opts.Home == nil {
		d.fail("login", "not logged in", "log in: "+d.opts.LoginCommand)
		return
	}
	st := d.opts.Home.Auth(d.spec.Name)
	if !st.State.Usable() {
		d.fail("login", st.State.String(), "log in: "+d.opts.LoginCommand)
		return
	}
	c := &Check{Phase: "login", Status: CheckOK, Detail: st.State.String()}
	if st.Warning != "" {
		c.Status, c.Hint = CheckWarn, st.Warning
	}
	d.set(c)
}

// authServer checks the authorization server's metadata as login reads
// it: the definition's authServerMetadataUrl, else its
// authorization_server, else the resource metadata's first; and says
// whether a device login is offered.
func (d *doctor) authServer(ctx context.Context, client *http.Client, prm *oauth.ProtectedResourceMetadata, o *config.OAuth) {
	var as *oauth.AuthServerMetadata
	var err error
	detail := ""
	switch {
	case o.AuthServerMetadataURL != "":
		as, err = oauth.FetchAuthServerMetadata(ctx, client, o.AuthServerMetadataURL)
		detail = " (metadata from " + safe.RedactURL(o.AuthServerMetadataURL) + ", oauth.authServerMetadataUrl)"
	case o.AuthorizationServer != "":
		as, err = oauth.DiscoverAuthServer(ctx, client, o.AuthorizationServer)
	default:
		as, err = oauth.DiscoverAuthServer(ctx, client, prm.AuthorizationServers[0])
	}
	if err != nil {
		d.fail("oauth", "authorization server metadata: "+err.Error(), "the authorization server's metadata cannot be read; login will fail")
		return
	}
	if as.DeviceAuthorizationEndpoint != "" {
		detail += "; offers device login (login --device)"
	}
	d.ok("oauth", "authorization server "+safe.RedactURL(as.Issuer)+detail)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
