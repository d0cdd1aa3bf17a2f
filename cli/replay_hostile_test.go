package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayRecordedWaitBounded: a recording whose answers come hours
// (or 1e300 ms) after their requests does not hold a client that long
// at the recorded pace: replay refuses it at the start, naming the file
// and what to do; with --speed 0 it answers at once.
func TestReplayRecordedWaitBounded(t *testing.T) {
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hi").want(t, 0)
	data, err := os.ReadFile(filepath.Join(r.dir, "rec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []float64{1e7, 1e300} {
		var out []byte
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var l map[string]any
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatal(err)
			}
			if l["dir"] == "recv" {
				l["t"] = at
			}
			b, _ := json.Marshal(l)
			out = append(append(out, b...), '\n')
		}
		if err := os.WriteFile(filepath.Join(r.dir, "slow.jsonl"), out, 0o600); err != nil {
			t.Fatal(err)
		}
		res := r.run(t, "call", "echo", "text=hi", "--", r.bin, "replay", "slow.jsonl").want(t, 1)
		if !strings.Contains(res.stderr, "slow.jsonl: an answer to") || !strings.Contains(res.stderr, "--speed 0") {
			t.Errorf("t=%g: a recorded wait past the bound:\n%s", at, res)
		}
		if res := r.run(t, "call", "echo", "text=hi", "--", r.bin, "replay", "--speed", "0", "slow.jsonl").want(t, 0); strings.TrimSpace(res.stdout) != "hi" {
			t.Errorf("t=%g, --speed 0:\n%s", at, res)
		}
	}
}
