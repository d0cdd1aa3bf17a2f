// Package oauth is mcpwire's OAuth 2.1 client for MCP servers reached over
// HTTP, on the standard library alone.
//
// # Discovery
//
// [ParseChallenges] reads WWW-Authenticate headers. [DiscoverResource]
// finds the protected resource metadata (RFC 9728) and checks that its
// resource covers the server; [DiscoverAuthServer] fetches authorization
// server metadata (RFC 8414, OpenID Connect Discovery) and checks its
// issuer. Servers without resource metadata get the 2025-03-26 behaviour:
// metadata at the server's origin, else /authorize, /token and /register.
//
// # Logging in
//
// [Login] runs the authorization code flow with PKCE S256, a random state,
// the RFC 8707 resource parameter and RFC 9207 iss checks, on a loopback
// redirect (127.0.0.1, any free port, /callback) or with a pasted redirect
// address. The client is pre-registered, a Client ID Metadata Document URL,
// or registered dynamically (RFC 7591), in that order. With
// [LoginOptions].Device, Login uses the device authorization grant (RFC
// 8628) instead when the authorization server offers it: the person is
// shown a code and an address to open on any device, and the token
// endpoint is polled at the server's interval (5 s more after each
// slow_down, twice as long after a failing answer) until they approve or
// deny, the code expires, the timeout passes or ctx ends.
// [ClientCredentials] serves machines (client secret or private-key JWT),
// [CrossAppAccess] enterprise-managed authorization (RFC 8693 then RFC 7523).
//
// # Using tokens
//
// Tokens live in a [Store]: one 0600 JSON file per server, written
// atomically. [Transport] adds the bearer token only to requests for the
// resource it was issued for, refreshes it through a [StoreSource], and
// turns a 401 into a [*LoginRequiredError] and a 403 insufficient_scope into
// a [*StepUpError]; [WithStepUp] and [Attempts] bound re-authorizations.
//
// # Secrets
//
// No token, code, verifier, state, client secret or assertion appears in an
// error or a log line; URLs in errors are scheme://host:port/path only.
// Every request goes through the caller's *http.Client with redirects
// refused and bodies bounded.
package oauth
