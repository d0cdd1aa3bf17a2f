package main

import (
	"testing"
)

// The first contact of the command as a whole process (issue 22 item 1):
// `mcpwire --home FRESH test -- mcpwire serve-demo --era legacy --early
// ignore`, a legacy stdio server that never answers server/discover,
// against the same run pinned to a legacy revision (a legacy-only
// client). Each op is one process run to its end with a home of its own,
// so the era cache never answers; the target is that the first costs at
// most 1 s more than the second.

// benchFirstContactWhole times `mcpwire test` against the silent legacy
// demo with a fresh home per run; pin, when set, is passed as --protocol.
func benchFirstContactWhole(b *testing.B, pin string) {
	dir := b.TempDir()
	bin := buildFor(b, ".", dir, "mcpwire")
	args := func() []string {
		a := []string{"--home", b.TempDir(), "test"}
		if pin != "" {
			a = append(a, "--protocol", pin)
		}
		return append(a, "--", bin, "serve-demo", "--era", "legacy", "--early", "ignore")
	}
	runWhole(b, bin, args()...) // warm: the page cache holds the binary
	for b.Loop() {
		runWhole(b, bin, args()...)
	}
}

func BenchmarkFirstContactWholeSilentLegacy(b *testing.B) { benchFirstContactWhole(b, "") }

// BenchmarkFirstContactWholeLegacyOnly is the floor of
// BenchmarkFirstContactWholeSilentLegacy.
func BenchmarkFirstContactWholeLegacyOnly(b *testing.B) {
	benchFirstContactWhole(b, "2025-11-25")
}
