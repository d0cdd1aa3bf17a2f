package server

import (
	"net"
	"strings"
	"testing"
)

// TestLoopbackHost: loopback names and addresses, with or without a
// port, are allowed; another name (a rebound one) is not.
func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.1": true, "[::1]:9": true, "::1": true, "localhost:3000": true, "LOCALHOST": true, "127.5.6.7:1": true,
		"rebind.example:8080": false, "rebind.example": false, "10.0.0.1:80": false, "": false, "localhost.example:1": false, "[::2]:1": false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// FuzzLoopbackHost: no panic, and a Host it allows names localhost or a
// loopback address.
func FuzzLoopbackHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8080", "[::1]:1", "localhost", "evil.example:80", "[", "]:", "::1]:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, hostport string) {
		if !LoopbackHost(hostport) {
			return
		}
		host := hostport
		if h, _, err := net.SplitHostPort(hostport); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		if ip := net.ParseIP(host); !strings.EqualFold(host, "localhost") && (ip == nil || !ip.IsLoopback()) {
			t.Fatalf("LoopbackHost(%q) allowed %q", hostport, host)
		}
	})
}
