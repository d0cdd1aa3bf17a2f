package protocol_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// BenchmarkHTTPCallToolSequential is a sequential tools/call through the
// whole stack over streamable HTTP, in each era: in the modern one every
// request carries _meta and mirrors it into headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name), which should cost little over the legacy era.
func BenchmarkHTTPCallToolSequential(b *testing.B) {
	for _, era := range []string{"legacy", "modern"} {
		b.Run(era, func(b *testing.B) {
			s := httpCannedSession(b, era == "modern", false)
			ctx := context.Background()
			args := map[string]string{"text": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHTTPAnswerSSESequential is a sequential tools/call through the
// whole stack over streamable HTTP, in each era, answered with an event
// stream (as most SDK servers answer), floored by
// BenchmarkHTTPAnswerFloorSequential: the same calls answered with JSON.
func BenchmarkHTTPAnswerSSESequential(b *testing.B) { benchHTTPAnswers(b, true) }

// BenchmarkHTTPAnswerFloorSequential is the same calls answered with JSON.
func BenchmarkHTTPAnswerFloorSequential(b *testing.B) { benchHTTPAnswers(b, false) }

func benchHTTPAnswers(b *testing.B, sse bool) {
	for _, era := range []string{"legacy", "modern"} {
		b.Run(era, func(b *testing.B) {
			s := httpCannedSession(b, era == "modern", sse)
			ctx := context.Background()
			args := map[string]string{"text": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// httpCannedSession connects a session to a canned streamable HTTP server
// of the era asked for, which answers with prebuilt JSON, or with sse as
// an event stream.
func httpCannedSession(b *testing.B, modern, sse bool) *protocol.Session {
	b.Helper()
	const info = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}`
	s := cannedHTTPSession(b, sse, func(body []byte) []byte {
		switch {
		case modern && bytes.Contains(body, []byte(`"method":"server/discover"`)):
			return []byte(`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete",` + info + `}}`)
		case bytes.Contains(body, []byte(`"method":"tools/list"`)):
			return []byte(`,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}}`)
		case bytes.Contains(body, []byte(`"method":"tools/call"`)) && modern:
			return []byte(`,"result":{"content":[{"type":"text","text":"hello"}],"resultType":"complete",` + info + `}}`)
		case bytes.Contains(body, []byte(`"method":"tools/call"`)):
			return []byte(`,"result":{"content":[{"type":"text","text":"hello"}]}}`)
		}
		return nil
	})
	if want := map[bool]protocol.Era{true: protocol.EraModern, false: protocol.EraLegacy}[modern]; s.Era() != want {
		b.Fatalf("era %s, want %s", s.Era(), want)
	}
	return s
}

// cannedHTTPSession connects a session to a canned streamable HTTP server
// that answers each POST with what rest gives for its body: the bytes that
// follow the request's id in the answer (nil: initialize's answer of a
// legacy server, and -32601 for other requests), as JSON or, with sse, as
// one event. Notifications get 202, a GET 405 (no stream).
func cannedHTTPSession(b *testing.B, sse bool, rest func(body []byte) []byte) *protocol.Session {
	b.Helper()
	s := dialCanned(b, cannedHTTPServer(b, sse, rest))
	b.Cleanup(func() { s.Close() })
	return s
}

// dialCanned connects a session to the server at url.
func dialCanned(b *testing.B, url string) *protocol.Session {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hc, err := (&transport.HTTP{URL: url, MaxMessageBytes: benchMaxMessage}).Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s, err := protocol.Connect(ctx, hc, nil)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	return s
}

// cannedHTTPServer serves what cannedHTTPSession describes and returns
// its URL.
func cannedHTTPServer(b *testing.B, sse bool, rest func(body []byte) []byte) string {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"method":"notifications/`)) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		id := []byte("null")
		if i := bytes.Index(body, []byte(`"id":`)); i >= 0 {
			rest := body[i+5:]
			if j := bytes.IndexAny(rest, ",}"); j >= 0 {
				id = rest[:j]
			}
		}
		answer := rest(body)
		switch {
		case answer != nil:
		case bytes.Contains(body, []byte(`"method":"initialize"`)):
			answer = []byte(`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`)
		default:
			answer = []byte(`,"error":{"code":-32601,"message":"method not found"}}`)
		}
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":")
			w.Write(id)
			w.Write(answer)
			io.WriteString(w, "\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(`{"jsonrpc":"2.0","id":`)+len(id)+len(answer)))
		io.WriteString(w, `{"jsonrpc":"2.0","id":`)
		w.Write(id)
		w.Write(answer)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}
