//go:build linkhttp

package main

// With -tags linkhttp the bare client links what any MCP client that also
// speaks streamable HTTP links (net/http with TLS, encoding/json), without
// using it: the start-up cost of those packages (their init, a binary of
// that size) is then in the floor too (BenchmarkStartupBareHTTP).

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
)

var (
	_ = (*http.Client).Do
	_ = http.NewRequestWithContext
	_ = tls.Client
	_ = json.Marshal
	_ = json.Unmarshal
)
