package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// replayFaults are the faults of replay --inject, drawn from a generator
// seeded by --seed, so that a run misbehaves the same way each time.
type replayFaults struct {
	errorPct, dropPct float64
	latency, jitter   time.Duration
	killAfter         int
	kill              func() // ends the replay
	// The faults of the wire, drawn per message written: garble (any
	// transport), slow-stream and close-stream (SSE answers over HTTP).
	garblePct, slowPct, closePct float64

	mu       sync.Mutex // guards rng, wireRng and the counts; held for no I/O
	rng      *rand.Rand
	wireRng  *rand.Rand // apart, so that the wire's draws do not shift the requests'
	requests int
	counts   map[string]int
}

// maxLatency bounds --inject latency and its jitter.
const maxLatency = time.Hour

// faultNames are the faults, in the order the summary counts them.
var faultNames = []string{"latency", "error", "drop", "garble", "slow-stream", "close-stream", "kill-after"}

// parseFaults reads the --inject values: error=P%, drop=P%, garble=P%,
// latency=D[±J], kill-after=N, slow-stream[=P%], close-stream[=P%].
func parseFaults(list []string, seed uint64) (*replayFaults, error) {
	f := &replayFaults{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		wireRng: rand.New(rand.NewPCG(seed^0x5851f42d4c957f2d, seed)), counts: map[string]int{}}
	for _, item := range list {
		for _, kv := range strings.Split(item, ",") {
			k, v, hasV := strings.Cut(strings.TrimSpace(kv), "=")
			var err error
			switch k {
			case "error", "drop", "garble", "slow-stream", "close-stream":
				p := 100.0 // slow-stream and close-stream alone: every SSE answer
				if hasV || (k != "slow-stream" && k != "close-stream") {
					p, err = strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
				}
				if err == nil && !(p >= 0 && p <= 100) { // NaN too
					err = fmt.Errorf("not within 0%%-100%%")
				}
				*map[string]*float64{"error": &f.errorPct, "drop": &f.dropPct, "garble": &f.garblePct,
					"slow-stream": &f.slowPct, "close-stream": &f.closePct}[k] = p
			case "latency":
				d, j, _ := strings.Cut(v, "±")
				if f.latency, err = time.ParseDuration(d); err == nil && j != "" {
					f.jitter, err = time.ParseDuration(j)
				}
				if err == nil && (f.latency < 0 || f.jitter < 0 || f.latency > maxLatency || f.jitter > maxLatency) {
					err = fmt.Errorf("want a latency and a jitter from 0 to %v", maxLatency)
				}
			case "kill-after":
				if f.killAfter, err = strconv.Atoi(v); err == nil && f.killAfter < 1 {
					err = fmt.Errorf("want 1 request or more")
				}
			default:
				err = fmt.Errorf("unknown fault (error=P%%, drop=P%%, garble=P%%, latency=D±J, kill-after=N, slow-stream[=P%%], close-stream[=P%%])")
			}
			if err != nil {
				return nil, usageErr("--inject %q: %v", kv, err)
			}
		}
	}
	return f, nil
}

// draw decides the faults of one request: its delay, and whether it is
// answered with an error, not at all, or ends the replay.
func (f *replayFaults) draw() (delay time.Duration, fault string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if f.killAfter > 0 && f.requests > f.killAfter {
		f.counts["kill-after"]++
		return 0, "kill"
	}
	delay = f.latency
	if f.jitter > 0 {
		delay += time.Duration(f.rng.Int64N(int64(2*f.jitter)+1)) - f.jitter
	}
	if delay > 0 {
		f.counts["latency"]++
	}
	switch r := f.rng.Float64() * 100; {
	case r < f.errorPct:
		fault = "error"
	case r < f.errorPct+f.dropPct:
		fault = "drop"
	}
	if fault != "" {
		f.counts[fault]++
	}
	return max(delay, 0), fault
}

// apply runs one request's faults before answer; ok false means the
// request gets the returned error (or none, when dropped).
func (f *replayFaults) apply(ctx context.Context) (bool, error) {
	delay, fault := f.draw()
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false, mcpserver.ErrCancelled
		}
	}
	switch fault {
	case "error":
		return false, mcpserver.Errorf(mcpserver.CodeInternalError, "replay: an error injected on purpose (--inject error)")
	case "drop":
		<-ctx.Done() // no answer, until the client gives up
		return false, mcpserver.ErrCancelled
	case "kill":
		f.kill()
		return false, mcpserver.ErrDrop
	}
	return true, nil
}

// wire draws whether a message written gets fault (garble,
// slow-stream, close-stream), and counts it.
func (f *replayFaults) wire(fault string) bool {
	pct := map[string]float64{"garble": f.garblePct, "slow-stream": f.slowPct, "close-stream": f.closePct}[fault]
	if pct <= 0 {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.wireRng.Float64()*100 >= pct {
		return false
	}
	f.counts[fault]++
	return true
}

// streamFaults reports whether a fault needs SSE answers over HTTP.
func (f *replayFaults) streamFaults() bool { return f != nil && (f.slowPct > 0 || f.closePct > 0) }

// summary says what was injected: "3 requests; error 1, latency 3".
func (f *replayFaults) summary() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var parts []string
	for _, k := range faultNames {
		if n := f.counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	return fmt.Sprintf("%s; faults injected: %s", plural(f.requests, "request"), strings.Join(parts, ", "))
}
