package manager

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// recordForms are the forms of a secret a recording must not hold: as
// it is, JSON-escaped (as a message carries it), URL-escaped.
func recordForms(secret string) []string {
	q, _ := json.Marshal(secret)
	return []string{secret, string(q[1 : len(q)-1]), url.QueryEscape(secret), url.PathEscape(secret)}
}

// FuzzRecordRedaction: a message that carries a configured secret (in a
// param, a result, an error) is recorded without it, in any form; every
// line of the recording is still one JSON document.
func FuzzRecordRedaction(f *testing.F) {
	f.Add("s3cret-token-value", "before s3cret-token-value after")
	f.Add("pa\"ss\\word", `{"x":"pa\"ss\\word"}`)
	f.Add("tok en+/=", "a%20tok%20en%2B%2F%3D b")
	f.Add("ünïcødé-secret", "xünïcødé-secretx")
	f.Add(`"ss\\`, `"ss"0`)
	f.Fuzz(func(t *testing.T, secret, payload string) {
		if utf8.RuneCountInString(secret) < safe.MinSecretLen || !utf8.ValidString(secret) || strings.TrimSpace(secret) != secret {
			return
		}
		// A secret that is part of the format itself (a key, an escape
		// like \u0000, a time's digits) cannot be told apart from it.
		skeleton := `{"t":0.123456789,"recording":1,"server":"s","dir":"send","recv","msg":{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"text":"","url":"https://x.example/?t="}},"result":{"echo":""},"error":{"code":-1,"message":"bad "}}`
		for _, form := range recordForms(secret) {
			if strings.Contains(skeleton, form) || strings.Trim(form, "0123456789.") == "" || strings.Contains(payload, `\u`) || strings.ContainsFunc(secret+payload, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				return
			}
		}
		out := recordWith(secret, payload, true)
		// The control holds no secret: what a form matches there comes
		// from the payload's own escaping (`"a"0` escapes to `\"a\"0`,
		// which holds the form `"a\`), not from the secret.
		clean := payload
		for _, form := range recordForms(secret) {
			clean = strings.ReplaceAll(clean, form, "***")
		}
		control := string(recordWith("***", clean, false))
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			n++
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("line %d is not JSON: %s", n, sc.Bytes())
			}
		}
		if n != 4 {
			t.Fatalf("%d lines, want 4:\n%s", n, out)
		}
		for _, form := range recordForms(secret) {
			if strings.Contains(string(out), form) && !strings.Contains(control, form) {
				t.Fatalf("the secret %q shows as %q in the recording:\n%s", secret, form, out)
			}
		}
	})
}

// recordWith records one call, its answer and an error that carry
// secret and payload; register says whether the secret is configured.
func recordWith(secret, payload string, register bool) []byte {
	rec := NewRecorder(safe.NewRedactor())
	if register {
		rec.addSecrets(&Spec{Name: "s", Env: map[string]string{"TOKEN": secret}})
	}
	params, _ := json.Marshal(map[string]string{"text": payload + secret, "url": "https://x.example/?t=" + url.QueryEscape(secret)})
	msg := func(v any) []byte { b, _ := json.Marshal(v); return b }
	rec.message("s", "send", msg(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": json.RawMessage(params)}))
	rec.message("s", "recv", msg(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]string{"echo": secret + payload}}))
	rec.message("s", "recv", msg(map[string]any{"jsonrpc": "2.0", "id": 2, "error": map[string]any{"code": -1, "message": "bad " + secret}}))
	return rec.Bytes()
}

// TestMaskChallenges: a recorded WWW-Authenticate keeps its schemes and
// the parameters a client acts on; every other value, and a token68, is
// masked; a value that does not parse is masked whole.
func TestMaskChallenges(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read", error="invalid_token", error_description="token abc-secret expired"`,
			`Bearer error="invalid_token", error_description="***", resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read"`},
		{`Basic realm="internal-realm"`, `Basic realm="***"`},
		{`Negotiate c2VjcmV0LXRva2Vu`, `Negotiate ***`},
		{`Bearer "unterminated`, `***`},
	} {
		if got := maskChallenges([]string{c.in}); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
