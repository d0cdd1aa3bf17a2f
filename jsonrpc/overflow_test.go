package jsonrpc

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestOverflowIsCounted floods a Conn whose handler never returns with a
// peer that never reads: 256 requests are handled, about 256 get an error
// reply queued, and OnOverflow hears of every one past the first 256,
// answered or not, so that what went unanswered is counted.
func TestOverflowIsCounted(t *testing.T) {
	release := make(chan struct{})
	var answered, unanswered atomic.Int64
	all := make(chan struct{})
	const n = 1000
	_, peer := newPeerEnd(t, &ConnOptions{
		Handle: func(ctx context.Context, req *Request) (any, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return struct{}{}, nil
		},
		OnOverflow: func(req *Request, ok bool) {
			if ok {
				answered.Add(1)
			} else {
				unanswered.Add(1)
			}
			if answered.Load()+unanswered.Load() == n-maxHandling {
				close(all)
			}
		},
	})
	defer close(release)
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
	}
	peer.send(t, lines...)
	select {
	case <-all:
	case <-time.After(hang):
		t.Fatalf("OnOverflow heard of %d answered, %d unanswered", answered.Load(), unanswered.Load())
	}
	// One error reply may be being written (the peer does not read),
	// the queue holds maxRejects more.
	if a := answered.Load(); a < maxRejects || a > maxRejects+1 {
		t.Errorf("%d answered with an error, want %d or %d", a, maxRejects, maxRejects+1)
	}
}
