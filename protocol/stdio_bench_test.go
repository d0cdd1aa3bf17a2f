package protocol_test

// Benchmarks of the whole stack (protocol over jsonrpc over the stdio
// transport) against a real child process: this test binary, re-executed
// as a canned server when MCPWIRE_PROTOCOL_BENCH_SERVER=1. The canned
// server does no JSON work at all: it answers each request line with
// prebuilt bytes and the request's id spliced in, so that the figures
// measure the client.
//
// Each BenchmarkStdio<X> is floored (see scripts/bench.sh) by
// BenchmarkStdioFloor<X>: the same child and the same kind of pipes, a
// prebuilt request line written and the answer line read bare, with no
// JSON work on our side either.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peakheap"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

const benchServerEnv = "MCPWIRE_PROTOCOL_BENCH_SERVER"

// benchMaxMessage lets a result of 256 MiB through, with its envelope.
const benchMaxMessage = 257 << 20

const (
	benchTools    = 5000
	benchPageSize = 100
	benchBigSize  = 8 << 20
	benchInFlight = 16
)

// benchServer is the canned server's answers, built once at its start:
// each answer is the bytes that follow the request's id.
type benchServer struct {
	modern     bool // answers server/discover (the 2026-07-28 era)
	discover   []byte
	modernEcho []byte // echo's answer as a modern server gives it
	initialize []byte
	pages      [][]byte
	echo       []byte
	big        []byte
	empty      []byte
	sized      map[int][]byte // answers of the tool "sized", by size
}

func newBenchServer(modern bool) *benchServer {
	return &benchServer{
		modern:     modern,
		discover:   []byte(`,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}}` + "\n"),
		modernEcho: []byte(`,"result":{"content":[{"type":"text","text":"hello"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}}` + "\n"),
		initialize: []byte(`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1"}}}` + "\n"),
		pages:      benchToolPages(benchTools, benchPageSize),
		echo:       []byte(`,"result":{"content":[{"type":"text","text":"hello"}]}}` + "\n"),
		big:        bigAnswer(benchBigSize),
		empty:      []byte(`,"result":{}}` + "\n"),
	}
}

// bigAnswer is the rest of an answer whose result is one text of n bytes.
func bigAnswer(n int) []byte {
	return []byte(`,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}` + "\n")
}

// benchToolPages builds the answers to tools/list: n tools in pages of
// size, page k reached with the cursor "c<k>".
func benchToolPages(n, size int) [][]byte {
	var pages [][]byte
	for p := 0; p*size < n; p++ {
		var sb strings.Builder
		sb.WriteString(`,"result":{"tools":[`)
		for i := 0; i < size && p*size+i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"name":"tool_%d_%d","description":"does thing %d","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"the text"},"n":{"type":"integer"}},"required":["text"]}}`, p, i, i)
		}
		sb.WriteByte(']')
		if (p+1)*size < n {
			fmt.Fprintf(&sb, `,"nextCursor":"c%d"`, p+1)
		}
		sb.WriteString("}}\n")
		pages = append(pages, []byte(sb.String()))
	}
	return pages
}

// answer returns the bytes that follow the id in the answer to line.
func (s *benchServer) answer(line []byte) []byte {
	switch {
	case s.modern && bytes.Contains(line, []byte(`"method":"server/discover"`)):
		return s.discover
	case bytes.Contains(line, []byte(`"method":"initialize"`)):
		return s.initialize
	case bytes.Contains(line, []byte(`"method":"tools/list"`)):
		page := 0
		if i := bytes.Index(line, []byte(`"cursor":"c`)); i >= 0 {
			rest := line[i+len(`"cursor":"c`):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				page, _ = strconv.Atoi(string(rest[:j]))
			}
		}
		if page < 0 || page >= len(s.pages) {
			page = 0
		}
		return s.pages[page]
	case bytes.Contains(line, []byte(`"method":"tools/call"`)):
		if bytes.Contains(line, []byte(`"name":"big"`)) {
			return s.big
		}
		if i := bytes.Index(line, []byte(`"size":`)); i >= 0 && bytes.Contains(line, []byte(`"name":"sized"`)) {
			n, _ := strconv.Atoi(string(bytes.TrimRight(line[i+len(`"size":`):], "}\n")))
			if s.sized == nil {
				s.sized = map[int][]byte{}
			}
			if s.sized[n] == nil {
				clear(s.sized) // one size at a time: the child's memory stays small
				s.sized[n] = bigAnswer(n)
			}
			return s.sized[n]
		}
		if s.modern {
			return s.modernEcho
		}
		return s.echo
	default:
		return s.empty
	}
}

// benchServerMain is the canned server: it reads request lines from in
// and answers each request on out; notifications get no answer. Answers
// are flushed when no further request is buffered, so that pipelined
// requests get their answers batched, as from a real server.
func benchServerMain(era string, in io.Reader, out io.Writer) int {
	s := newBenchServer(era == "modern")
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	prefix := []byte(`{"jsonrpc":"2.0","id":`)
	var long []byte // a line longer than r's buffer, gathered
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			long = append(long, line...)
			line, long = long, nil
		}
		if len(line) > 0 {
			if i := bytes.Index(line, []byte(`"id":`)); i >= 0 {
				id := line[i+len(`"id":`):]
				if j := bytes.IndexAny(id, ",}"); j >= 0 {
					id = id[:j]
				}
				w.Write(prefix)
				w.Write(id)
				w.Write(s.answer(line))
			}
		}
		if err != nil || r.Buffered() == 0 {
			if ferr := w.Flush(); ferr != nil {
				return 1
			}
		}
		if err != nil {
			return 0 // stdin ended
		}
	}
}

// benchServerEnvList is the canned server's environment; era "modern"
// makes it answer server/discover, any other a legacy server.
func benchServerEnvList(era string) []string {
	return transport.ChildEnv(os.Environ(), map[string]string{benchServerEnv: era})
}

func benchExe(b *testing.B) string {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return exe
}

// benchSession starts the canned server through the stdio transport and
// initializes a session; the cleanups close it and check that no process
// is left.
func benchSession(b *testing.B) *protocol.Session { return benchSessionEra(b, "legacy") }

// benchSessionEra is benchSession with a server of era ("legacy" or
// "modern").
func benchSessionEra(b *testing.B, era string) *protocol.Session {
	b.Helper()
	proctest.Check(b)
	st := &transport.Stdio{Command: benchExe(b), Args: []string{"-test.run=^$"}, Env: benchServerEnvList(era),
		MaxMessageBytes: benchMaxMessage}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := st.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s, err := protocol.Connect(ctx, conn, nil)
	if err != nil {
		conn.Close()
		b.Fatalf("connect: %v\nstderr: %s", err, conn.StderrTail())
	}
	if got := string(s.Era()); got != era {
		b.Fatalf("the session speaks the %s era, want %s", got, era)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// A floorChild is the canned server started bare with os/exec: the floor
// writes request lines to in and reads answer lines from out.
type floorChild struct {
	in  io.Writer
	out *bufio.Reader
}

func startFloorChild(b *testing.B) *floorChild {
	b.Helper()
	proctest.Check(b)
	cmd := exec.Command(benchExe(b), "-test.run=^$")
	cmd.Env = benchServerEnvList("legacy")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		cmd.Process.Kill() // it may be blocked writing an answer nobody reads
		cmd.Wait()
	})
	return &floorChild{in: in, out: bufio.NewReaderSize(out, 64<<10)}
}

// roundTrip writes line and reads one answer line, whatever its length,
// without keeping it.
func (c *floorChild) roundTrip(b *testing.B, line []byte) {
	if _, err := c.in.Write(line); err != nil {
		b.Fatal(err)
	}
	if err := c.skipLine(); err != nil {
		b.Fatal(err)
	}
}

func (c *floorChild) skipLine() error {
	for {
		_, err := c.out.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

// initialize does the handshake a session does, bare.
func (c *floorChild) initialize(b *testing.B) {
	c.roundTrip(b, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n"))
	if _, err := io.WriteString(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
}

var (
	floorEchoLine = []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n")
	floorBigLine  = []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"big"}}` + "\n")
)

// floorListLines are the 50 requests a listing sends: the first page
// with no cursor, then c1, c2, ….
func floorListLines() [][]byte {
	lines := [][]byte{[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")}
	for p := 1; p*benchPageSize < benchTools; p++ {
		lines = append(lines, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"cursor":"c%d"}}`+"\n", p+2, p))
	}
	return lines
}

// BenchmarkStdioFloorSequential is the floor of sequential calls: one
// echo request line written, its answer line read, at a time.
func BenchmarkStdioFloorSequential(b *testing.B) {
	c := startFloorChild(b)
	c.initialize(b)
	b.ReportAllocs()
	for b.Loop() {
		c.roundTrip(b, floorEchoLine)
	}
}

// BenchmarkStdioHopSequential is the floor plus the one thing the design
// adds before any JSON work: a reader goroutine that reads each answer
// and hands it to the waiting caller (DESIGN.md: one reader goroutine).
// Its ratio to BenchmarkStdioFloorSequential is what that handoff costs on
// this machine; BenchmarkStdioCallToolSequential over it, what the rest of
// the stack costs.
func BenchmarkStdioHopSequential(b *testing.B) {
	c := startFloorChild(b)
	c.initialize(b)
	answers := make(chan error)
	go func() {
		for {
			err := c.skipLine()
			answers <- err
			if err != nil {
				return
			}
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.in.Write(floorEchoLine); err != nil {
			b.Fatal(err)
		}
		if err := <-answers; err != nil {
			b.Fatal(err)
		}
	}
	c.in.(io.Closer).Close() // the child ends, and with it the reader
	for err := range answers {
		if err != nil {
			break
		}
	}
}

// BenchmarkStdioInlineSequential is the other half of that split: the
// JSON work of a call (the request encoded, the answer line kept, checked,
// decoded and its text taken) done by the caller itself, with no reader
// goroutine and no handoff.
func BenchmarkStdioInlineSequential(b *testing.B) {
	c := startFloorChild(b)
	c.initialize(b)
	args := map[string]string{"text": "hello"}
	var line []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		a, err := jsonrpc.MarshalParams(args)
		if err != nil {
			b.Fatal(err)
		}
		params := jsonrpc.AppendString([]byte(`{"name":`), "echo")
		params = append(append(append(params, `,"arguments":`...), a...), '}')
		line, err = jsonrpc.AppendMessage(line[:0], &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i + 2)), Method: "tools/call", Params: params})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.in.Write(append(line, '\n')); err != nil {
			b.Fatal(err)
		}
		answer, err := c.out.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		msgs, err := jsonrpc.DecodeMessage(bytes.Clone(answer[:len(answer)-1]))
		if err != nil {
			b.Fatal(err)
		}
		cur := msgs[0].(*jsonrpc.Response).Cursor()
		var text string
		err = cur.Object(func(key []byte) error {
			if string(key) != "content" {
				return nil
			}
			return cur.Array(func() error {
				return cur.Object(func(key []byte) error {
					if string(key) == "text" {
						text, err = cur.String()
					}
					return err
				})
			})
		})
		if err != nil || text != "hello" {
			b.Fatalf("text %q, %v", text, err)
		}
	}
}

func BenchmarkStdioCallToolSequential(b *testing.B) {
	s := benchSession(b)
	ctx := context.Background()
	args := map[string]string{"text": "hello"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdioModernCallToolSequential is BenchmarkStdioCallToolSequential
// in the 2026-07-28 era: every request carries the session's _meta.
func BenchmarkStdioModernCallToolSequential(b *testing.B) {
	s := benchSessionEra(b, "modern")
	ctx := context.Background()
	args := map[string]string{"text": "hello"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdioFloor16InFlight is the floor of 16 calls in flight: echo
// request lines written with at most 16 unanswered, a reader goroutine
// reading the answers.
func BenchmarkStdioFloor16InFlight(b *testing.B) {
	c := startFloorChild(b)
	c.initialize(b)
	sem := make(chan struct{}, benchInFlight)
	b.ReportAllocs()
	b.ResetTimer()
	done := make(chan error, 1)
	go func() {
		for i := 0; i < b.N; i++ {
			if err := c.skipLine(); err != nil {
				done <- err
				return
			}
			<-sem
		}
		done <- nil
	}()
	for i := 0; i < b.N; i++ {
		select {
		case sem <- struct{}{}:
		case err := <-done:
			b.Fatalf("reading answers: %v", err)
		}
		if _, err := c.in.Write(floorEchoLine); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

func BenchmarkStdioCallTool16InFlight(b *testing.B) {
	s := benchSession(b)
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range benchInFlight {
		wg.Go(func() {
			args := map[string]string{"text": "hello"}
			for n.Add(1) <= int64(b.N) {
				if _, err := s.CallTool(ctx, "echo", args, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkStdioFloorList5000 is the floor of listing 5,000 tools: the 50
// tools/list requests a listing sends, one at a time, each page read bare.
func BenchmarkStdioFloorList5000(b *testing.B) {
	c := startFloorChild(b)
	c.initialize(b)
	lines := floorListLines()
	if len(lines) != benchTools/benchPageSize {
		b.Fatalf("%d list requests, want %d", len(lines), benchTools/benchPageSize)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, line := range lines {
			c.roundTrip(b, line)
		}
	}
}

func BenchmarkStdioToolsList5000(b *testing.B) {
	s := benchSession(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tools, err := s.ListTools(ctx)
		if err != nil || len(tools) != benchTools {
			b.Fatal(len(tools), err)
		}
	}
}

// BenchmarkStdioFloor8MiB is the floor of one 8 MiB result: the request
// written, the 8 MiB answer line read bare (nothing kept).
func BenchmarkStdioFloor8MiB(b *testing.B) {
	c := startFloorChild(b)
	c.initialize(b)
	b.SetBytes(benchBigSize)
	b.ReportAllocs()
	for b.Loop() {
		c.roundTrip(b, floorBigLine)
	}
	peakheap.Report(b, benchBigSize, func() { c.roundTrip(b, floorBigLine) })
}

func BenchmarkStdioCallTool8MiB(b *testing.B) {
	s := benchSession(b)
	ctx := context.Background()
	call := func() {
		res, err := s.CallTool(ctx, "big", nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Content) != 1 || len(res.Content[0].Text) != benchBigSize {
			b.Fatalf("got %d contents, want one of %d bytes", len(res.Content), benchBigSize)
		}
	}
	b.SetBytes(benchBigSize)
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
	peakheap.Report(b, benchBigSize, call)
}

// BenchmarkStdioModernToolsList5000 is BenchmarkStdioToolsList5000 in the
// 2026-07-28 era (every page's request carries the session's _meta).
func BenchmarkStdioModernToolsList5000(b *testing.B) {
	s := benchSessionEra(b, "modern")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		tools, err := s.ListTools(ctx)
		if err != nil || len(tools) != benchTools {
			b.Fatal(len(tools), err)
		}
	}
}
