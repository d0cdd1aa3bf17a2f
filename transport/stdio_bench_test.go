package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The floor of these benchmarks is a bare newline echo through the same
// pipes to a helper process, with no JSON work: BenchmarkStdioFloor* against
// BenchmarkStdioCall* gives the cost of the JSON-RPC layers.

// stdioSmallParams is about the size of a small echo request.
var stdioSmallParams = json.RawMessage(`{"text":"hello, world"}`)

func stdioBenchConn(b *testing.B, helper string) *StdioConn {
	b.Helper()
	c, err := helperStdio(b, helper, nil).Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func stdioFloorLine(params json.RawMessage) []byte {
	line, _ := jsonrpc.AppendMessage(nil, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "echo", Params: params})
	return append(line, '\n')
}

func BenchmarkStdioFloorSequential(b *testing.B) {
	c := stdioBenchConn(b, "echo")
	r := bufio.NewReaderSize(c.stdout, 64<<10) // bare: no copy of the line
	line := stdioFloorLine(stdioSmallParams)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.stdin.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdioCallSequential(b *testing.B) {
	conn := jsonrpc.NewConn(stdioBenchConn(b, "jsonecho"), nil)
	defer conn.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := conn.Call(ctx, "echo", stdioSmallParams); err != nil {
			b.Fatal(err)
		}
	}
}

const stdioInFlight = 16

// BenchmarkFloor16InFlight pipelines lines with at most 16 unanswered.
func BenchmarkStdioFloor16InFlight(b *testing.B) {
	c := stdioBenchConn(b, "echo")
	r := bufio.NewReaderSize(c.stdout, 64<<10)
	line := stdioFloorLine(stdioSmallParams)
	sem := make(chan struct{}, stdioInFlight)
	b.ReportAllocs()
	b.ResetTimer()
	done := make(chan error, 1)
	go func() {
		for i := 0; i < b.N; i++ {
			if _, err := r.ReadSlice('\n'); err != nil {
				done <- err
				return
			}
			<-sem
		}
		done <- nil
	}()
	for i := 0; i < b.N; i++ {
		sem <- struct{}{}
		if _, err := c.stdin.Write(line); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

func BenchmarkStdioCall16InFlight(b *testing.B) {
	conn := jsonrpc.NewConn(stdioBenchConn(b, "jsonecho"), nil)
	defer conn.Close()
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range stdioInFlight {
		wg.Go(func() {
			for n.Add(1) <= int64(b.N) {
				if _, err := conn.Call(ctx, "echo", stdioSmallParams); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

const stdioBigSize = 8 << 20

func stdioBigParams() json.RawMessage {
	return json.RawMessage(`["` + string(bytes.Repeat([]byte("x"), stdioBigSize)) + `"]`)
}

// readBare reads one line of any length through r and keeps none of it:
// the bytes pass through r's buffer only.
func readBare(r *bufio.Reader) (int, error) {
	n := 0
	for {
		b, err := r.ReadSlice('\n')
		n += len(b)
		if err != bufio.ErrBufferFull {
			return n, err
		}
	}
}

// bigResultLen is the length of helperBig's result.
var bigResultLen = len(`{"content":[{"type":"text","text":""}]}`) + bigText

// BenchmarkStdioFloor8MiB sends a small request line to helperBig and reads
// its 8 MiB answer line bare.
func BenchmarkStdioFloor8MiB(b *testing.B) {
	c := stdioBenchConn(b, "big")
	r := bufio.NewReaderSize(c.stdout, 64<<10)
	line := stdioFloorLine(stdioSmallParams)
	want := len(`{"jsonrpc":"2.0","id":1,"result":}`+"\n") + bigResultLen
	b.SetBytes(int64(want))
	b.ReportAllocs()
	op := func() {
		if _, err := c.stdin.Write(line); err != nil {
			b.Fatal(err)
		}
		if n, err := readBare(r); err != nil || n != want {
			b.Fatal(n, err)
		}
	}
	for b.Loop() {
		op()
	}
	peakheap.Report(b, stdioBigSize, op)
}

// BenchmarkStdioCall8MiB calls helperBig for its 8 MiB result.
func BenchmarkStdioCall8MiB(b *testing.B) {
	conn := jsonrpc.NewConn(stdioBenchConn(b, "big"), nil)
	defer conn.Close()
	ctx := context.Background()
	b.SetBytes(int64(bigResultLen))
	b.ReportAllocs()
	op := func() {
		res, err := conn.Call(ctx, "tools/call", stdioSmallParams)
		if err != nil || len(res) != bigResultLen {
			b.Fatal(len(res), err)
		}
	}
	for b.Loop() {
		op()
	}
	peakheap.Report(b, stdioBigSize, op)
}

// BenchmarkStdioEchoFloor8MiB echoes an 8 MiB line through a bare newline
// echo and reads it back bare.
func BenchmarkStdioEchoFloor8MiB(b *testing.B) {
	c := stdioBenchConn(b, "echo")
	r := bufio.NewReaderSize(c.stdout, 64<<10)
	line := stdioFloorLine(stdioBigParams())
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	wrote := make(chan error, 1)
	op := func() {
		go func() { // the pipe holds 64 KiB: write while reading
			_, err := c.stdin.Write(line)
			wrote <- err
		}()
		n, err := readBare(r)
		if werr := <-wrote; werr != nil {
			b.Fatal(werr)
		}
		if err != nil || n != len(line) {
			b.Fatal(n, err)
		}
	}
	for b.Loop() {
		op()
	}
	peakheap.Report(b, stdioBigSize, op)
}

// BenchmarkStdioEcho8MiB sends 8 MiB params to the JSON echo and gets them
// back as the result: 8 MiB each way, and the helper decodes JSON too.
func BenchmarkStdioEcho8MiB(b *testing.B) {
	conn := jsonrpc.NewConn(stdioBenchConn(b, "jsonecho"), nil)
	defer conn.Close()
	params := stdioBigParams()
	ctx := context.Background()
	b.SetBytes(int64(len(params)))
	b.ReportAllocs()
	op := func() {
		res, err := conn.Call(ctx, "echo", params)
		if err != nil || len(res) != len(params) {
			b.Fatal(len(res), err)
		}
	}
	for b.Loop() {
		op()
	}
	peakheap.Report(b, stdioBigSize, op)
}
