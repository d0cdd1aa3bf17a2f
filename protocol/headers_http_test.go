package protocol_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// methodCounter counts the POSTs a server gets, by their Mcp-Method header,
// and the tools/call answers with -32020.
type methodCounter struct {
	mu         sync.Mutex
	posts      map[string]int
	mismatches int
}

func (c *methodCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			c.mu.Lock()
			c.posts[r.Header.Get("Mcp-Method")]++
			c.mu.Unlock()
		}
		rec := &sniff{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if bytes.Contains(rec.head, []byte(`-32020`)) {
			c.mu.Lock()
			c.mismatches++
			c.mu.Unlock()
		}
	})
}

func (c *methodCounter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.posts[method]
}

// sniff keeps the first bytes of an answer.
type sniff struct {
	http.ResponseWriter
	head []byte
}

func (s *sniff) Write(p []byte) (int, error) {
	if len(s.head) < 512 {
		s.head = append(s.head, p[:min(len(p), 512-len(s.head))]...)
	}
	return s.ResponseWriter.Write(p)
}

func (s *sniff) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// modernDemoHTTP connects a modern session to the demo server over
// streamable HTTP on loopback, counting what it is sent.
func modernDemoHTTP(t *testing.T, opts *protocol.Options) (*protocol.Session, *methodCounter) {
	t.Helper()
	h := demo.NewHTTPHandler(demo.Options{Era: demo.EraModern})
	c := &methodCounter{posts: map[string]int{}}
	srv := httptest.NewServer(c.wrap(h))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	hc, err := (&transport.HTTP{URL: srv.URL + "/mcp"}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := protocol.Connect(ctx, hc, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Era() != protocol.EraModern {
		t.Fatalf("era %s", s.Era())
	}
	return s, c
}

// TestHeaderParamsOnDemand: a call of a tool the session has not listed
// goes without Mcp-Param-* headers; a server that wants them answers
// -32020, and the call is sent again, after a listing, with them. A tool
// with none costs no listing.
func TestHeaderParamsOnDemand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, c := modernDemoHTTP(t, nil)
	res, err := s.CallTool(ctx, "echo", map[string]any{"text": "hi"}, nil)
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if n := c.count("tools/list"); n != 0 {
		t.Errorf("a call of a tool with no header parameters listed the tools %d times", n)
	}
	res, err = s.CallTool(ctx, "env", map[string]any{"name": "PATH"}, nil)
	if err != nil || res.IsError {
		t.Fatalf("env: %v %+v", err, res)
	}
	if n, calls := c.count("tools/list"), c.count("tools/call"); n != 1 || calls != 3 || c.mismatches != 1 {
		t.Errorf("tools/list %d, tools/call %d, -32020 answers %d; want 1, 3, 1", n, calls, c.mismatches)
	}
	// Now known: no more refusals nor listings.
	if _, err := s.CallTool(ctx, "env", map[string]any{"name": "HOME"}, nil); err != nil {
		t.Fatal(err)
	}
	if n, calls := c.count("tools/list"), c.count("tools/call"); n != 1 || calls != 4 || c.mismatches != 1 {
		t.Errorf("then tools/list %d, tools/call %d, -32020 answers %d; want 1, 4, 1", n, calls, c.mismatches)
	}
}

// TestHeaderParamsKnownTools: tools a previous listing gave
// (Options.KnownTools, as the manager's list cache holds them) mirror
// their parameters from the first call, with no refusal and no listing.
func TestHeaderParamsKnownTools(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	first, _ := modernDemoHTTP(t, nil)
	tools, err := first.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, c := modernDemoHTTP(t, &protocol.Options{KnownTools: tools})
	res, err := s.CallTool(ctx, "env", map[string]any{"name": "PATH"}, nil)
	if err != nil || res.IsError {
		t.Fatalf("env: %v %+v", err, res)
	}
	if n, calls := c.count("tools/list"), c.count("tools/call"); n != 0 || calls != 1 || c.mismatches != 0 {
		t.Errorf("tools/list %d, tools/call %d, -32020 answers %d; want 0, 1, 0", n, calls, c.mismatches)
	}
}
