package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
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

// TestUndecodableAnswerFailsTheCallAtOnce answers tools/call with what
// cannot be decoded: the call fails at once (its timeout is an hour) with
// an *jsonrpc.AnswerError, and the server is sent no error reply.
func TestUndecodableAnswerFailsTheCallAtOnce(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	for _, tc := range []struct{ name, answer string }{
		{"nested too deeply", `{"jsonrpc":"2.0","id":%s,"result":{"content":` + deep + `}}`},
		{"result and error", `{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":1,"message":"x"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
				if m.Method != "tools/call" {
					return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found")
				}
				f.wmu.Lock()
				f.conn.Write([]byte(fmt.Sprintf(tc.answer, m.ID) + "\n"))
				f.wmu.Unlock()
				return nil, noAnswer
			}, &Options{Timeout: time.Hour})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := s.CallTool(ctx, "x", nil, nil)
			var ae *jsonrpc.AnswerError
			if !errors.As(err, &ae) || ctx.Err() != nil {
				t.Fatalf("CallTool: %v, want an *jsonrpc.AnswerError at once", err)
			}
			if !strings.HasPrefix(err.Error(), "tools/call: protocol error: the answer cannot be decoded") {
				t.Errorf("the error reads %q", err)
			}
			select {
			case n := <-f.notes:
				t.Errorf("the client sent %s after the bad answer", n.Method)
			default:
			}
		})
	}
}
