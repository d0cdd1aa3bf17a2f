package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// checkURL applies DESIGN.md's URL rules: https, or plain http to
// localhost, 127.0.0.0/8 or [::1] only; no user name or password. Errors
// never quote the URL (its query may hold a token).
func checkURL(raw string) error {
	if raw == "" {
		return errors.New("must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("is not a valid URL")
	}
	if u.User != nil {
		return errors.New("must not hold a user name or password; use headers or oauth")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		if u.Hostname() == "" {
			return errors.New("has no host")
		}
	case "http":
		host := u.Hostname()
		if host == "" {
			return errors.New("has no host")
		}
		if !isLoopback(host) {
			return fmt.Errorf("plain http is allowed only to localhost, 127.0.0.0/8 and [::1] (host %s); use https", host)
		}
	default:
		return errors.New("must start with https:// (or http:// for localhost)")
	}
	return nil
}

func isLoopback(host string) bool {
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

// RedactURL reduces a URL to scheme://host:port/path, for display: no user
// information, query or fragment. A URL that does not parse gives
// "<invalid URL>".
func RedactURL(raw string) string {
	if strings.Contains(raw, "${") {
		// Unexpanded: show it as written, without query or fragment.
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		if i := strings.Index(raw, "://"); i >= 0 {
			rest := raw[i+3:]
			end := strings.IndexByte(rest, '/')
			if end < 0 {
				end = len(rest)
			}
			if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
				raw = raw[:i+3] + rest[at+1:]
			}
		}
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "<invalid URL>"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	return r.String()
}
