package manager

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchStart measures New and the first Tools of servers, each the demo
// server started with --start-delay 200ms; Close is not timed.
func benchStart(b *testing.B, n int, budget time.Duration, broken ...demoServer) {
	home := b.TempDir()
	if err := os.Mkdir(filepath.Join(home, "project"), 0o700); err != nil {
		b.Fatal(err)
	}
	var servers []demoServer
	for i := range n {
		servers = append(servers, demoServer{name: fmt.Sprintf("s%02d", i), args: []string{"--start-delay", "200ms"}})
	}
	servers = append(servers, broken...)
	writeConfig(b, home, servers...)
	cfg := loadConfig(b, home)
	b.ResetTimer()
	for b.Loop() {
		m, err := New(Options{Config: cfg, TrustAll: true, StartupTimeout: budget})
		if err != nil {
			b.Fatal(err)
		}
		_ = m.Wait(context.Background())
		tools, err := m.Tools(context.Background())
		if want := n * demoTools; err != nil || len(tools) < want {
			b.Fatalf("Tools: %d tools, %v", len(tools), err)
		}
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
}

// BenchmarkStartFloor is one server's start: the floor of BenchmarkStart20.
func BenchmarkStartFloor(b *testing.B) { benchStart(b, 1, 20*time.Second) }

// BenchmarkStart20 starts twenty servers at once; the target is under
// 1.5x BenchmarkStartFloor.
func BenchmarkStart20(b *testing.B) { benchStart(b, 20, 20*time.Second) }

// BenchmarkBrokenStart20 starts twenty good servers beside three broken
// ones (hanging in initialize, exiting at once, crashing on the first
// call) with a 1s budget: the start is bounded by the budget, reported
// as budget-x (wall time over budget), not by the sum of the budgets.
func BenchmarkBrokenStart20(b *testing.B) {
	const budget = time.Second
	benchStart(b, 20, budget,
		demoServer{name: "hangs", args: []string{"--hang-initialize"}},
		demoServer{name: "exits", args: []string{"--exit-at-start"}},
		demoServer{name: "crashes", args: []string{"--crash-on-first-call", "--start-delay", "200ms"}})
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(budget), "budget-x")
}
