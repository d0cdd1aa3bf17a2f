package safe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// credentialNames are header names that hold a credential by convention,
// compared without regard to case.
var credentialNames = []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"}

// credentialParts are the words whose presence in an env or header name
// (without regard to case, '-' read as '_') says that its value is a
// credential.
var credentialParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "CREDENTIAL"}

// CredentialName reports whether an env variable or header of that name
// holds a credential by convention: Authorization, Proxy-Authorization,
// Cookie, X-Api-Key, and every name that contains TOKEN, SECRET,
// PASSWORD, PASSWD, API_KEY, APIKEY, PRIVATE_KEY or CREDENTIAL (case
// aside; "Api-Key" reads as API_KEY). A review shows the literal values
// of such names masked ([MaskCredential]); the rule depends on the name
// only, which the file's author chose, so it masks nothing else.
func CredentialName(name string) bool {
	for _, n := range credentialNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	up := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	for _, p := range credentialParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	return false
}

// MaskCredential is how a review shows a literal credential: its first
// four characters, "…", and its length in characters in parentheses:
// "Bearer proj-token-xyz" shows as "Bear…(21)". A value of at most four
// characters shows only "…" and its length ("…(3)"). The characters
// shown are [Sanitize]d.
func MaskCredential(v string) string {
	n := utf8.RuneCountInString(v)
	shown := ""
	if n > 4 {
		i, k := 0, 0
		for k < 4 {
			_, size := utf8.DecodeRuneInString(v[i:])
			i += size
			k++
		}
		shown = Sanitize(v[:i])
	}
	return shown + "…(" + strconv.Itoa(n) + ")"
}
