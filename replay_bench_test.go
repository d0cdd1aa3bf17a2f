package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The cost of a call replayed (issue 26, task "replay" item 6: at most
// 1.2× the same call live): one session over stdio, sequential echo
// calls, to `mcpwire serve-demo` (BenchmarkReplayFloorCall, the live
// call) and to `mcpwire replay` of a recording of that call, without
// its waits (--speed 0: what replay itself costs) and at the recorded
// pace (the default). The recording is made before the timer;
// scripts/bench.sh prints the ratios to the floor.

// benchReplay records an echo call to the demo and benchmarks the
// calls to its replay with flags.
func benchReplay(b *testing.B, flags ...string) {
	dir := b.TempDir()
	bin := buildFor(b, ".", dir, "mcpwire")
	rec := filepath.Join(dir, "rec.jsonl")
	cmd := exec.Command(bin, "call", "--demo", "--record", rec, "echo", "text=hi")
	cmd.Env = append(os.Environ(), "MCPWIRE_HOME="+filepath.Join(dir, "home"))
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("recording: %v\n%s", err, out)
	}
	benchCalls(b, "", append(append([]string{"replay"}, flags...), rec)...)
}

// BenchmarkReplayFloorCall is the echo call to the demo, live.
func BenchmarkReplayFloorCall(b *testing.B) { benchCalls(b, "", "serve-demo") }

// BenchmarkReplayCall is the call replayed without waits.
func BenchmarkReplayCall(b *testing.B) { benchReplay(b, "--speed", "0") }

// BenchmarkReplayPacedCall is the call replayed at the recorded pace.
func BenchmarkReplayPacedCall(b *testing.B) { benchReplay(b) }
