package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Sessions (issue 25 item 7), as whole processes: `mcpwire call d echo
// text=hi` through a session (connect d first) and with a fresh start of
// the same server (the demo, over stdio) each time (--no-session), over
// the floor of any run of the binary (mcpwire version). The binary is
// built as release.sh builds it, before the timer starts.

// sessionHome makes a home with the demo configured as d, and connects
// it when connect is set; the session ends with the benchmark.
func sessionHome(b *testing.B, connect bool) (bin, home string) {
	b.Helper()
	dir := b.TempDir()
	bin = buildFor(b, ".", dir, "mcpwire")
	home = filepath.Join(dir, "home")
	runWhole(b, bin, "--home", home, "add", "d", "--", bin, "serve-demo")
	if connect {
		runWhole(b, bin, "--home", home, "connect", "d")
		b.Cleanup(func() { exec.Command(bin, "--home", home, "disconnect", "--all").Run() })
	}
	runWhole(b, bin, "--home", home, "call", "d", "echo", "text=hi") // warm
	return bin, home
}

func BenchmarkSessionFloorCall(b *testing.B) {
	bin, _ := sessionHome(b, false)
	for b.Loop() {
		runWhole(b, bin, "version")
	}
}

func BenchmarkSessionCall(b *testing.B) {
	bin, home := sessionHome(b, true)
	for b.Loop() {
		runWhole(b, bin, "--home", home, "call", "d", "echo", "text=hi")
	}
}

func BenchmarkSessionFreshCall(b *testing.B) {
	bin, home := sessionHome(b, false)
	for b.Loop() {
		runWhole(b, bin, "--home", home, "call", "d", "echo", "text=hi", "--no-session")
	}
}
