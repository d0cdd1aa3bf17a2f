package protocol_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// The peak heap of one big result, through the whole stack, as a
// multiple of its size (issue 16 item 5: at most 3x from 1 MiB to
// 256 MiB, over stdio and over HTTP with JSON and with SSE answers). The
// result is one text block of N bytes; the caller keeps it while the peak
// is taken, so 1x of the figure is the result itself.

var bigResultSizes = []int{1 << 20, 16 << 20, 64 << 20, 256 << 20}

func sizeName(n int) string { return fmt.Sprintf("%dMiB", n>>20) }

// callSized calls the canned tool "sized" for a text of n bytes and
// checks it.
func callSized(b *testing.B, s *protocol.Session, n int) {
	res, err := s.CallTool(context.Background(), "sized", map[string]int{"size": n}, nil)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Content) != 1 || len(res.Content[0].Text) != n {
		b.Fatalf("got %d contents, want one of %d bytes", len(res.Content), n)
	}
}

// BenchmarkBigResultStdio: one result of N bytes from a child process.
func BenchmarkBigResultStdio(b *testing.B) {
	for _, n := range bigResultSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			s := benchSession(b)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				callSized(b, s, n)
			}
			peakheap.Report(b, n, func() { callSized(b, s, n) })
		})
	}
}

// BenchmarkBigResultHTTP: one result of N bytes from a streamable HTTP
// server, answered with JSON and with an event stream.
func BenchmarkBigResultHTTP(b *testing.B) {
	for _, sse := range []bool{false, true} {
		for _, n := range bigResultSizes {
			kind := "json"
			if sse {
				kind = "sse"
			}
			b.Run(kind+"/"+sizeName(n), func(b *testing.B) {
				s := httpSizedSession(b, sse, n)
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					callSized(b, s, n)
				}
				peakheap.Report(b, n, func() { callSized(b, s, n) })
			})
		}
	}
}

// httpBigSession starts a canned legacy streamable HTTP server (server/
// discover is method not found) whose tool "sized" answers a text of the
// size asked for, and connects a session to it.
func httpBigSession(b *testing.B, sse bool) *protocol.Session { return httpSizedSession(b, sse, 0) }

// httpSizedSession is httpBigSession with the answer for size (> 0) built
// before the session starts, so that no call makes it in this process.
func httpSizedSession(b *testing.B, sse bool, size int) *protocol.Session {
	b.Helper()
	var answer []byte // the last answer, built once per size
	if size > 0 {
		answer = bigAnswer(size)
		answer = answer[:len(answer)-1]
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		id := []byte("null")
		if i := bytes.Index(body, []byte(`"id":`)); i >= 0 {
			rest := body[i+5:]
			if j := bytes.IndexAny(rest, ",}"); j >= 0 {
				id = rest[:j]
			}
		}
		var rest []byte // what follows the id
		switch {
		case bytes.Contains(body, []byte(`"method":"notifications/`)):
			w.WriteHeader(http.StatusAccepted)
			return
		case bytes.Contains(body, []byte(`"method":"initialize"`)):
			rest = []byte(`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}`)
		case bytes.Contains(body, []byte(`"name":"sized"`)):
			i := bytes.Index(body, []byte(`"size":`))
			n, _ := strconv.Atoi(string(bytes.TrimRight(body[i+len(`"size":`):], "}")))
			if len(answer) != n+len(bigAnswer(0))-1 {
				answer = bigAnswer(n)
				answer = answer[:len(answer)-1] // no newline
			}
			rest = answer
		default:
			rest = []byte(`,"error":{"code":-32601,"message":"method not found"}}`)
		}
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":")
			w.Write(id)
			w.Write(rest)
			io.WriteString(w, "\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(`{"jsonrpc":"2.0","id":`)+len(id)+len(rest)))
		io.WriteString(w, `{"jsonrpc":"2.0","id":`)
		w.Write(id)
		w.Write(rest)
	}))
	b.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hc, err := (&transport.HTTP{URL: srv.URL, MaxMessageBytes: benchMaxMessage}).Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s, err := protocol.Connect(ctx, hc, nil)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkBigResultFirst is the peak of the first big result on a new
// connection, over stdio and with an SSE answer: the line's length is not
// known yet, so it is read in chunks and joined once (JSON answers carry
// their length). Later results of about the same size are read into one
// slice of that size (BenchmarkBigResultStdio, BenchmarkBigResultHTTP).
func BenchmarkBigResultFirst(b *testing.B) {
	for _, kind := range []string{"stdio", "sse"} {
		for _, n := range bigResultSizes {
			b.Run(kind+"/"+sizeName(n), func(b *testing.B) {
				const runs = 3 // peakheap.Report's
				fresh := make([]*protocol.Session, 0, runs+1)
				for range runs + 1 {
					if kind == "stdio" {
						fresh = append(fresh, benchSession(b))
					} else {
						fresh = append(fresh, httpSizedSession(b, true, n))
					}
				}
				b.SetBytes(int64(n))
				for b.Loop() { // once: timed with -benchtime=1x only
					callSized(b, fresh[runs], n)
				}
				i := 0
				peakheap.Report(b, n, func() {
					callSized(b, fresh[i], n)
					i++
				})
			})
		}
	}
}
