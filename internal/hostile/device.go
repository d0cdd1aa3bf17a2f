package hostile

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// deviceUserCode is hostile strings joined while they fit the 128 bytes
// a client takes of a user_code.
func deviceUserCode() string {
	out := ""
	for _, s := range Strings {
		if len(out)+1+len(s.S) <= 128 {
			out += s.S + " "
		}
	}
	return strings.TrimSuffix(out, " ")
}

// device serves, under /device, an MCP server behind an authorization
// server that offers the device authorization grant and fills it with
// hostile strings: the user code, the verification addresses (hostile
// text percent-encoded in one, raw bidi and zero-width characters in
// the other), then an access_denied whose description is every string.
// It reports whether the request was its.
func (h Server) device(w http.ResponseWriter, r *http.Request) bool {
	origin := "http://" + r.Host
	send := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
	}
	switch r.URL.Path {
	case "/device/mcp":
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+origin+`/device/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	case "/device/prm":
		send(http.StatusOK, map[string]any{"resource": origin + "/device/mcp", "authorization_servers": []string{origin + "/device"}})
	case "/.well-known/oauth-authorization-server/device":
		send(http.StatusOK, map[string]any{"issuer": origin + "/device", "authorization_endpoint": origin + "/device/authorize",
			"token_endpoint": origin + "/device/token", "registration_endpoint": origin + "/device/register",
			"device_authorization_endpoint": origin + "/device/da", "code_challenge_methods_supported": []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"}})
	case "/device/register":
		send(http.StatusCreated, map[string]any{"client_id": "client " + Strings[0].S, "token_endpoint_auth_method": "none"})
	case "/device/da":
		send(http.StatusOK, map[string]any{"device_code": "dc", "user_code": deviceUserCode(),
			"verification_uri":          origin + "/device/verify?q=" + url.QueryEscape(deviceUserCode()),
			"verification_uri_complete": origin + "/device/verify?c=\u202eevil\u202c\u200bzw&u=" + url.QueryEscape(Strings[7].S),
			"expires_in":                60, "interval": 1})
	case "/device/token":
		send(http.StatusBadRequest, map[string]any{"error": "access_denied", "error_description": All()})
	default:
		return false
	}
	return true
}
