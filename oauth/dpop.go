package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// DPoP (RFC 9449; the MCP DPoP extension, SEP-1932): when an authorization
// server names ES256 in dpop_signing_alg_values_supported, mcpwire makes a
// P-256 key for the login, proves possession of it on the token request
// (a DPoP header), and gets an access token bound to it (token_type
// "DPoP"). Every request that presents the token carries "Authorization:
// DPoP <token>" and a fresh proof over the method, the URL and the token's
// hash. A server that wants a nonce in the proofs answers use_dpop_nonce
// with a DPoP-Nonce header: the request is sent again, once, with it, and
// the nonce is kept for the next proofs. The private key is a secret: it is
// kept in the 0600 token file, beside the token it is bound to.

// dpopAlg is the one DPoP signing algorithm mcpwire uses.
const dpopAlg = "ES256"

// withDPoP adds a new DPoP key to auth when the session's authorization
// server binds tokens to keys.
func (s *session) withDPoP(auth clientAuth, log *logger) (clientAuth, error) {
	if !dpopSupported(s.md) {
		return auth, nil
	}
	key, err := newDPoPKey()
	if err != nil {
		return auth, err
	}
	log.printf("binding the token to a new DPoP key (RFC 9449)")
	auth.dpop = key
	return auth, nil
}

// dpopKey is a DPoP key pair.
type dpopKey struct {
	key *ecdsa.PrivateKey
	jwk map[string]any // the public key, as the proof's header carries it
}

// dpopSupported reports whether the authorization server binds tokens to
// ES256 DPoP keys.
func dpopSupported(md *AuthServerMetadata) bool {
	return md != nil && slices.Contains(md.DPoPSigningAlgValuesSupported, dpopAlg)
}

// newDPoPKey makes a P-256 key.
func newDPoPKey() (*dpopKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making a DPoP key: %v", err)
	}
	return wrapDPoPKey(k)
}

func wrapDPoPKey(k *ecdsa.PrivateKey) (*dpopKey, error) {
	pub, err := k.PublicKey.ECDH()
	if err != nil {
		return nil, fmt.Errorf("DPoP key: %v", err)
	}
	b := pub.Bytes() // 0x04 || X || Y
	if len(b) != 65 {
		return nil, errors.New("DPoP key: not an uncompressed P-256 point")
	}
	enc := base64.RawURLEncoding.EncodeToString
	return &dpopKey{key: k, jwk: map[string]any{"kty": "EC", "crv": "P-256", "x": enc(b[1:33]), "y": enc(b[33:])}}, nil
}

// parseDPoPKey reads a key saved by pem.
func parseDPoPKey(text string) (*dpopKey, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return nil, errors.New("DPoP key: not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("DPoP key: %v", err)
	}
	ek, ok := k.(*ecdsa.PrivateKey)
	if !ok || ek.Curve != elliptic.P256() {
		return nil, errors.New("DPoP key: not a P-256 key")
	}
	return wrapDPoPKey(ek)
}

// pem returns the private key as PKCS#8 PEM, for the token file.
func (k *dpopKey) pem() string {
	der, err := x509.MarshalPKCS8PrivateKey(k.key)
	if err != nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// proof returns a DPoP proof JWT (RFC 9449 section 4.2) for a request of
// method to target; accessToken, when set, adds its hash (ath), nonce the
// server's nonce.
func (k *dpopKey) proof(method, target, accessToken, nonce string, now time.Time) (string, error) {
	htu, err := dpopHTU(target)
	if err != nil {
		return "", err
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", fmt.Errorf("DPoP proof: %v", err)
	}
	claims := map[string]any{
		"jti": base64.RawURLEncoding.EncodeToString(jti),
		"htm": method,
		"htu": htu,
		"iat": now.Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	return SignJWT(k.key, dpopAlg, map[string]any{"typ": "dpop+jwt", "alg": dpopAlg, "jwk": k.jwk}, claims)
}

// dpopHTU is the htu claim of a request to target: the URL without query
// and fragment (RFC 9449 section 4.2).
func dpopHTU(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("DPoP proof: %v", err)
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	return u.String(), nil
}

// IsDPoP reports whether t is bound to a DPoP key (it is presented with
// the DPoP scheme and a proof).
func (t *Token) IsDPoP() bool {
	return t != nil && t.DPoPKey != "" && strings.EqualFold(t.TokenType, "DPoP")
}

// dpopNonceAsked returns the nonce a use_dpop_nonce answer asks for, or "".
func dpopNonceAsked(resp *http.Response) string {
	nonce := resp.Header.Get("DPoP-Nonce")
	if nonce == "" {
		return ""
	}
	for _, c := range mustChallenges(resp.Header.Values("WWW-Authenticate")) {
		if c.IsDPoP() && c.ErrorCode() == "use_dpop_nonce" {
			return nonce
		}
	}
	return ""
}

// mustChallenges parses challenges, keeping what parses.
func mustChallenges(values []string) []Challenge {
	chs, _ := ParseChallenges(values)
	return chs
}
