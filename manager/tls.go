package manager

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
)

// TLSConfig returns the TLS settings of a definition's "tls": the
// system's roots (SSL_CERT_FILE and SSL_CERT_DIR change them) with its CA
// bundle added, and its client certificate. nil, nil when the definition
// has none. The files are read through the bounded reader; an error names
// the member and the file.
func TLSConfig(s *config.Server) (*tls.Config, error) {
	if s == nil || s.TLS == nil {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca := s.Path(s.TLS.CA); ca != "" {
		pem, err := safe.ReadFile(ca, safe.KindConfig)
		if err != nil {
			return nil, fmt.Errorf("tls.ca: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls.ca: %s holds no PEM certificate", ca)
		}
		tc.RootCAs = pool
	}
	if s.TLS.Cert != "" {
		certFile, keyFile := s.Path(s.TLS.Cert), s.Path(s.TLS.Key)
		certPEM, err := safe.ReadFile(certFile, safe.KindConfig)
		if err != nil {
			return nil, fmt.Errorf("tls.cert: %v", err)
		}
		keyPEM, err := safe.ReadFile(keyFile, safe.KindCredential)
		if err != nil {
			return nil, fmt.Errorf("tls.key: %v", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("tls.cert and tls.key (%s, %s): %v", certFile, keyFile, err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// ErrorClient is a client that answers every request with err: the
// client of a definition whose TLS files could not be read, so that the
// failure comes at the first request, in the right phase.
func ErrorClient(err error) *http.Client { return &http.Client{Transport: failingTransport{err}} }

// failingTransport answers every request with err.
type failingTransport struct{ err error }

func (f failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// NetworkReport says, for a person, which proxy a request to rawURL goes
// through (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) and which CAs it trusts:
// what doctor shows.
func NetworkReport(s *config.Server, rawURL string) (proxy, ca string) {
	proxy = "none (direct)"
	if u, err := url.Parse(rawURL); err == nil {
		req := &http.Request{URL: u, Header: http.Header{}}
		if p, err := http.ProxyFromEnvironment(req); err == nil && p != nil {
			proxy = safe.RedactURL(p.String())
		}
	}
	ca = "the system's"
	for _, v := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		if f := os.Getenv(v); f != "" {
			ca += " (" + v + "=" + f + ")"
		}
	}
	if s != nil && s.TLS != nil && s.TLS.CA != "" {
		ca += " and tls.ca " + s.Path(s.TLS.CA)
	}
	if s != nil && s.TLS != nil && s.TLS.Cert != "" {
		ca += "; client certificate tls.cert " + s.Path(s.TLS.Cert)
	}
	return proxy, ca
}
