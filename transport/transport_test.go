package transport

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
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
		{"mailto:someone@example.com", "mailto:<opaque>"},
		{"/just/a/path", "/just/a/path"},
		{"example.com/mcp?key=1", "<invalid URL>"},
		{"http://a b.com/", "<invalid URL>"},
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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := RedactURL(in)
		if StripControl(out) != out {
			t.Fatalf("RedactURL(%q) = %q holds control characters", in, out)
		}
		if strings.ContainsAny(out, "?#") {
			t.Fatalf("RedactURL(%q) = %q holds a query or fragment", in, out)
		}
		if u, err := url.Parse(out); err == nil && u.User != nil {
			t.Fatalf("RedactURL(%q) = %q holds user information", in, out)
		}
		u, err := url.Parse(in)
		if err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok && len(p) >= 4 && strings.Contains(out, p) && !strings.Contains(u.Host+u.Path+u.Scheme, p) {
				t.Fatalf("RedactURL(%q) = %q shows the password", in, out)
			}
		}
	})
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = allowed; else a part of the error
	}{
		{"https://example.com/mcp", ""},
		{"HTTPS://example.com", ""},
		{"http://localhost:8080/mcp", ""},
		{"http://LOCALHOST/mcp", ""},
		{"http://127.0.0.1:1/x", ""},
		{"http://127.255.1.2/x", ""},
		{"http://[::1]:9/x", ""},
		{"http://example.com/mcp", "plain http is allowed only to"},
		{"http://128.0.0.1/", "plain http is allowed only to"},
		{"http://[::2]/", "plain http is allowed only to"},
		{"http://localhost.example.com/", "plain http is allowed only to"},
		{"https://user:secret@example.com/", "user information"},
		{"ftp://example.com/", `scheme "ftp"`},
		{"https:///nohost", "no host"},
		{"example.com", "no host"},
		{"http://[::1", "not a valid URL"},
	}
	for _, tt := range tests {
		err := CheckURL(tt.in)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v, want nil", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckURL(%q) = %v, want an error with %q", tt.in, err, tt.want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("CheckURL(%q) shows the password: %v", tt.in, err)
		}
	}
}

func TestStripControl(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"keep\nnew lines\tand tabs", "keep\nnew lines\tand tabs"},
		{"\x1b[31mred\x1b[0m", "[31mred[0m"},
		{"bell\a back\b cr\r del\x7f", "bell back cr del"},
		{"c1 \u009b csi \u0085 nel", "c1  csi  nel"},
		{"bad \xff\xfe utf8", "bad  utf8"},
		{"ünïcödé ✓ \ufffd", "ünïcödé ✓ \ufffd"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := StripControl(tt.in); got != tt.want {
			t.Errorf("StripControl(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	e := &HTTPError{StatusCode: 500, URL: RedactURL("http://127.0.0.1:8080/mcp?k=v"), Body: "  oops:\n\tdatabase down  "}
	if got, want := e.Error(), "POST http://127.0.0.1:8080/mcp: 500 Internal Server Error: oops: database down"; got != want {
		t.Errorf("HTTPError: %q, want %q", got, want)
	}
	e = &HTTPError{Method: "DELETE", StatusCode: 599, URL: "https://h/p"}
	if got, want := e.Error(), "DELETE https://h/p: 599"; got != want {
		t.Errorf("HTTPError: %q, want %q", got, want)
	}
	long := strings.Repeat("é", 3000)
	if b := TruncateBody(long + "\x1b"); len(b) > maxErrorBody || !utf8.ValidString(b) {
		t.Errorf("TruncateBody: %d bytes, valid %v", len(b), utf8.ValidString(b))
	}
	resp := &http.Response{StatusCode: 401, Header: http.Header{"Www-Authenticate": {"Bearer"}}, Body: io.NopCloser(strings.NewReader(long))}
	if he := NewHTTPError("POST", "https://u:p@h/x?y", resp); he.URL != "https://h/x" || len(he.Body) > maxErrorBody || he.Header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("NewHTTPError: %+v", he)
	}
	ee := &ExitError{Status: "exit status 3", Code: 3, StderrTail: "boom"}
	if !errors.Is(ee, io.EOF) || ee.Error() != "transport: server exited (exit status 3)" {
		t.Errorf("ExitError: %q", ee.Error())
	}
	re := &RedirectError{StatusCode: 307, Location: "https://h/next"}
	if re.Error() != "transport: redirect to https://h/next refused" {
		t.Errorf("RedirectError: %q", re.Error())
	}
}
