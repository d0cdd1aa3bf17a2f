package cli

import (
	"testing"
	"time"
)

// FuzzParseFaults: any --inject value is read or refused with an error,
// never a crash; what is read is within its bounds, and a draw of it
// never panics.
func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"error=1%,drop=2%", "latency=200ms±50ms", "kill-after=3", "garble=NaN%", "slow-stream", "close-stream=50%",
		"latency=1s±2562047h", "latency=-1s", "kill-after=-1", "error=1e400", "bogus"} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, v string, seed uint64) {
		fl, err := parseFaults([]string{v}, seed)
		if err != nil {
			return
		}
		for _, p := range []float64{fl.errorPct, fl.dropPct, fl.garblePct, fl.slowPct, fl.closePct} {
			if !(p >= 0 && p <= 100) {
				t.Fatalf("%q: a percentage of %v", v, p)
			}
		}
		if fl.latency < 0 || fl.jitter < 0 || fl.latency > time.Hour || fl.jitter > time.Hour {
			t.Fatalf("%q: latency %v±%v", v, fl.latency, fl.jitter)
		}
		fl.draw()
		fl.wire("garble")
		_ = fl.summary()
	})
}
