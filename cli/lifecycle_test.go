package cli_test

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/internal/demo"
)

// lockedBuffer collects a server's log while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestCallTimeoutOverHTTPTellsTheServer times a call out over streamable
// HTTP while its POST still waits for the answer's headers: by the time
// mcpwire has exited, the server knows. A legacy server is sent
// notifications/cancelled; in the modern era closing the request's
// answer stream is the cancellation (2026-07-28 cancellation.mdx), and
// the demo logs that it saw it.
func TestCallTimeoutOverHTTPTellsTheServer(t *testing.T) {
	for _, tc := range []struct{ era, want string }{
		{demo.EraLegacy, "<- notifications/cancelled"},
		{demo.EraModern, "\ncancelled "},
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
			res := r.run(t, "call", srv.URL+"/mcp", "sleep", "ms=60000", "--timeout", "500ms").want(t, 1)
			if !strings.Contains(res.stderr, "no answer within") {
				t.Errorf("the error does not say the call timed out:\n%s", res)
			}
			got := log.String()
			if !strings.Contains(got, tc.want) {
				t.Fatalf("the server did not see the cancellation (%q) before mcpwire exited:\n%s", tc.want, got)
			}
		})
	}
}
