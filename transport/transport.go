// Package transport gives a [jsonrpc.Stream] to an MCP server: [Stdio] runs
// the server as a child process in its own process group and speaks
// newline-delimited JSON-RPC over its stdin and stdout; HTTP speaks the
// streamable HTTP transport.
//
// This file holds what both transports share: their errors, and helpers
// that keep secrets and terminal control characters out of anything shown.
package transport

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
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
	URL        string      // the request's URL, redacted by RedactURL
	Body       string      // the start of the answer's body (at most 4 KiB), control characters stripped
}

// NewHTTPError builds an *HTTPError from an answer, reading at most 4 KiB
// of its body (the caller still drains and closes it).
func NewHTTPError(method, rawURL string, resp *http.Response) *HTTPError {
	e := &HTTPError{Method: method, StatusCode: resp.StatusCode, Header: resp.Header, URL: RedactURL(rawURL)}
	if resp.Body != nil {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e.Body = TruncateBody(string(b))
	}
	return e
}

// TruncateBody strips control characters from s and cuts it to at most
// 4 KiB on a character boundary, for HTTPError.Body.
func TruncateBody(s string) string {
	if len(s) > maxErrorBody {
		cut := maxErrorBody
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return StripControl(s)
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
	StderrTail string // the last bytes of its stderr, control characters stripped
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
	Location   string // where it pointed, redacted by RedactURL
}

func (e *RedirectError) Error() string {
	if e.Location == "" {
		return "transport: redirect refused"
	}
	return "transport: redirect to " + e.Location + " refused"
}

// RedactURL returns raw as scheme://host:port/path: no user information,
// query or fragment. A URL that does not parse becomes "<invalid URL>".
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" && u.Host == "" {
		if err == nil && u.Opaque == "" && !strings.ContainsAny(raw, "?#@") {
			// a bare path: nothing secret in it
			return StripControl(u.EscapedPath())
		}
		return "<invalid URL>"
	}
	if u.Opaque != "" {
		return StripControl(u.Scheme) + ":<opaque>"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return StripControl(r.String())
}

// CheckURL says whether raw may be used as a server URL: https, or plain
// http only to localhost, 127.0.0.0/8 or [::1]; and no user:password in it.
// The error shows the URL redacted.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("checking URL: not a valid URL")
	}
	shown := RedactURL(raw)
	if u.User != nil {
		return fmt.Errorf("checking URL %s: user information (user:password@) is not allowed in a URL", shown)
	}
	if u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("checking URL %s: no host", shown)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("checking URL %s: plain http is allowed only to localhost, 127.0.0.0/8 and [::1]; use https", shown)
	default:
		return fmt.Errorf("checking URL %s: scheme %q is not http or https", shown, StripControl(u.Scheme))
	}
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	if ip == nil {
		return false
	}
	if v4 := ip.To4(); v4 != nil {
		return v4[0] == 127
	}
	return ip.Equal(net.IPv6loopback)
}

// StripControl drops terminal control characters from s: C0 controls
// except "\n" and "\t", DEL, and C1 controls (which include the 8-bit
// CSI). Invalid UTF-8 bytes are dropped too, since a terminal may read
// them as C1 controls.
func StripControl(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isControl(r) && !(r == utf8.RuneError && n == 1) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
}
