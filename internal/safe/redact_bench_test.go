package safe

import (
	"strings"
	"testing"
)

// BenchmarkRedactJSON masks two secrets in 1 MiB of JSON text with escapes.
func BenchmarkRedactJSON(b *testing.B) {
	r := NewRedactor("ghp_abcdefghijklmnop", "s3cr3t-value")
	line := `{"type":"text","text":"a basic line with \"quotes\", 100% of it \u00e9 and \\ backslashes"},`
	doc := []byte("[" + strings.Repeat(line, (1<<20)/len(line)) + "{}]")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r.RedactJSON(doc)
	}
}

// BenchmarkRedact masks two secrets in 1 MiB of plain text.
func BenchmarkRedact(b *testing.B) {
	r := NewRedactor("ghp_abcdefghijklmnop", "s3cr3t-value")
	text := strings.Repeat("the quick brown fox jumps over the lazy dog, basically.\n", (1<<20)/56)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact(text)
	}
}
