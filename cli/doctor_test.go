package cli_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// doctorCheck is one phase of doctor --json.
type doctorCheck struct {
	Phase  string `json:"phase"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Hint   string `json:"hint"`
}

// doctorJSON runs doctor --json on target and returns its phases by name.
func doctorJSON(t *testing.T, r *runner, target string) (map[string]doctorCheck, *result) {
	t.Helper()
	res := r.run(t, "doctor", "--json", target)
	var out struct {
		Schema  int  `json:"schema"`
		OK      bool `json:"ok"`
		Servers []struct {
			Checks []doctorCheck `json:"checks"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.Schema != 1 || len(out.Servers) != 1 {
		t.Fatalf("doctor --json (%v):\n%s", err, res)
	}
	m := map[string]doctorCheck{}
	for _, c := range out.Servers[0].Checks {
		m[c.Phase] = c
	}
	return m, res
}

// TestDoctorExpiredCertificate points doctor at an HTTPS server whose
// self-signed certificate expired: the tls phase fails and says so.
func TestDoctorExpiredCertificate(t *testing.T) {
	proctest.Check(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-48 * time.Hour),
		NotAfter:     time.Now().Add(-24 * time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	h := demo.NewHTTPHandler(demo.Options{})
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(func() { srv.Close(); h.Close() })

	r := newRunner(t)
	checks, res := doctorJSON(t, r, srv.URL+"/mcp")
	if res.code != 1 {
		t.Errorf("exit %d, want 1:\n%s", res.code, res)
	}
	tlsc := checks["tls"]
	if tlsc.Status != "fail" || !containsAny(tlsc.Detail+tlsc.Hint, "expired", "expir") {
		t.Errorf("tls phase %+v, want a failure naming the expiry:\n%s", tlsc, res)
	}
	if checks["initialize"].Status == "ok" {
		t.Errorf("initialize passed over an expired certificate:\n%s", res)
	}
	// People's output names the phase too.
	res = r.run(t, "doctor", srv.URL+"/mcp").want(t, 1)
	if !containsAny(res.stdout, "✗ tls") {
		t.Errorf("no failed tls phase:\n%s", res)
	}
}

// TestDoctorNeedsOAuth points doctor at the demo over HTTP requiring a
// bearer token: the http phase sees the 401, oauth and login say what is
// wrong, and nothing is initialized.
func TestDoctorNeedsOAuth(t *testing.T) {
	proctest.Check(t)
	h := demo.NewHTTPHandler(demo.Options{RequireAuth: "doctor-test-token"})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); h.Close() })

	r := newRunner(t)
	checks, res := doctorJSON(t, r, srv.URL+"/mcp")
	if res.code != 4 {
		t.Errorf("doctor exited %d for a server that needs a login, want 4:\n%s", res.code, res)
	}
	if c := checks["http"]; !containsAny(c.Detail, "401") {
		t.Errorf("http phase %+v, want the 401:\n%s", c, res)
	}
	if c := checks["oauth"]; c.Status == "skip" || c.Status == "" {
		t.Errorf("oauth phase %+v, want a verdict:\n%s", c, res)
	}
	if c := checks["login"]; c.Status != "fail" || c.Hint == "" {
		t.Errorf("login phase %+v, want a failure with a hint:\n%s", c, res)
	}
	if c := checks["initialize"]; c.Status == "ok" {
		t.Errorf("initialize passed without a token:\n%s", res)
	}
	// With the token as a header, every phase passes.
	res = r.run(t, "doctor", "--header", "Authorization: Bearer doctor-test-token", srv.URL+"/mcp").want(t, 0)
	if containsAny(res.stdout, "doctor-test-token") {
		t.Errorf("the token was shown:\n%s", res)
	}
}

// TestDoctorRefusedConnection points doctor at a port nothing listens on.
func TestDoctorRefusedConnection(t *testing.T) {
	proctest.Check(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	r := newRunner(t)
	checks, res := doctorJSON(t, r, url)
	if res.code != 1 || checks["http"].Status != "fail" || checks["initialize"].Status != "skip" {
		t.Errorf("want the http phase to fail and initialize not reached:\n%s", res)
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
