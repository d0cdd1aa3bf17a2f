package safe

import "testing"

func TestCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "COOKIE": true, "x-api-key": true, "Api-Key": true,
		"GITHUB_TOKEN": true, "x-auth-token": true, "client_secret": true, "DB_PASSWORD": true, "passwd": true,
		"OPENAI_APIKEY": true, "SSH_PRIVATE_KEY": true, "GOOGLE_APPLICATION_CREDENTIALS": true,
		"PATH": false, "HOME": false, "X-Trace": false, "Accept": false, "MODE": false, "KEY": false, "": false,
	} {
		if got := CredentialName(name); got != want {
			t.Errorf("CredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestMaskCredential(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer proj-token-xyz": "Bear…(21)",
		"abcd":                  "…(4)",
		"abcde":                 "abcd…(5)",
		"":                      "…(0)",
		"üñï©ødé":               "üñï©…(7)",
		"\x1b[2Jxyz":            `\x1b[2J…(7)`,
	} {
		if got := MaskCredential(in); got != want {
			t.Errorf("MaskCredential(%q) = %q, want %q", in, got, want)
		}
	}
}
