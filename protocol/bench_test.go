package protocol

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A pipeServer answers requests over real OS pipes from canned bytes, with
// as little work as possible, so that benchmarks measure the client.
type pipeServer struct {
	cr, cw *os.File // the client's ends: it reads cr, writes cw
	sr, sw *os.File // the server's ends
	wg     sync.WaitGroup
}

// newPipeServer starts a server whose answer to a request line is
// answer(line) with the request's id spliced in: the answer is given as
// the bytes before and after the id.
func newPipeServer(b *testing.B, answer func(line []byte) (before, after []byte)) *pipeServer {
	p := &pipeServer{}
	var err error
	if p.sr, p.cw, err = os.Pipe(); err != nil {
		b.Fatal(err)
	}
	if p.cr, p.sw, err = os.Pipe(); err != nil {
		b.Fatal(err)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer p.sw.Close()
		r := bufio.NewReaderSize(p.sr, 64<<10)
		w := bufio.NewWriterSize(p.sw, 64<<10)
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			i := bytes.Index(line, []byte(`"id":`))
			if i < 0 {
				continue // a notification
			}
			id := line[i+5:]
			id = id[:bytes.IndexAny(id, ",}")]
			before, after := answer(line)
			w.Write(before)
			w.Write(id)
			w.Write(after)
			if r.Buffered() == 0 {
				w.Flush()
			}
		}
	}()
	b.Cleanup(func() {
		p.cw.Close()
		p.wg.Wait()
		p.sr.Close()
		p.cr.Close()
	})
	return p
}

func (p *pipeServer) session(b *testing.B, answer func(line []byte) (before, after []byte)) *Session {
	s, err := Connect(context.Background(), jsonrpcLineStream(p.cr, p.cw), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// router answers initialize, tools/list pages and tools/call; it is a
// legacy server: server/discover is a method it does not have.
func router(pages [][]byte, callResult []byte) func(line []byte) (before, after []byte) {
	return func(line []byte) ([]byte, []byte) {
		switch {
		case bytes.Contains(line, []byte(`"method":"server/discover"`)):
			return []byte(`{"jsonrpc":"2.0","id":`), []byte(`,"error":{"code":-32601,"message":"method not found"}}` + "\n")
		case bytes.Contains(line, []byte(`"method":"initialize"`)):
			return []byte(`{"jsonrpc":"2.0","id":`), []byte(`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"b","version":"1"}}}` + "\n")
		case bytes.Contains(line, []byte(`"method":"tools/list"`)):
			page := 0
			if i := bytes.Index(line, []byte(`"cursor":"c`)); i >= 0 {
				fmt.Sscanf(string(line[i+11:]), "%d", &page)
			}
			return []byte(`{"jsonrpc":"2.0","id":`), pages[page]
		default:
			return []byte(`{"jsonrpc":"2.0","id":`), callResult
		}
	}
}

func toolPages(n, size int) [][]byte {
	var pages [][]byte
	for p := 0; p*size < n; p++ {
		var sb strings.Builder
		sb.WriteString(`,"result":{"tools":[`)
		for i := 0; i < size; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"name":"tool_%d_%d","description":"does thing %d","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"the text"},"n":{"type":"integer"}},"required":["text"]}}`, p, i, i)
		}
		sb.WriteString(`]`)
		if (p+1)*size < n {
			fmt.Fprintf(&sb, `,"nextCursor":"c%d"`, p+1)
		}
		sb.WriteString("}}\n")
		pages = append(pages, []byte(sb.String()))
	}
	return pages
}

func benchSession(b *testing.B, pages [][]byte, callResult []byte) *Session {
	ans := router(pages, callResult)
	p := newPipeServer(b, ans)
	return p.session(b, ans)
}

const echoResult = `,"result":{"content":[{"type":"text","text":"hello"}]}}` + "\n"

// BenchmarkFloorSequential is the floor: the same request and answer lines
// through the same kind of pipes, with no JSON work.
func BenchmarkFloorSequential(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n")
	p := newPipeServer(b, func([]byte) ([]byte, []byte) { return []byte(`{"jsonrpc":"2.0","id":`), []byte(echoResult) })
	r := bufio.NewReader(p.cr)
	b.ResetTimer()
	for b.Loop() {
		p.cw.Write(req)
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFloor16InFlight is the floor of 16 calls in flight: the same
// request lines written 16 at a time, then their 16 answers read, with no
// JSON work.
func BenchmarkFloor16InFlight(b *testing.B) {
	req := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n")
	p := newPipeServer(b, func([]byte) ([]byte, []byte) { return []byte(`{"jsonrpc":"2.0","id":`), []byte(echoResult) })
	r := bufio.NewReader(p.cr)
	batch := bytes.Repeat(req, 16)
	b.ResetTimer()
	for i := 0; i < b.N; i += 16 {
		p.cw.Write(batch)
		for range 16 {
			if _, err := r.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkCallToolSequential(b *testing.B) {
	s := benchSession(b, nil, []byte(echoResult))
	ctx := context.Background()
	args := map[string]string{"text": "hello"}
	for b.Loop() {
		if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallTool16InFlight(b *testing.B) {
	s := benchSession(b, nil, []byte(echoResult))
	ctx := context.Background()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		args := map[string]string{"text": "hello"}
		for pb.Next() {
			if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkToolsList5000(b *testing.B) {
	s := benchSession(b, toolPages(5000, 100), nil)
	ctx := context.Background()
	for b.Loop() {
		tools, err := s.ListTools(ctx)
		if err != nil || len(tools) != 5000 {
			b.Fatal(len(tools), err)
		}
	}
}

// BenchmarkFloorList5000 moves the same 50 pages with no JSON work.
func BenchmarkFloorList5000(b *testing.B) {
	pages := toolPages(5000, 100)
	p := newPipeServer(b, router(pages, nil))
	r := bufio.NewReaderSize(p.cr, 64<<10)
	for b.Loop() {
		for i := range pages {
			fmt.Fprintf(p.cw, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"cursor":"c%d"}}`+"\n", i+1, i)
			if err := skipLine(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func bigResult(n int) []byte {
	return []byte(`,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}` + "\n")
}

func BenchmarkCallTool8MiB(b *testing.B) {
	const n = 8 << 20
	s := benchSession(b, nil, bigResult(n))
	ctx := context.Background()
	b.SetBytes(n)
	for b.Loop() {
		res, err := s.CallTool(ctx, "big", nil, nil)
		if err != nil || len(res.Content[0].Text) != n {
			b.Fatal(err)
		}
	}
}

func BenchmarkFloor8MiB(b *testing.B) {
	const n = 8 << 20
	big := bigResult(n)
	p := newPipeServer(b, func([]byte) ([]byte, []byte) { return []byte(`{"jsonrpc":"2.0","id":`), big })
	r := bufio.NewReaderSize(p.cr, 64<<10)
	b.SetBytes(n)
	for b.Loop() {
		io.WriteString(p.cw, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`+"\n")
		if err := skipLine(r); err != nil {
			b.Fatal(err)
		}
	}
}

// skipLine reads one line of any length through r and keeps none of it.
func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

func jsonrpcLineStream(r *os.File, w *os.File) jsonrpc.Stream {
	return jsonrpc.NewLineStream(r, w, closers{r, w})
}

type closers []io.Closer

func (c closers) Close() error {
	for _, x := range c {
		x.Close()
	}
	return nil
}
