package cli_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
)

// clientCA makes a CA and a client certificate it signed, written as PEM
// files in dir; it returns the pool of the CA (for the server) and the
// paths of the client's certificate and key.
func clientCA(t *testing.T, dir string) (*x509.CertPool, string, string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test client CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "mcpwire test client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certPath, keyPath := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pool, certPath, keyPath
}

// tlsDemo serves the demo over HTTPS on loopback; with clients, it asks
// for a client certificate those CAs signed (mTLS). It returns the
// server and the path of its certificate as PEM (a CA to trust).
func tlsDemo(t *testing.T, dir string, clients *x509.CertPool) (*httptest.Server, string) {
	t.Helper()
	h := demo.NewHTTPHandler(demo.Options{})
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{}
	if clients != nil {
		srv.TLS.ClientAuth, srv.TLS.ClientCAs = tls.RequireAndVerifyClientCert, clients
	}
	srv.StartTLS()
	t.Cleanup(func() { srv.Close(); h.Close() })
	caPath := filepath.Join(dir, "server-ca.pem")
	os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	return srv, caPath
}

func tlsEntry(t *testing.T, url string, tlsMembers map[string]string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"url": url, "tls": tlsMembers})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTLSClientCertificate: a server that requires a client certificate
// is reached with the definition's tls.cert and tls.key, and its own
// certificate trusted through tls.ca; without the certificate, or
// without the CA, the start fails; doctor says which CAs it used.
func TestTLSClientCertificate(t *testing.T) {
	r := newRunner(t)
	pool, cert, key := clientCA(t, r.dir)
	srv, ca := tlsDemo(t, r.dir, pool)
	r.run(t, "add-json", "mtls", tlsEntry(t, srv.URL+"/mcp", map[string]string{"ca": ca, "cert": cert, "key": key})).want(t, 0)
	res := r.run(t, "test", "mtls").want(t, 0)
	if !strings.Contains(res.stdout, "✓ mtls") {
		t.Errorf("test through mTLS:\n%s", res)
	}
	res = r.run(t, "doctor", "mtls", "--json").want(t, 0)
	if !strings.Contains(res.stdout, "tls.ca "+ca) || !strings.Contains(res.stdout, "client certificate tls.cert "+cert) || !strings.Contains(res.stdout, "proxy: none (direct)") {
		t.Errorf("doctor does not say which CA and certificate:\n%s", res)
	}
	r.run(t, "add-json", "nocert", tlsEntry(t, srv.URL+"/mcp", map[string]string{"ca": ca})).want(t, 0)
	if res := r.run(t, "test", "nocert"); res.code == 0 || !strings.Contains(res.stderr, "certificate") {
		t.Errorf("without a client certificate: want a failure naming the certificate:\n%s", res)
	}
	r.run(t, "add-json", "noca", tlsEntry(t, srv.URL+"/mcp", map[string]string{"cert": cert, "key": key})).want(t, 0)
	if res := r.run(t, "test", "noca"); res.code == 0 || !strings.Contains(res.stderr, "certificate") {
		t.Errorf("without the CA: want a failure naming the certificate:\n%s", res)
	}
	// A key without its certificate is a wrong definition.
	if res := r.run(t, "add-json", "half", tlsEntry(t, srv.URL+"/mcp", map[string]string{"key": key})); res.code != 3 || !strings.Contains(res.stderr, "cert and key go together") {
		t.Errorf("tls.key alone:\n%s", res)
	}
}

// TestSSLCertFile: SSL_CERT_FILE makes a server's certificate trusted
// for a URL target (Go reads it for the system's roots on Linux).
func TestSSLCertFile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SSL_CERT_FILE is read for the system's roots on Linux (and other unix but macOS)")
	}
	r := newRunner(t)
	srv, ca := tlsDemo(t, r.dir, nil)
	if res := r.run(t, "test", srv.URL+"/mcp"); res.code == 0 {
		t.Fatalf("an untrusted certificate was accepted:\n%s", res)
	}
	r.env = append(r.env, "SSL_CERT_FILE="+ca)
	r.run(t, "test", srv.URL+"/mcp").want(t, 0)
}

// connectProxy is an HTTP proxy on loopback that takes CONNECT for
// host:port and dials the loopback port instead (the name is not
// resolved: no network is used); it counts the tunnels it made.
func connectProxy(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var tunnels atomic.Int64
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		_, port, _ := net.SplitHostPort(req.Host)
		up, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		tunnels.Add(1)
		io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		wg.Add(2)
		go func() { defer wg.Done(); io.Copy(up, conn); up.Close() }()
		go func() { defer wg.Done(); io.Copy(conn, up); conn.Close() }()
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close(); wg.Wait() })
	return srv, &tunnels
}

// TestHTTPSProxy: HTTPS_PROXY carries the MCP requests (through a
// CONNECT tunnel of a proxy on loopback to a server named example.com,
// which the test certificate covers), and doctor names the proxy.
func TestHTTPSProxy(t *testing.T) {
	r := newRunner(t)
	srv, ca := tlsDemo(t, r.dir, nil)
	proxy, tunnels := connectProxy(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "https://"))
	url := "https://example.com:" + port + "/mcp"
	r.run(t, "add-json", "viaproxy", tlsEntry(t, url, map[string]string{"ca": ca})).want(t, 0)
	r.env = append(r.env, "HTTPS_PROXY="+proxy.URL)
	r.run(t, "test", "viaproxy").want(t, 0)
	if tunnels.Load() == 0 {
		t.Errorf("no request went through the proxy")
	}
	res := r.run(t, "doctor", "viaproxy", "--json").want(t, 0)
	if !strings.Contains(res.stdout, "proxy: "+proxy.URL) {
		t.Errorf("doctor does not name the proxy %s:\n%s", proxy.URL, res)
	}
	// NO_PROXY: the proxy is not used (and example.com is not reached).
	before := tunnels.Load()
	r.env = append(r.env, "NO_PROXY=example.com")
	if res := r.run(t, "test", "viaproxy", "--startup-timeout", "5s"); res.code == 0 || tunnels.Load() != before {
		t.Errorf("NO_PROXY=example.com: exit %d, tunnels %d → %d", res.code, before, tunnels.Load())
	}
}
