package protocol_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/protocol"
)

// BenchmarkRequestStateEcho is a multi round-trip tools/call whose server
// gives a requestState of N bytes in each of 8 rounds, echoed each time,
// with the peak heap as a multiple of N (issue 20 item 9: at most 3x).
// The state is sent back as it came, so the figure is the state's answer
// and the retry built from it.
func BenchmarkRequestStateEcho(b *testing.B) {
	for _, kind := range []string{"stdio", "http"} {
		for _, n := range sizesFor([]int{1 << 20, 16 << 20, 64 << 20}) {
			b.Run(kind+"/"+sizeName(n), func(b *testing.B) {
				benchEcho(b, kind, n)
			})
		}
	}
}

// benchEcho is BenchmarkRequestStateEcho over one transport.
func benchEcho(b *testing.B, kind string, n int) {
	opts := protocol.Options{MaxRequestState: 256 << 20, MaxInputRounds: 9}
	var s *protocol.Session
	if kind == "http" {
		s = mrtrHTTPSession(b, opts)
	} else {
		s = mrtrSession(b, opts, func() {})
	}
	call := func() {
		res, err := s.CallTool(context.Background(), "echo-state", map[string]int{"size": n, "rounds": 8}, nil)
		if err != nil || res.IsError {
			b.Fatal(res, err)
		}
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		call()
	}
	peakheap.Report(b, n, call)
}

// peakChildEnv, set, makes TestRequestStateEchoPeakChild measure: alone
// in a process of its own, so that no other test's allocations are in
// the figure.
const peakChildEnv = "MCPWIRE_PROTOCOL_TEST_PEAK"

// TestRequestStateEchoPeak: a requestState of 4 MiB echoed for 8 rounds
// peaks at no more than 3x of it in the heap over stdio (issue 20 item 9;
// it was 6x to 10x) and over streamable HTTP, where the request is let go
// once its JSON answer comes, before that is read (it was 4x to 5x while
// the retry was copied into one body, then 3.0x to 3.2x while the round
// trip held the state it echoed). Both measure about 2x. The figure is
// measured in a child process; a bound, not a time.
func TestRequestStateEchoPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 64 MiB through pipes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind  string
		bound float64
	}{{"stdio", 3}, {"http", 3}} {
		cmd := exec.Command(exe, "-test.run=^TestRequestStateEchoPeakChild$", "-test.v")
		cmd.Env = append(os.Environ(), peakChildEnv+"="+tc.kind)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.kind, err, out)
		}
		var peak float64
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "peak/payload "); ok {
				peak, _ = strconv.ParseFloat(v, 64)
			}
		}
		if peak == 0 || peak > tc.bound {
			t.Fatalf("%s: peak/payload %v, want at most %v\n%s", tc.kind, peak, tc.bound, out)
		}
		t.Logf("%s: peak/payload %.3f", tc.kind, peak)
	}
}

func TestRequestStateEchoPeakChild(t *testing.T) {
	kind := os.Getenv(peakChildEnv)
	if kind == "" {
		t.Skip("run by TestRequestStateEchoPeak")
	}
	const n = 4 << 20
	var s *protocol.Session
	if kind == "http" {
		s = mrtrHTTPSession(t, protocol.Options{MaxInputRounds: 9})
	} else {
		s = mrtrSession(t, protocol.Options{MaxInputRounds: 9}, func() {})
	}
	call := func() {
		res, err := s.CallTool(context.Background(), "echo-state", map[string]int{"size": n, "rounds": 8}, nil)
		if err != nil || res.IsError {
			t.Fatal(res, err)
		}
	}
	call() // the first long line of the connection is read in chunks
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	fmt.Printf("peak/payload %.3f\n", float64(peakheap.During(call))/n)
}
