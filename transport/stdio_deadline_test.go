package transport

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestStdioWriteDeadlineNotStale ends a write's context as the write
// finishes, many times: a write given up may fail, but the next write, with
// a context that never ends, must not (a deadline left behind by the first
// one would fail it, and every write after it).
func TestStdioWriteDeadlineNotStale(t *testing.T) {
	proctest.Check(t)
	c := connect(t, helperStdio(t, "echo", nil))
	drained := make(chan error, 1)
	go func() {
		for {
			if _, err := c.Read(context.Background()); err != nil {
				drained <- err
				return
			}
		}
	}()
	msg := &jsonrpc.Request{Method: "x"}
	for i := range 2000 {
		ctx, cancel := context.WithCancel(context.Background())
		go cancel() // races with the write
		if err := c.Write(ctx, msg); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: a write given up failed with %v, want nil or context.Canceled", i, err)
		}
		cancel()
		if err := c.Write(context.Background(), msg); err != nil {
			t.Fatalf("round %d: the next write failed: %v", i, err)
		}
	}
	c.Close()
	<-drained
}

// TestStdioReadDeadlineNotStale reads with a context that ends right after
// the read, then with another one: the second read must not fail with the
// first one's deadline.
func TestStdioReadDeadlineNotStale(t *testing.T) {
	proctest.Check(t)
	c := connect(t, helperStdio(t, "echo", nil))
	msg := &jsonrpc.Request{Method: "x"}
	for i := range 500 {
		if err := c.Write(context.Background(), msg); err != nil {
			t.Fatalf("round %d: write: %v", i, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		_, err := c.Read(ctx)
		cancel() // after the read: its deadline must not outlive it
		if err != nil {
			t.Fatalf("round %d: read: %v", i, err)
		}
		if err := c.Write(context.Background(), msg); err != nil {
			t.Fatalf("round %d: write: %v", i, err)
		}
		ctx2, cancel2 := context.WithCancel(context.Background())
		_, err = c.Read(ctx2)
		cancel2()
		if err != nil {
			t.Fatalf("round %d: the read after a context ended: %v", i, err)
		}
	}
}
