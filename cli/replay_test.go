package cli_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestReplayARecording: a session recorded against the demo server is
// served back by mcpwire replay: the same call gets the same answer, in
// the era it was recorded in and in the other one; a call the recording
// does not hold gets an error naming the closest recorded one.
func TestReplayARecording(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hello replay").want(t, 0)
	replay := []string{"--", r.bin, "replay", "rec.jsonl"}
	res := r.run(t, append([]string{"call", "echo", "text=hello replay"}, replay...)...).want(t, 0)
	if !strings.Contains(res.stdout, "hello replay") {
		t.Errorf("the replayed answer:\n%s", res)
	}
	res = r.run(t, append([]string{"call", "--protocol", "2025-06-18", "echo", "text=hello replay"}, replay...)...).want(t, 0)
	if !strings.Contains(res.stdout, "hello replay") {
		t.Errorf("the replayed answer in the legacy era:\n%s", res)
	}
	res = r.run(t, append([]string{"call", "echo", "text=other"}, replay...)...).want(t, 1)
	if !strings.Contains(res.stderr, "closest recorded") || !strings.Contains(res.stderr, "hello replay") {
		t.Errorf("an unknown call does not name the closest recorded one:\n%s", res)
	}
	r.run(t, "replay", "nosuch.jsonl").want(t, 2)
}

// TestReplayFaults: --inject error=100% answers the first request with
// an injected error; kill-after=1 ends the replay after one request;
// each run counts its faults on stderr at exit (seen here through the
// client's --verbose); an unknown fault is a usage error.
func TestReplayFaults(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hi").want(t, 0)
	res := r.run(t, "call", "--verbose", "echo", "text=hi", "--", r.bin, "replay", "--seed", "7", "--inject", "error=100%", "rec.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "injected on purpose") || !strings.Contains(res.stderr, "faults injected: error 1") {
		t.Errorf("error=100%%:\n%s", res)
	}
	res = r.run(t, "call", "--verbose", "echo", "text=hi", "--", r.bin, "replay", "--inject", "latency=1ms±1ms,kill-after=1", "rec.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "kill-after 1") {
		t.Errorf("kill-after=1:\n%s", res)
	}
	r.run(t, "replay", "--inject", "bogus=1", "rec.jsonl").want(t, 2)
}
