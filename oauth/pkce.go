package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"slices"
)

// GenerateVerifier returns a PKCE code verifier: 32 random bytes, base64url
// without padding, 43 characters.
//
// RFC 7636 section 4.1: "It is RECOMMENDED that the output of a suitable
// random number generator be used to create a 32-octet sequence. The octet
// sequence is then base64url-encoded to produce a 43-octet URL safe string
// to use as the code verifier."
func GenerateVerifier() string {
	return randomString(32)
}

// S256Challenge returns the S256 code challenge of verifier.
//
// RFC 7636 section 4.2: code_challenge = BASE64URL-ENCODE(SHA256(ASCII(code_verifier))).
func S256Challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// randomString returns n random bytes, base64url encoded. crypto/rand.Read
// never fails (Go 1.24+).
func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// checkPKCE refuses metadata without S256 in code_challenge_methods_supported.
//
// MCP 2025-11-25, Authorization Code Protection: "If
// code_challenge_methods_supported is absent, the authorization server does
// not support PKCE and MCP clients MUST refuse to proceed."
func checkPKCE(md *AuthServerMetadata) error {
	if md.legacyDefaults {
		return nil // 2025-03-26 default endpoints: no metadata to consult
	}
	if !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return ErrPKCEUnsupported
	}
	return nil
}
