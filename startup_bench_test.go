package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
)

// The start-up of the command as a whole process (issue 16 item 4): `mcpwire
// test --json -- SERVER`, built as scripts/release.sh builds it, against
// its floor, internal/bareclient: a bare Go program that spawns the same
// server, does the same exchange (server/discover and tools/list) and
// ends. SERVER is the Go SDK's example server "hello" (only tools, quick
// to start: the client's own cost shows). Each op is one process run to
// its end; scripts/bench.sh prints the ratio. The binaries are built
// before the timer starts.

// buildFor builds the package pkg as release.sh builds the command (with
// its tags and flags), into dir as name.
func buildFor(b *testing.B, pkg, dir, name string, tags ...string) string {
	b.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-trimpath", "-tags", strings.Join(append([]string{"nethttpomithttp2"}, tags...), ","), "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b2, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, b2)
	}
	return out
}

// runWhole runs name with args once, to its end, its output discarded.
func runWhole(b *testing.B, name string, args ...string) {
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func BenchmarkStartupFloor(b *testing.B) {
	server := peers.GoSDK(b, "hello")
	bare := buildFor(b, "./internal/bareclient", b.TempDir(), "bareclient")
	runWhole(b, bare, "--", server) // warm: the page cache holds both
	for b.Loop() {
		runWhole(b, bare, "--", server)
	}
}

// BenchmarkStartupBareHTTP is the bare client linking net/http, crypto/tls
// and encoding/json (internal/bareclient, -tags linkhttp): how much of
// BenchmarkStartup over its floor is only the cost of linking what an
// HTTP-capable client links.
func BenchmarkStartupBareHTTP(b *testing.B) {
	server := peers.GoSDK(b, "hello")
	bare := buildFor(b, "./internal/bareclient", b.TempDir(), "bareclient", "linkhttp")
	runWhole(b, bare, "--", server)
	for b.Loop() {
		runWhole(b, bare, "--", server)
	}
}

func BenchmarkStartup(b *testing.B) {
	server := peers.GoSDK(b, "hello")
	dir := b.TempDir()
	bin := buildFor(b, ".", dir, "mcpwire")
	b.Setenv("MCPWIRE_HOME", dir) // the era cache goes there
	runWhole(b, bin, "test", "--json", "--", server)
	for b.Loop() {
		runWhole(b, bin, "test", "--json", "--", server)
	}
}

// BenchmarkStartupFloorEverything and BenchmarkStartupEverything are the
// same pair with the reference server of npm (server-everything on Node
// 22), a server as most are: it starts in hundreds of milliseconds, is of
// the legacy era (known from the era cache after the first run) and
// offers tools, resources, templates and prompts, all listed by both.
func BenchmarkStartupFloorEverything(b *testing.B) {
	server := peers.Everything(b)
	bare := buildFor(b, "./internal/bareclient", b.TempDir(), "bareclient")
	args := append([]string{"-legacy", "-all", "--"}, server...)
	runWhole(b, bare, args...)
	for b.Loop() {
		runWhole(b, bare, args...)
	}
}

func BenchmarkStartupEverything(b *testing.B) {
	server := peers.Everything(b)
	dir := b.TempDir()
	bin := buildFor(b, ".", dir, "mcpwire")
	b.Setenv("MCPWIRE_HOME", dir)
	args := append([]string{"test", "--json", "--"}, server...)
	runWhole(b, bin, args...)
	for b.Loop() {
		runWhole(b, bin, args...)
	}
}
