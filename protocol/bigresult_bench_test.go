package protocol_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/protocol"
)

// The peak heap of one big result, through the whole stack, as a
// multiple of its size (issue 16 item 5: at most 3x from 1 MiB to
// 256 MiB, over stdio and over HTTP with JSON and with SSE answers). The
// result is one text block of N bytes; the caller keeps it while the peak
// is taken, so 1x of the figure is the result itself.

var bigResultSizes = []int{1 << 20, 16 << 20, 64 << 20, 256 << 20}

// sizesFor are the sizes a benchmark runs: all of them, or with -short
// (scripts/test.sh checks that each benchmark runs) those up to 1 MiB.
func sizesFor(sizes []int) []int {
	if !testing.Short() {
		return sizes
	}
	return slices.DeleteFunc(slices.Clone(sizes), func(n int) bool { return n > 1<<20 })
}

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
	for _, n := range sizesFor(bigResultSizes) {
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
		for _, n := range sizesFor(bigResultSizes) {
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

// httpSizedSession connects a session to a canned legacy streamable HTTP
// server whose tool "sized" answers a text of the size asked for, built
// before the session starts (size > 0) so that no call makes it in this
// process.
func httpSizedSession(b *testing.B, sse bool, size int) *protocol.Session {
	b.Helper()
	var answer []byte // the last answer, built once per size
	if size > 0 {
		answer = bigAnswer(size)
		answer = answer[:len(answer)-1] // no newline
	}
	return cannedHTTPSession(b, sse, func(body []byte) []byte {
		if !bytes.Contains(body, []byte(`"name":"sized"`)) {
			return nil
		}
		i := bytes.Index(body, []byte(`"size":`))
		n, _ := strconv.Atoi(string(bytes.TrimRight(body[i+len(`"size":`):], "}")))
		if len(answer) != n+len(bigAnswer(0))-1 {
			answer = bigAnswer(n)
			answer = answer[:len(answer)-1]
		}
		return answer
	})
}

// BenchmarkBigResultFirst is the peak of the first big result on a new
// connection, over stdio and with an SSE answer: the line's length is not
// known yet, so it is read in chunks and joined once (JSON answers carry
// their length). Later results of about the same size are read into one
// slice of that size (BenchmarkBigResultStdio, BenchmarkBigResultHTTP).
func BenchmarkBigResultFirst(b *testing.B) {
	for _, kind := range []string{"stdio", "sse"} {
		for _, n := range sizesFor(bigResultSizes) {
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
