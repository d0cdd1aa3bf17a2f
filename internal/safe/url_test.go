package safe

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/mcp", "https://example.com/mcp"},
		{"https://user:pass@example.com:8443/mcp?token=abc#frag", "https://example.com:8443/mcp"},
		{"http://127.0.0.1:8080/mcp?api_key=SECRET", "http://127.0.0.1:8080/mcp"},
		{"http://[::1]:3000/a%20b", "http://[::1]:3000/a%20b"},
		{"https://tok@example.com", "https://example.com"},
		{"https://example.com/p/../q;x=1", "https://example.com/p/../q;x=1"},
		{"https://example.com/\x1b[2J", "<invalid URL>"},
		{"https://example.com/%1b%5d52", "https://example.com/%1b%5d52"},
		{"mailto:someone@example.com", "mailto:<opaque>"},
		{"/just/a/path", "/just/a/path"},
		{"example.com/mcp?key=1", "<invalid URL>"},
		{"http://a b.com/", "<invalid URL>"},
		{"https://${HOST}/mcp?key=${KEY}", "https://${HOST}/mcp"},
		{"https://${U}@h.example/x", "https://h.example/x"},
		{"https://h.example/p@x?y", "https://h.example/p@x"},
		{"//${U}@h.example/x?${K}", "//h.example/x"},
		{"%zz", "<invalid URL>"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{
		"https://user:pass@example.com:8443/mcp?token=abc#frag", "http://[::1]:3000/a%20b", "mailto:a@b",
		"//user@host/path", "http://h/%zz", "https://h/p?q#f", "a:b@c", "http://h/\x7f\u0085", "A:/@0",
		"https://${A}:${B}@h/x?${C}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := RedactURL(in)
		if Sanitize(out) != out {
			t.Fatalf("RedactURL(%q) = %q is not sanitized", in, out)
		}
		if strings.ContainsAny(out, "?#") {
			t.Fatalf("RedactURL(%q) = %q holds a query or fragment", in, out)
		}
		if u, err := url.Parse(out); err == nil && u.User != nil {
			t.Fatalf("RedactURL(%q) = %q holds user information", in, out)
		}
		u, err := url.Parse(in)
		if err == nil && u.User != nil {
			// The password may also be a part of the rest, as given or
			// as escaped ("//:0000@\x80000" has the host "%80000").
			anon := *u
			anon.User = nil
			if p, ok := u.User.Password(); ok && len(p) >= 4 && strings.Contains(out, p) &&
				!strings.Contains(u.Host+u.Path+u.Scheme, p) && !strings.Contains(RedactURL(anon.String()), p) {
				t.Fatalf("RedactURL(%q) = %q shows the password", in, out)
			}
		}
	})
}

func TestCheckServerURL(t *testing.T) {
	tests := []struct {
		in    string
		allow bool
		want  string // "" = allowed; else a part of the error
	}{
		{"https://example.com/mcp", false, ""},
		{"HTTPS://example.com", false, ""},
		{"http://localhost:8080/mcp", false, ""},
		{"http://LOCALHOST/mcp", false, ""},
		{"http://127.0.0.1:1/x", false, ""},
		{"http://127.255.1.2/x", false, ""},
		{"http://[::1]:9/x", false, ""},
		{"http://[::ffff:127.0.0.1]:9/x", false, ""},
		{"http://example.com/mcp", false, "plain http is allowed only to"},
		{"http://example.com/mcp", true, ""},
		{"http://10.0.0.7:8080/mcp", true, ""},
		{"http://128.0.0.1/", false, "plain http is allowed only to"},
		{"http://[::2]/", false, "plain http is allowed only to"},
		{"http://localhost.example.com/", false, "plain http is allowed only to"},
		{"http://localhost./", false, "plain http is allowed only to"},
		{"http://127.1/", false, "plain http is allowed only to"},
		{"http://2130706433/", false, "plain http is allowed only to"},
		{"http://0177.0.0.1/", false, "plain http is allowed only to"},
		{"http://0x7f.0.0.1/", false, "plain http is allowed only to"},
		{"http://0.0.0.0:80/", false, "plain http is allowed only to"},
		{"http://[fe80::1%25lo]/", false, "plain http is allowed only to"},
		{"http://evil.example#@127.0.0.1/", false, "plain http is allowed only to"},
		{"http://127.0.0.1@evil.example/", false, "user name or password"},
		{"https://user:secret@example.com/", false, "user name or password"},
		{"https://user:secret@example.com/", true, "user name or password"},
		{"ftp://example.com/", false, "not ftp"},
		{"ftp://example.com/", true, "not ftp"},
		{"https:///nohost", false, "no host"},
		{"example.com", false, "no host"},
		{"http://[::1", false, "not a valid URL"},
		{"", false, "empty"},
	}
	for _, tt := range tests {
		err := CheckServerURL(tt.in, tt.allow)
		checkRefusal(t, fmt.Sprintf("CheckServerURL(%q, %v)", tt.in, tt.allow), err, tt.want)
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckServerURL(%q) shows the password: %v", tt.in, err)
		}
	}
	var ue *URLError
	if err := CheckServerURL("http://example.com/", false); !errors.As(err, &ue) || !ue.PlainHTTP {
		t.Errorf("plain http: %#v", err)
	}
}

func TestCheckEndpointURL(t *testing.T) {
	tests := []struct {
		endpoint, server string
		want             string
	}{
		{"https://as.example/token", "https://mcp.example/mcp", ""},
		{"https://as.example/token", "http://127.0.0.1:9/mcp", ""},
		{"http://127.0.0.1:9/token", "http://127.0.0.1:8/mcp", ""},
		{"http://localhost:9/token", "https://[::1]:8/mcp", ""},
		{"http://127.0.0.1:9/token", "https://mcp.example/mcp", "only for an MCP server on loopback"},
		{"http://169.254.169.254/latest", "http://127.0.0.1:8/mcp", "must use https"},
		{"http://as.example/token", "http://as.example/mcp", "must use https"},
		{"http://as.example/token", "", "must use https"},
		{"https://u:p@as.example/token", "https://mcp.example/", "user name or password"},
		{"https://as.example/token#x", "https://mcp.example/", "fragment"},
		{"javascript:alert(1)", "https://mcp.example/", "no host"},
		{"file:///etc/passwd", "https://mcp.example/", "no host"},
		{"ftp://as.example/x", "https://mcp.example/", "must use https"},
	}
	for _, tt := range tests {
		err := CheckEndpointURL(tt.endpoint, tt.server)
		checkRefusal(t, fmt.Sprintf("CheckEndpointURL(%q, %q)", tt.endpoint, tt.server), err, tt.want)
	}
}

// checkRefusal fails unless err is nil when want is "", or holds want.
func checkRefusal(t *testing.T, call string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s = %v, want nil", call, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s = %v, want an error with %q", call, err, want)
	}
}
