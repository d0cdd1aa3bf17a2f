package cli

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peakheap"
)

// BenchmarkCallBigOutput is `mcpwire call TOOL -- DEMO` in process for a
// tool result of one 16 MiB text, printed for people and as --json, with
// the peak heap of a call as a multiple of the text (peak/payload). The
// read sets it: up to 3x on a new connection (the line in chunks, joined,
// and the text decoded from it); the text is then written as it stands
// for people, and as --json with one copy, its JSON encoding, indented as
// it is written. (Before: 5.25x and 5.0x of a 64 MiB text.)
func BenchmarkCallBigOutput(b *testing.B) {
	const size = 16 << 20
	bin := BuiltBinary(b)
	for _, mode := range []string{"text", "json"} {
		b.Run(mode, func(b *testing.B) {
			args := []string{"call", "big", fmt.Sprintf("bytes=%d", size), "--", bin, "serve-demo"}
			if mode == "json" {
				args = append([]string{args[0], "--json"}, args[1:]...)
			}
			home := b.TempDir()
			call := func() {
				env := Env{Stdout: io.Discard, Stderr: io.Discard, Home: home, Getenv: func(string) string { return "" }}
				if code := Main(context.Background(), args, env); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			b.SetBytes(size)
			for b.Loop() {
				call()
			}
			peakheap.Report(b, size, call)
		})
	}
}
