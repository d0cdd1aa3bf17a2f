package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// A stdioHost is a host on the stdio of an in-process `mcpwire proxy`:
// it writes requests on the proxy's stdin and reads its stdout, which
// must hold nothing but the MCP stream.
type stdioHost struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  *bufio.Scanner
	out    strings.Builder // every line read from stdout
	early  []string        // answers read while waiting for another
	errb   *safeBuffer     // the proxy's stderr
	done   chan int
	cancel context.CancelFunc
}

// startProxy runs `mcpwire proxy ARGS…` in r's home with a host on its
// stdio.
func startProxy(t *testing.T, r *runner, args ...string) *stdioHost {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &stdioHost{t: t, in: inW, lines: bufio.NewScanner(outR), errb: &safeBuffer{}, done: make(chan int, 1)}
	h.lines.Buffer(nil, 1<<20)
	exe, _ := os.Executable()
	env := Env{Stdin: inR, Stdout: outW, Stderr: h.errb, Dir: r.home, Home: r.home,
		Getenv: func(k string) string { return r.env[k] }, Executable: exe}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	h.cancel = cancel
	go func() {
		h.done <- Main(ctx, append([]string{"proxy"}, args...), env)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-h.done
	})
	return h
}

// send writes one line to the proxy.
func (h *stdioHost) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("writing to proxy: %v\n%s", err, h.errb.String())
	}
}

// answer reads up to the answer to id.
func (h *stdioHost) answer(id int) string {
	h.t.Helper()
	want := `"id":` + strings.TrimSpace(string(mustJSONText(id))) + `,`
	for i, l := range h.early {
		if strings.Contains(l, want) {
			h.early = append(h.early[:i], h.early[i+1:]...)
			return l
		}
	}
	for h.lines.Scan() {
		l := h.lines.Text()
		h.out.WriteString(l + "\n")
		if strings.Contains(l, want) {
			return l
		}
		if strings.Contains(l, `"id":`) {
			h.early = append(h.early, l) // another request's, read first
		}
	}
	h.t.Fatalf("no answer %d from proxy:\n%s\n%s", id, h.out.String(), h.errb.String())
	return ""
}

// initialize starts the host's session.
func (h *stdioHost) initialize() {
	h.t.Helper()
	h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	h.answer(1)
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// echo calls the demo's echo tool as request id and fails unless the
// answer holds text.
func (h *stdioHost) echo(id int, text string) {
	h.t.Helper()
	h.sendEcho(id, text)
	h.echoed(id, text)
}

// sendEcho sends the call of echo; echoed reads its answer.
func (h *stdioHost) sendEcho(id int, text string) {
	h.t.Helper()
	h.send(`{"jsonrpc":"2.0","id":` + string(mustJSONText(id)) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
}

func (h *stdioHost) echoed(id int, text string) {
	h.t.Helper()
	if a := h.answer(id); !strings.Contains(a, text) || strings.Contains(a, `"isError":true`) || strings.Contains(a, `"error":`) {
		h.t.Fatalf("call %d through proxy: %s\n%s", id, a, h.errb.String())
	}
}

// end closes the proxy's stdin and wants exit 0; it returns all the
// proxy wrote.
func (h *stdioHost) end() string {
	h.t.Helper()
	h.in.Close()
	if code := <-h.done; code != 0 {
		h.t.Fatalf("proxy exit %d:\n%s", code, h.errb.String())
	}
	h.done <- 0 // for the cleanup
	return h.out.String() + h.errb.String()
}

// safeBuffer is a bytes.Buffer that may be written while it is read.
type safeBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed at the next write
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wrote != nil {
		close(b.wrote)
		b.wrote = nil
	}
	return b.b.Write(p)
}

// waitMatch waits, at most d, until what was written matches re, and
// returns the match ("" when the time ran out).
func (b *safeBuffer) waitMatch(re *regexp.Regexp, d time.Duration) string {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		m := re.FindString(b.b.String())
		if m == "" && b.wrote == nil {
			b.wrote = make(chan struct{})
		}
		wrote := b.wrote
		b.mu.Unlock()
		if m != "" {
			return m
		}
		select {
		case <-wrote:
		case <-deadline.C:
			return ""
		}
	}
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
