package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// benchServer answers every POST with a small JSON-RPC result carrying
// the request's id (found with a byte search, the same work for the floor
// and for the transport), or, for the method "big", with bigJSON or bigSSE.
type benchServer struct {
	srv             *httptest.Server
	bigJSON, bigSSE []byte // the answer's bytes up to the id, then after it
	sse             bool
}

const bigPayload = 8 << 20

func newBenchServer(b *testing.B) *benchServer {
	s := &benchServer{}
	text := strings.Repeat("a", bigPayload)
	s.bigJSON = []byte(`{"jsonrpc":"2.0","id":ID,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`)
	s.bigSSE = []byte("id: 1\ndata: " + string(s.bigJSON) + "\n\n")
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	b.Cleanup(s.srv.Close)
	return s
}

func (s *benchServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	id := []byte("null")
	if i := bytes.Index(body, []byte(`"id":`)); i >= 0 {
		rest := body[i+5:]
		if j := bytes.IndexAny(rest, ",}"); j >= 0 {
			id = rest[:j]
		}
	}
	if bytes.Contains(body, []byte(`"method":"big"`)) {
		page, ct := s.bigJSON, "application/json"
		if s.sse {
			page, ct = s.bigSSE, "text/event-stream"
		}
		before, after, _ := bytes.Cut(page, []byte("ID"))
		w.Header().Set("Content-Type", ct)
		if !s.sse {
			w.Header().Set("Content-Length", fmt.Sprint(len(before)+len(id)+len(after)))
		}
		w.Write(before)
		w.Write(id)
		w.Write(after)
		return
	}
	if s.sse {
		// As the SDKs answer a POST with a stream: one event, no id.
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"))
		w.Write(id)
		w.Write([]byte(",\"result\":{}}\n\n"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":`))
	w.Write(id)
	w.Write([]byte(`,"result":{}}`))
}

func httpBenchConn(b *testing.B, url string) (*HTTPConn, *jsonrpc.Conn) {
	hc, err := (&HTTP{URL: url}).Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	conn := jsonrpc.NewConn(hc, nil)
	b.Cleanup(func() { conn.Close() })
	return hc, conn
}

// bareCall is the floor: one POST of the same bytes, the whole answer read.
func bareCall(client *http.Client, url string, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err
}

// interleave runs a bare POST and a call alternately in each of workers
// goroutines, so that both see the same load (the machine is shared), and
// reports the mean latency of each and their ratio.
func interleave(b *testing.B, workers int, floor, call func() error) {
	b.ReportAllocs()
	var n atomic.Int64
	var floorNs, callNs atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range workers {
		wg.Go(func() {
			for i := n.Add(1); i <= int64(b.N); i = n.Add(1) {
				// Alternate which goes first, so neither always runs on a
				// connection the other just warmed.
				first, second, fn, sn := floor, call, &floorNs, &callNs
				if (i+int64(w))%2 == 0 {
					first, second, fn, sn = call, floor, &callNs, &floorNs
				}
				t0 := time.Now()
				if err := first(); err != nil {
					b.Error(err)
					return
				}
				t1 := time.Now()
				if err := second(); err != nil {
					b.Error(err)
					return
				}
				fn.Add(int64(t1.Sub(t0)))
				sn.Add(int64(time.Since(t1)))
			}
		})
	}
	wg.Wait()
	f, c := float64(floorNs.Load())/float64(b.N), float64(callNs.Load())/float64(b.N)
	b.ReportMetric(f, "floor-ns/call")
	b.ReportMetric(c, "call-ns/call")
	b.ReportMetric(c/f, "call/floor")
}

// BenchmarkHTTPSequential compares one call at a time through HTTPConn
// and jsonrpc.Conn with bare POSTs of the same bytes to the same server by
// the same client (ns/op and B/op count one of each).
func BenchmarkHTTPSequential(b *testing.B) {
	s := newBenchServer(b)
	hc, conn := httpBenchConn(b, s.srv.URL)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	ctx := context.Background()
	interleave(b, 1,
		func() error { return bareCall(hc.client, s.srv.URL, body) },
		func() error { _, err := conn.Call(ctx, "ping", nil); return err })
}

// BenchmarkHTTPInFlight16 is BenchmarkHTTPSequential with 16 goroutines
// at once.
func BenchmarkHTTPInFlight16(b *testing.B) {
	s := newBenchServer(b)
	hc, conn := httpBenchConn(b, s.srv.URL)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	ctx := context.Background()
	interleave(b, 16,
		func() error { return bareCall(hc.client, s.srv.URL, body) },
		func() error { _, err := conn.Call(ctx, "ping", nil); return err })
}

// benchAnswers makes calls through jsonrpc.Conn over HTTPConn, workers at
// a time, to a server answering each POST with JSON or with an event
// stream, and reports the GC cycles per 2,000 calls besides.
func benchAnswers(b *testing.B, sse bool, workers int) {
	s := newBenchServer(b)
	s.sse = sse
	_, conn := httpBenchConn(b, s.srv.URL)
	ctx := context.Background()
	for range 20 { // connections made and warm
		if _, err := conn.Call(ctx, "ping", nil); err != nil {
			b.Fatal(err)
		}
	}
	var n atomic.Int64
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	gc0 := stats.NumGC
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for n.Add(1) <= int64(b.N) {
				if _, err := conn.Call(ctx, "ping", nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	runtime.ReadMemStats(&stats)
	b.ReportMetric(float64(stats.NumGC-gc0)*2000/float64(b.N), "gc/2000calls")
}

// The SSE benchmarks measure answers that come as an event stream (what
// most SDK servers send) against the same calls answered with JSON: here
// the "floor" of each is its JSON twin (scripts/bench.sh prints the ratio;
// issue 16 asks for at most 1.3x, and GC cycles at most 2x).

// BenchmarkSSEFloorSequential is one call at a time, answered with JSON.
func BenchmarkSSEFloorSequential(b *testing.B) { benchAnswers(b, false, 1) }

// BenchmarkSSESequential is one call at a time, answered with an event
// stream.
func BenchmarkSSESequential(b *testing.B) { benchAnswers(b, true, 1) }

// BenchmarkSSEFloorInFlight16 is 16 calls in flight, answered with JSON.
func BenchmarkSSEFloorInFlight16(b *testing.B) { benchAnswers(b, false, 16) }

// BenchmarkSSEInFlight16 is 16 calls in flight, answered with event
// streams.
func BenchmarkSSEInFlight16(b *testing.B) { benchAnswers(b, true, 16) }

// heapBytes is the memory held by heap objects (live or not yet swept).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakDuring runs f while sampling the heap, and returns the peak growth
// over the heap before f.
func peakDuring(f func()) uint64 {
	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if h := heapBytes(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	if h := heapBytes(); h > peak.Load() {
		peak.Store(h)
	}
	close(stop)
	<-done
	if peak.Load() < base {
		return 0
	}
	return peak.Load() - base
}

// BenchmarkHTTPBigResult receives an 8 MiB result as JSON and as SSE,
// reporting B/op and the peak heap growth as a multiple of the payload.
func BenchmarkHTTPBigResult(b *testing.B) {
	for _, sse := range []bool{false, true} {
		name := "json"
		if sse {
			name = "sse"
		}
		b.Run(name, func(b *testing.B) {
			s := newBenchServer(b)
			s.sse = sse
			_, conn := httpBenchConn(b, s.srv.URL)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(bigPayload)
			var worst uint64
			for b.Loop() {
				var res []byte
				p := peakDuring(func() {
					r, err := conn.Call(ctx, "big", nil)
					if err != nil {
						b.Fatal(err)
					}
					res = r
				})
				if len(res) < bigPayload {
					b.Fatalf("result of %d bytes", len(res))
				}
				worst = max(worst, p)
			}
			b.ReportMetric(float64(worst)/bigPayload, "peak/payload")
		})
	}
}
