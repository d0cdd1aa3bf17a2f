package protocol_test

import (
	"context"
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
	for _, n := range []int{1 << 20, 16 << 20, 64 << 20} {
		b.Run(sizeName(n), func(b *testing.B) {
			s := mrtrBenchSession(b)
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
		})
	}
}

// mrtrBenchSession connects to the hostile server of mrtr_bounds_test.go
// with room for a big requestState.
func mrtrBenchSession(b *testing.B) *protocol.Session {
	return mrtrSession(b, protocol.Options{MaxRequestState: 256 << 20, MaxInputRounds: 9}, func() {})
}
