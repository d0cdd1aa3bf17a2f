package safe

import (
	"net/netip"
	"net/url"
	"strings"
)

// A URLError is a URL that a rule refuses. URL is the URL as [RedactURL]
// shows it; Reason says what is wrong and what to do, without the URL.
type URLError struct {
	URL    string
	Reason string
	// PlainHTTP is set when the only thing wrong is plain http to a host
	// that is not loopback (an opt-in can allow that for a server URL).
	PlainHTTP bool
}

func (e *URLError) Error() string {
	if e.URL == "" {
		return "URL: " + e.Reason
	}
	return "URL " + e.URL + ": " + e.Reason
}

// CheckServerURL applies the rules for an MCP server's URL: https, or
// plain http only to a loopback host ([IsLoopbackHost]) unless allowHTTP
// (the definition's "allowHttp", the command line's --allow-http) allows
// it to any host; never a user name or password in it. A refusal is a
// *URLError.
func CheckServerURL(raw string, allowHTTP bool) error {
	u, uerr := parseAbsolute(raw)
	if uerr != nil {
		return uerr
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if allowHTTP || IsLoopbackHost(u.Hostname()) {
			return nil
		}
		return &URLError{URL: RedactURL(raw), PlainHTTP: true,
			Reason: "plain http is allowed only to localhost, 127.0.0.0/8 and [::1] (host " + Sanitize(u.Hostname()) + "); use https"}
	}
	return &URLError{URL: RedactURL(raw), Reason: "the scheme must be https (or http to localhost), not " + strings.ToLower(Sanitize(u.Scheme))}
}

// CheckEndpointURL applies the rules for an OAuth endpoint (metadata,
// registration, authorization, token, revocation, JWKS, a client metadata
// document) that the MCP server at serverURL leads to: https; plain http
// only when both the endpoint and the MCP server are on a loopback host.
// No opt-in changes this: no token, code or secret crosses plain http to
// another host. Also refused: a user name or password, a fragment.
func CheckEndpointURL(endpoint, serverURL string) error {
	u, uerr := parseAbsolute(endpoint)
	if uerr != nil {
		return uerr
	}
	if u.Fragment != "" || strings.Contains(endpoint, "#") {
		return &URLError{URL: RedactURL(endpoint), Reason: "an OAuth endpoint must not have a fragment"}
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if !IsLoopbackHost(u.Hostname()) {
			return &URLError{URL: RedactURL(endpoint), Reason: "an OAuth endpoint must use https (plain http only on loopback)"}
		}
		s, err := url.Parse(serverURL)
		if err != nil || !IsLoopbackHost(s.Hostname()) {
			return &URLError{URL: RedactURL(endpoint), Reason: "an OAuth endpoint on plain http is allowed only for an MCP server on loopback"}
		}
		return nil
	}
	return &URLError{URL: RedactURL(endpoint), Reason: "an OAuth endpoint must use https, not " + strings.ToLower(Sanitize(u.Scheme))}
}

// parseAbsolute parses an absolute URL with a host and no user
// information.
func parseAbsolute(raw string) (*url.URL, *URLError) {
	if raw == "" {
		return nil, &URLError{Reason: "empty"}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &URLError{URL: RedactURL(raw), Reason: "not a valid URL"}
	}
	if u.User != nil {
		return nil, &URLError{URL: RedactURL(raw), Reason: "a user name or password (user:password@) is not allowed in a URL; use headers or oauth"}
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return nil, &URLError{URL: RedactURL(raw), Reason: "no host; give an absolute https:// URL"}
	}
	return u, nil
}

// IsLoopbackHost reports whether host (without port or brackets) is
// "localhost" (any case, no trailing dot), an address of 127.0.0.0/8 in
// dotted decimal without leading zeros, ::1, or ::ffff:127.x.y.z. Other
// spellings (127.1, 2130706433, 0177.0.0.1, 0.0.0.0, localhost.) are not.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	if err != nil || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if a.Is4() {
		return a.As4()[0] == 127
	}
	return a == netip.IPv6Loopback()
}

// RedactURL reduces a URL to what may be shown: scheme://host:port/path,
// without user information, query or fragment, sanitized. A URL with
// unexpanded ${VAR} references is shown as written, without those parts.
// A bare path stays a path; an opaque URL shows its scheme only; a URL
// that does not parse is "<invalid URL>".
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	if strings.Contains(raw, "${") {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		// The authority starts after "scheme://", or after the "//" of
		// a reference without a scheme ("//user@host/path").
		start := -1
		if i := strings.Index(raw, "://"); i >= 0 {
			start = i + 3
		} else if strings.HasPrefix(raw, "//") {
			start = 2
		}
		if start >= 0 {
			rest := raw[start:]
			end := strings.IndexByte(rest, '/')
			if end < 0 {
				end = len(rest)
			}
			if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
				raw = raw[:start] + rest[at+1:]
			}
		}
		return Sanitize(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "<invalid URL>"
	}
	if u.Scheme == "" && u.Host == "" {
		if u.Opaque == "" && u.User == nil && !strings.ContainsAny(raw, "?#@") {
			return Sanitize(u.EscapedPath()) // a bare path
		}
		return "<invalid URL>"
	}
	if u.Opaque != "" {
		return Sanitize(u.Scheme) + ":<opaque>"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return Sanitize(r.String())
}
