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

	mu       sync.Mutex // guards rng and the counts; held for no I/O
	rng      *rand.Rand
	requests int
	counts   map[string]int
}

// parseFaults reads the --inject values: error=P%, drop=P%,
// latency=D[±J], kill-after=N.
func parseFaults(list []string, seed uint64) (*replayFaults, error) {
	f := &replayFaults{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), counts: map[string]int{}}
	for _, item := range list {
		for _, kv := range strings.Split(item, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			var err error
			switch k {
			case "error", "drop":
				var p float64
				p, err = strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
				if err == nil && (p < 0 || p > 100) {
					err = fmt.Errorf("not within 0%%-100%%")
				}
				if k == "error" {
					f.errorPct = p
				} else {
					f.dropPct = p
				}
			case "latency":
				d, j, _ := strings.Cut(v, "±")
				if f.latency, err = time.ParseDuration(d); err == nil && j != "" {
					f.jitter, err = time.ParseDuration(j)
				}
			case "kill-after":
				f.killAfter, err = strconv.Atoi(v)
			default:
				err = fmt.Errorf("unknown fault (error=P%%, drop=P%%, latency=D±J, kill-after=N)")
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

// summary says what was injected: "3 requests; error 1, latency 3".
func (f *replayFaults) summary() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var parts []string
	for _, k := range []string{"latency", "error", "drop", "kill-after"} {
		if n := f.counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	return fmt.Sprintf("%s; faults injected: %s", plural(f.requests, "request"), strings.Join(parts, ", "))
}
