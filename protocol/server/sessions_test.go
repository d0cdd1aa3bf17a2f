package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestMaxSessions: at MaxSessions legacy HTTP sessions a new one ends
// the one used least recently, as an expired one ends (SessionEnded is
// told; its client is answered 404); the others go on.
func TestMaxSessions(t *testing.T) {
	ended := make(chan *Session, 4)
	srv := New(Options{MaxSessions: 2,
		NewSession: func(*Session) Handler {
			return HandlerFunc(func(context.Context, Peer, *jsonrpc.Request) (any, error) { return struct{}{}, nil })
		},
		SessionEnded: func(s *Session) { ended <- s },
	})
	h := srv.HTTPHandler()
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()
	post := func(session, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	open := func() string {
		t.Helper()
		code, id := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d, session %q", code, id)
		}
		return id
	}
	ping := func(id string) int {
		t.Helper()
		code, _ := post(id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		return code
	}
	a, b := open(), open()
	if ping(a) != http.StatusOK { // b is now the one used least recently
		t.Fatal("the first session does not answer")
	}
	select {
	case s := <-ended:
		t.Fatalf("a session ended under the bound: %p", s)
	default:
	}
	c := open()
	select {
	case <-ended:
	default:
		t.Fatal("a third session under a bound of two ended none")
	}
	if code := ping(b); code != http.StatusNotFound {
		t.Errorf("the session used least recently answered %d, want 404", code)
	}
	for _, id := range []string{a, c} {
		if code := ping(id); code != http.StatusOK {
			t.Errorf("a session kept answered %d", code)
		}
	}
}
