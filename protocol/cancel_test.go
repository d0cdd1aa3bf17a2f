package protocol

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestServerCancelRightBehindItsRequest sends a server request and its
// cancellation in one write, 50 times: every one of them ends the request
// (a cancellation read before the handler registered the request was lost).
func TestServerCancelRightBehindItsRequest(t *testing.T) {
	outcomes := newEvents()
	_, f := startFake(t, allCaps, nil, &Options{
		Elicit: func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
			select {
			case <-ctx.Done(): // the user is still thinking
				return nil, ctx.Err()
			case <-time.After(10 * time.Second):
				return &ElicitResult{Action: "decline"}, nil // the cancellation was lost
			}
		},
		OnServerRequest: func(method, outcome string) { outcomes.add(outcome) },
	})
	const n = 50
	for i := range n {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}`, i)
		cancel := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c%d"}}`, i)
		f.mu.Lock()
		f.calls[fmt.Sprintf(`"c%d"`, i)] = make(chan *wire, 1) // its answer
		f.mu.Unlock()
		f.wmu.Lock()
		_, err := f.conn.Write([]byte(req + "\n" + cancel + "\n"))
		f.wmu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, got := range outcomes.wait(t, n) {
		if got != "cancelled by the server" {
			t.Errorf("request %d: %q, want cancelled by the server", i, got)
		}
	}
}
