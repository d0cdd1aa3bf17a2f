package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyHostileRecording: a recording of two servers is not
// verified as the first one's in silence (verify asks for --server, as
// replay does); a recorded revision mcpwire does not speak is an error
// naming the file and its line, not a --protocol the user never gave.
func TestVerifyHostileRecording(t *testing.T) {
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hello").want(t, 0)
	data, err := os.ReadFile(filepath.Join(r.dir, "rec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rec := string(data)
	two := rec + strings.ReplaceAll(strings.SplitN(rec, "\n", 2)[1], `"server":"demo"`, `"server":"other"`)
	bad := strings.Replace(rec, `"protocol":"2026-07-28"`, `"protocol":"2026-07-28\u001b]52;c;eA==\u0007"`, 1)
	if bad == rec {
		t.Fatalf("the recording holds no session line:\n%s", rec)
	}
	for name, text := range map[string]string{"two.jsonl": two, "bad.jsonl": bad} {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := r.run(t, "verify", "two.jsonl", "--demo").want(t, 2)
	if !strings.Contains(res.stderr, "demo, other: choose one with --server NAME") {
		t.Errorf("two servers, no --server:\n%s", res)
	}
	r.run(t, "verify", "two.jsonl", "--server", "other", "--demo").want(t, 0)
	res = r.run(t, "verify", "bad.jsonl", "--demo").want(t, 2)
	if !strings.Contains(res.stderr, "bad.jsonl:") || !strings.Contains(res.stderr, "recorded revision") ||
		strings.Contains(res.stderr, "--protocol") || strings.ContainsAny(res.stderr, "\x1b\x07") {
		t.Errorf("a recorded revision mcpwire does not speak:\n%s", res)
	}
}
