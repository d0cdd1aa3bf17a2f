package cli_test

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
)

// lockedBuffer collects a server's log while the test reads it.
type lockedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed and replaced on each write
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wrote != nil {
		close(b.wrote)
		b.wrote = nil
	}
	return b.b.Write(p)
}

// waitFor waits until the log holds s, at most d; it reports whether it
// does.
func (b *lockedBuffer) waitFor(s string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		if strings.Contains(b.b.String(), s) {
			b.mu.Unlock()
			return true
		}
		if b.wrote == nil {
			b.wrote = make(chan struct{})
		}
		wrote := b.wrote
		b.mu.Unlock()
		select {
		case <-wrote:
		case <-deadline.C:
			return false
		}
	}
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestCallTimeoutOverHTTPTellsTheServer times a call out over streamable
// HTTP while its POST still waits for the answer's headers. A legacy
// server has received notifications/cancelled by the time mcpwire has
// exited. In the modern era closing the request's answer stream is the
// cancellation (2026-07-28 cancellation.mdx): the demo logs that it saw
// the stream closed, which it learns from the connection, a moment later.
func TestCallTimeoutOverHTTPTellsTheServer(t *testing.T) {
	for _, tc := range []struct {
		era, want string
		later     time.Duration
	}{
		{demo.EraLegacy, "<- notifications/cancelled", 0},
		{demo.EraModern, "\ncancelled ", 10 * time.Second},
	} {
		t.Run(tc.era, func(t *testing.T) {
			var log lockedBuffer
			h := demo.NewHTTPHandler(demo.Options{Verbose: true, Stderr: &log, Era: tc.era})
			srv := httptest.NewServer(h)
			t.Cleanup(func() {
				h.Close()
				srv.Close()
			})
			r := newRunner(t)
			// toolTimeout bounds the call alone: --timeout would bound the
			// initialize and the listing too, which a loaded machine may
			// take longer than 500ms over.
			entry, _ := json.Marshal(map[string]any{"url": srv.URL + "/mcp", "toolTimeout": 0.5})
			r.run(t, "add-json", "slow", string(entry)).want(t, 0)
			res := r.run(t, "call", "slow", "sleep", "ms=60000").want(t, 1)
			if !strings.Contains(res.stderr, "tool sleep on server slow") || !strings.Contains(res.stderr, "timed out after 500ms") {
				t.Errorf("the error does not say the call timed out:\n%s", res)
			}
			if !log.waitFor(tc.want, tc.later) {
				got := log.String()
				t.Fatalf("the server did not see the cancellation (%q) before mcpwire exited:\n%s", tc.want, got)
			}
		})
	}
}
