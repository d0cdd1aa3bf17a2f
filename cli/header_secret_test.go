package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeaderFlagCredentialMasked: the credential of a --header given
// with its scheme word ("Authorization: Bearer <t>") is a secret by
// itself, as in a definition's headers: a server that echoes <t> shows
// *** in the output and in the recording, not <t>.
func TestHeaderFlagCredentialMasked(t *testing.T) {
	r := newRunner(t)
	const tok = "ghp_Zx9HeaderFlagSecret123456"
	for _, h := range []string{"Authorization: Bearer " + tok, "X-Api-Key: " + tok} {
		res := r.run(t, "call", "--demo=http", "--header", h, "--record", "rec.jsonl", "echo", "text="+tok).want(t, 0)
		data, err := os.ReadFile(filepath.Join(r.dir, "rec.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.stdout+res.stderr+string(data), tok) {
			t.Errorf("--header %q: the credential is printed or recorded:\n%s\n[recording]\n%s", h, res, data)
		}
	}
}
