package transport

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestErrors(t *testing.T) {
	e := &HTTPError{StatusCode: 500, URL: "http://127.0.0.1:8080/mcp", Body: "  oops:\n\tdatabase down  "}
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
