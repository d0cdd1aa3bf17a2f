package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// stateKey is a server's key for the requestState it gives out.
type stateKey struct{ key [32]byte }

func newStateKey() *stateKey {
	k := &stateKey{}
	rand.Read(k.key[:])
	return k
}

// SealState protects a handler's requestState (modern era, multi
// round-trip requests) with an HMAC under the server's random key, so
// that a client cannot forge or alter it: OpenState gives it back.
func (s *Server) SealState(state string) string {
	mac := hmac.New(sha256.New, s.state.key[:])
	mac.Write([]byte(state))
	return base64.RawURLEncoding.EncodeToString([]byte(state)) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// OpenState returns the state SealState sealed; false for anything else.
func (s *Server) OpenState(sealed string) (string, bool) {
	body, sum, ok := strings.Cut(sealed, ".")
	if !ok {
		return "", false
	}
	state, err := base64.RawURLEncoding.Strict().DecodeString(body)
	if err != nil {
		return "", false
	}
	got, err := base64.RawURLEncoding.Strict().DecodeString(sum)
	if err != nil {
		return "", false
	}
	mac := hmac.New(sha256.New, s.state.key[:])
	mac.Write(state)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return "", false
	}
	return string(state), true
}
