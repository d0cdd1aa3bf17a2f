package manager

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// doctorChecks runs Doctor on spec within a minute and returns its
// checks by phase, after checking that every phase of the transport is
// reported once, in order.
func doctorChecks(t *testing.T, spec *Spec, opts *DoctorOptions) map[string]Check {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if opts == nil {
		opts = &DoctorOptions{Dial: DialOptions{Environ: os.Environ()}}
	}
	checks := Doctor(ctx, spec, opts)
	var phases []string
	byPhase := map[string]Check{}
	for _, c := range checks {
		phases = append(phases, c.Phase)
		byPhase[c.Phase] = c
	}
	if want := DoctorPhases(spec.Transport); !slices.Equal(phases, want) {
		t.Fatalf("phases %v, want %v", phases, want)
	}
	return byPhase
}

// wantCheck fails t unless the check of phase has status and its detail
// and hint together contain each of words.
func wantCheck(t *testing.T, checks map[string]Check, phase, status string, words ...string) {
	t.Helper()
	c := checks[phase]
	if c.Status != status {
		t.Errorf("%s: %s (%s; hint %q), want %s", phase, c.Status, c.Detail, c.Hint, status)
		return
	}
	for _, w := range words {
		if !strings.Contains(c.Detail+" "+c.Hint, w) {
			t.Errorf("%s: %q (hint %q) does not say %q", phase, c.Detail, c.Hint, w)
		}
	}
}

// TestDoctorStdio: a healthy stdio server passes every phase; each fault
// fails (or warns in) the phase it belongs to, and the phases after a
// failure are reported as not reached.
func TestDoctorStdio(t *testing.T) {
	proctest.Check(t)
	checks := doctorChecks(t, demoSpec(t), nil)
	for _, p := range DoctorPhases("stdio") {
		wantCheck(t, checks, p, CheckOK)
	}
	wantCheck(t, checks, "version", CheckOK, protocol.ModernVersion, "modern era")
	wantCheck(t, checks, "stdout", CheckOK, "only JSON-RPC")

	t.Run("legacy", func(t *testing.T) {
		checks := doctorChecks(t, demoSpec(t, "--era", "legacy"), nil)
		wantCheck(t, checks, "version", CheckOK, protocol.LatestLegacyVersion, "legacy era")
	})
	t.Run("older legacy revision", func(t *testing.T) {
		checks := doctorChecks(t, demoSpec(t, "--era", "legacy", "--version-answer", "2025-03-26"), nil)
		wantCheck(t, checks, "version", CheckWarn, "2025-03-26", "older than")
	})
	t.Run("unknown revision", func(t *testing.T) {
		checks := doctorChecks(t, demoSpec(t, "--era", "legacy", "--version-answer", "1999-01-01"), nil)
		wantCheck(t, checks, "initialize", CheckOK)
		wantCheck(t, checks, "version", CheckFail, "1999-01-01", "upgrade")
	})
	t.Run("garbage on stdout", func(t *testing.T) {
		checks := doctorChecks(t, demoSpec(t, "--garbage"), nil)
		wantCheck(t, checks, "stdout", CheckWarn, "not JSON-RPC", "stderr")
		wantCheck(t, checks, "tools", CheckOK)
	})
	t.Run("exits at start", func(t *testing.T) {
		checks := doctorChecks(t, demoSpec(t, "--exit-at-start"), nil)
		wantCheck(t, checks, "spawn", CheckOK)
		wantCheck(t, checks, "initialize", CheckFail, "exited before answering initialize", "stderr ends with")
		wantCheck(t, checks, "tools", CheckSkip, "not reached")
	})
	t.Run("no such command", func(t *testing.T) {
		spec := &Spec{Name: "gone", Transport: "stdio", Command: "mcpwire-no-such-command"}
		checks := doctorChecks(t, spec, &DoctorOptions{Dial: DialOptions{Environ: []string{"PATH=" + t.TempDir()}}})
		wantCheck(t, checks, "command", CheckFail, "not on the server's PATH", "install it")
		wantCheck(t, checks, "spawn", CheckSkip, "not reached")
	})
	t.Run("definition refused", func(t *testing.T) {
		def := &Check{Status: CheckFail, Detail: "not approved"}
		checks := doctorChecks(t, demoSpec(t), &DoctorOptions{Definition: def})
		wantCheck(t, checks, "definition", CheckFail, "not approved")
		wantCheck(t, checks, "command", CheckSkip, "not reached")
	})
}

// TestLookPath: a command is found as the child would find it, and each
// reason a path is not a program is said.
func TestLookPath(t *testing.T) {
	if os.PathSeparator != '/' {
		t.Skip("modes and PATH lookups of Unix")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	data := filepath.Join(dir, "data")
	for _, f := range []struct {
		path string
		mode os.FileMode
	}{{prog, 0o755}, {data, 0o644}} {
		if err := os.WriteFile(f.path, []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=/nowhere", "PATH=" + string(filepath.ListSeparator) + dir}
	for _, c := range []struct {
		command, dir, want, err string
	}{
		{"prog", "", prog, ""},
		{"./prog", dir, filepath.Join(dir, "prog"), ""},
		{prog, "", prog, ""},
		{data, "", "", "not executable"},
		{dir, "", "", "a directory"},
		{filepath.Join(dir, "none"), "", "", "no such file"},
		{"none", "", "", "not on the server's PATH"},
	} {
		got, err := lookPath(c.command, env, c.dir)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("lookPath(%q) = %q, %v; want %q", c.command, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("lookPath(%q) = %q, %v; want an error saying %q", c.command, got, err, c.err)
		}
	}
}

// TestDoctorToolList: tool names that must be qualified differently and
// input schemas that are not objects are warnings, each named.
func TestDoctorToolList(t *testing.T) {
	d := &doctor{spec: &Spec{Name: "srv"}, checks: map[string]*Check{}}
	obj := []byte(`{"type":"object"}`)
	d.tools([]*protocol.Tool{{Name: "fine", InputSchema: obj}})
	if c := d.checks["tools"]; c.Status != CheckOK || c.Detail != "1 tools" {
		t.Errorf("good tools: %+v", c)
	}
	d.tools([]*protocol.Tool{{Name: "fine", InputSchema: obj}, {Name: "has space", InputSchema: obj},
		{Name: "list", InputSchema: []byte(`{"type":"array"}`)}, {Name: "none"}})
	c := d.checks["tools"]
	if c.Status != CheckWarn || !strings.HasPrefix(c.Detail, "4 tools; ") || c.Hint == "" {
		t.Fatalf("bad tools: %+v", c)
	}
	for _, w := range []string{`"has space" is offered as mcp__srv__`, `"list" has an input schema`, `"none" has an input schema`} {
		if !strings.Contains(c.Detail, w) {
			t.Errorf("bad tools: %q does not say %s", c.Detail, w)
		}
	}
	if got := lastLines("a\nb\nc\nd\n", 2); got != "c | d" {
		t.Errorf("lastLines = %q", got)
	}
}

// TestDoctorHTTP: an open server over HTTP, one of the modern era only
// (which refuses a POST of initialize), and the answers that stop the
// diagnosis in the http phase.
func TestDoctorHTTP(t *testing.T) {
	checks := doctorChecks(t, httpDemo(t, demo.Options{}), nil)
	wantCheck(t, checks, "dns", CheckOK, "an IP address")
	wantCheck(t, checks, "tls", CheckSkip, "plain HTTP")
	wantCheck(t, checks, "http", CheckOK, "200")
	wantCheck(t, checks, "oauth", CheckSkip, "not required")
	wantCheck(t, checks, "login", CheckSkip, "not needed")
	wantCheck(t, checks, "initialize", CheckOK)
	wantCheck(t, checks, "tools", CheckOK)

	checks = doctorChecks(t, httpDemo(t, demo.Options{Era: demo.EraModern}), nil)
	wantCheck(t, checks, "http", CheckOK, "2026-07-28 era")
	wantCheck(t, checks, "version", CheckOK, "modern era")

	answer := func(status int, header map[string]string) *Spec {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for k, v := range header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(status)
		}))
		t.Cleanup(srv.Close)
		return &Spec{Name: "srv", Transport: "http", URL: srv.URL + "/mcp"}
	}
	checks = doctorChecks(t, answer(http.StatusInternalServerError, nil), nil)
	wantCheck(t, checks, "http", CheckFail, "500 to a POST of initialize", "check its logs")
	wantCheck(t, checks, "initialize", CheckSkip, "not reached")
	checks = doctorChecks(t, answer(http.StatusFound, map[string]string{"Location": "https://elsewhere.example/mcp"}), nil)
	wantCheck(t, checks, "http", CheckFail, "redirects to https://elsewhere.example/mcp", "refuses redirects")
	checks = doctorChecks(t, answer(http.StatusNotFound, nil), nil)
	wantCheck(t, checks, "http", CheckWarn, "404", "HTTP+SSE")

	// A session the POST opened is deleted again.
	deleted := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			deleted <- r.Header.Get("Mcp-Session-Id")
			return
		}
		w.Header().Set("Mcp-Session-Id", "s-1")
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	doctorChecks(t, &Spec{Name: "srv", Transport: "http", URL: srv.URL + "/mcp"}, nil)
	select {
	case id := <-deleted:
		if id != "s-1" {
			t.Errorf("DELETE of session %q, want s-1", id)
		}
	default:
		t.Error("the session the POST opened was not deleted")
	}

	// Nothing listens.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	checks = doctorChecks(t, &Spec{Name: "srv", Transport: "http", URL: "http://" + addr + "/mcp"}, nil)
	wantCheck(t, checks, "http", CheckFail, "POST http://"+addr+"/mcp", "server is up")
	checks = doctorChecks(t, &Spec{Name: "srv", Transport: "http", URL: "http:///mcp"}, nil)
	wantCheck(t, checks, "dns", CheckFail, "does not parse")
}

// TestDoctorLogin: a server behind OAuth has its discovery checked, and
// the login state is read from the Home; once logged in, the session is
// checked with the saved token.
func TestDoctorLogin(t *testing.T) {
	f := fakeauth.New(t)
	spec := &Spec{Name: "srv", Transport: "http", URL: f.URL + "/mcp"}
	checks := doctorChecks(t, spec, &DoctorOptions{LoginCommand: "agent login srv"})
	wantCheck(t, checks, "http", CheckOK, "401")
	wantCheck(t, checks, "oauth", CheckOK, "authorization server "+f.URL)
	wantCheck(t, checks, "login", CheckFail, "not logged in", "agent login srv")
	wantCheck(t, checks, "initialize", CheckSkip, "not reached")

	h := openHome(t, t.TempDir())
	checks = doctorChecks(t, spec, &DoctorOptions{Home: h})
	wantCheck(t, checks, "login", CheckFail, "not authenticated", "mcpwire login srv")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.Login(ctx, LoginOptions{URL: spec.URL, Name: "srv", OpenURL: func(u string) error {
		go fakeauth.Approve(u)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	checks = doctorChecks(t, spec, &DoctorOptions{Home: h})
	wantCheck(t, checks, "login", CheckOK, "authenticated")
	wantCheck(t, checks, "initialize", CheckOK)
	wantCheck(t, checks, "tools", CheckOK)
}

// TestDoctorTLS: the certificate is checked at the clock of
// DoctorOptions.Now: expired, expiring within two weeks, not trusted.
func TestDoctorTLS(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	notAfter := time.Now().Add(365 * 24 * time.Hour).Truncate(time.Second)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	defer srv.Close()
	spec := &Spec{Name: "srv", Transport: "http", URL: srv.URL + "/mcp"}
	at := func(now time.Time) map[string]Check {
		return doctorChecks(t, spec, &DoctorOptions{Now: func() time.Time { return now }})
	}
	checks := at(time.Now())
	wantCheck(t, checks, "tls", CheckFail, "certificate", "SSL_CERT_FILE")
	wantCheck(t, checks, "http", CheckSkip, "not reached")
	checks = at(notAfter.Add(24 * time.Hour))
	wantCheck(t, checks, "tls", CheckFail, "expired on "+notAfter.Format(time.DateOnly), "renew")

	// Nothing speaks TLS there.
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	checks = doctorChecks(t, &Spec{Name: "srv", Transport: "http", URL: strings.Replace(plain.URL, "http:", "https:", 1) + "/mcp"}, nil)
	wantCheck(t, checks, "tls", CheckFail, "", "TLS handshake failed")
}

// TestDoctorOAuthAsLoginReads: the oauth check reads the authorization
// server as login does: the definition's authServerMetadataUrl when it
// has one; and says when the server offers a device login.
func TestDoctorOAuthAsLoginReads(t *testing.T) {
	f := fakeauth.New(t)
	f.Mu.Lock()
	f.Device = true
	f.Mu.Unlock()
	spec := &Spec{Name: "srv", Transport: "http", URL: f.URL + "/mcp"}
	checks := doctorChecks(t, spec, &DoctorOptions{LoginCommand: "agent login srv"})
	wantCheck(t, checks, "oauth", CheckOK, "authorization server "+f.URL, "offers device login")

	home := t.TempDir()
	writeFile(t, home, `{"mcpServers": {"srv": {"url": "`+f.URL+`/mcp", "oauth": {"authServerMetadataUrl": "`+f.URL+`/nosuch-metadata"}}}}`)
	s := loadConfig(t, home).Server("srv")
	spec, err := SpecFromConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	checks = doctorChecks(t, spec, &DoctorOptions{LoginCommand: "agent login srv", Server: s})
	wantCheck(t, checks, "oauth", CheckFail, "/nosuch-metadata", "login will fail")
}
