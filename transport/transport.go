// This file holds what both transports share: their errors. URLs are
// shown through safe.RedactURL and server text through safe.Sanitize.

package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// ErrSessionExpired is returned when an HTTP server no longer knows the
// session (404 on a request that carried Mcp-Session-Id) and a new session
// could not be made transparently.
var ErrSessionExpired = errors.New("transport: session expired")

// maxErrorBody bounds HTTPError.Body.
const maxErrorBody = 4 << 10

// An HTTPError is an HTTP answer with a status that is not a success.
type HTTPError struct {
	Method     string      // the request's method, e.g. "POST" ("" = POST)
	StatusCode int         // e.g. 401
	Header     http.Header // the answer's header (WWW-Authenticate on 401); never printed
	URL        string      // the request's URL, redacted by safe.RedactURL
	Body       string      // the start of the answer's body (at most 4 KiB), sanitized (safe.SanitizeText)
}

// NewHTTPError builds an *HTTPError from an answer, reading at most 4 KiB
// of its body (the caller still drains and closes it).
func NewHTTPError(method, rawURL string, resp *http.Response) *HTTPError {
	e := &HTTPError{Method: method, StatusCode: resp.StatusCode, Header: resp.Header, URL: safe.RedactURL(rawURL)}
	if resp.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e.Body = TruncateBody(string(b))
	}
	return e
}

// TruncateBody sanitizes s (safe.SanitizeText) and cuts it to at most
// 4 KiB on a character boundary, for HTTPError.Body.
func TruncateBody(s string) string {
	s = safe.SanitizeText(s)
	if len(s) > maxErrorBody {
		cut := maxErrorBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

func (e *HTTPError) Error() string {
	m := e.Method
	if m == "" {
		m = http.MethodPost
	}
	status := fmt.Sprintf("%d", e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		status += " " + t
	}
	msg := m + " " + e.URL + ": " + status
	if body := strings.TrimSpace(e.Body); body != "" {
		const n = 200
		if len(body) > n {
			cut := n
			for cut > 0 && !utf8.RuneStart(body[cut]) {
				cut--
			}
			body = body[:cut] + "…"
		}
		msg += ": " + strings.Join(strings.Fields(body), " ")
	}
	return msg
}

// An ExitError says that a stdio server's process is gone: its stdout
// ended and the process exited. It unwraps to io.EOF, so code that treats
// io.EOF as "the peer closed" keeps working.
type ExitError struct {
	Status     string // how it ended, as os.ProcessState says: "exit status 3", "signal: killed"
	Code       int    // the exit code, or -1 when killed by a signal or unknown
	StderrTail string // the last bytes of its stderr, sanitized (safe.SanitizeText)
	// StdoutTail is the start of each of the last lines (at most 8) it
	// printed on stdout that were not JSON-RPC, sanitized, one a line: a
	// server that printed a banner or an error there and exited.
	StdoutTail string
}

func (e *ExitError) Error() string {
	msg := "transport: server exited"
	if e.Status != "" {
		msg += " (" + e.Status + ")"
	}
	return msg
}

// Unwrap returns io.EOF.
func (e *ExitError) Unwrap() error { return io.EOF }

// A RedirectError says that an HTTP server answered with a redirect, which
// mcpwire always refuses.
type RedirectError struct {
	StatusCode int    // e.g. 307
	Location   string // where it pointed, redacted by safe.RedactURL
}

func (e *RedirectError) Error() string {
	if e.Location == "" {
		return "transport: redirect refused"
	}
	return "transport: redirect to " + e.Location + " refused"
}
