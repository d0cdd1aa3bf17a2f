// Package peakheap measures the most heap a benchmark's operation holds at
// once, for the peak-memory figures of the big-payload benchmarks.
package peakheap

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// Report runs op a few times, after the timed loop, sampling the heap
// every millisecond, and reports the largest peak of one op above the
// heap just before it, per payload byte, as the metric "peak/payload".
// Each op starts after a collection, so that the figure is what one op
// holds at once, not what the op before it left for the collector. The
// GC runs eagerly meanwhile, so that the peak shows what op holds, not
// garbage the pacer let pile up; that is also why it is not timed (it
// about doubles the time of an 8 MiB call).
func Report(b *testing.B, payload int, op func()) {
	b.StopTimer()
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	var worst uint64
	for range 3 {
		worst = max(worst, During(op))
	}
	b.ReportMetric(float64(worst)/float64(payload), "peak/payload")
}

// During runs op and returns the peak of the heap above where it was
// when op began (after a collection), sampled every millisecond: for a
// test that checks a bound on memory (not a figure to compare).
func During(op func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	op()
	close(stop)
	<-sampled
	return peak.Load()
}
