package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// helperBigLine writes one notification line of MCPWIRE_TEST_BIG_BYTES
// bytes (a text param of 'x's), then waits for stdin to end.
func helperBigLine() int {
	n, _ := strconv.Atoi(os.Getenv("MCPWIRE_TEST_BIG_BYTES"))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	head := `{"jsonrpc":"2.0","method":"big","params":{"text":"`
	tail := `"}}` + "\n"
	w.WriteString(head)
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for left := n - len(head) - len(tail); left > 0; {
		k := min(left, len(chunk))
		w.Write(chunk[:k])
		left -= k
	}
	w.WriteString(tail)
	w.Flush()
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
	return 0
}

// allocated returns the bytes allocated on the heap so far.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// TestStdioBigLineMemory reads a 64 MiB line from a server: the heap
// allocated while reading and decoding it (an upper bound of the most
// held at once) stays within 3 times the line.
func TestStdioBigLineMemory(t *testing.T) {
	proctest.Check(t)
	const n = 64 << 20
	c := connect(t, helperStdio(t, "bigline", map[string]string{"MCPWIRE_TEST_BIG_BYTES": strconv.Itoa(n)}))
	runtime.GC()
	before := allocated()
	m, err := c.Read(context.Background())
	got := allocated() - before
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(m)
	t.Logf("a %d MiB line: %.2f× its size allocated while read and decoded", n>>20, float64(got)/n)
	if got > 3*n {
		t.Errorf("reading a line of %d bytes allocated %d bytes (%.2f×), more than 3×", n, got, float64(got)/n)
	}
}

// helperEndless writes 'x' to stdout without end: a line that never ends.
func helperEndless() int {
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	for {
		if _, err := os.Stdout.Write(chunk); err != nil {
			return 0
		}
	}
}

// TestStdioLineOverTheLimit: a line longer than MaxMessageBytes, or one
// that never ends, fails the connection with an error that names the
// limit, having held no more than about the limit.
func TestStdioLineOverTheLimit(t *testing.T) {
	const limit = 1 << 20
	for _, tc := range []struct {
		name   string
		helper string
		env    map[string]string
	}{
		{"a long line", "bigline", map[string]string{"MCPWIRE_TEST_BIG_BYTES": strconv.Itoa(2 * limit)}},
		{"an endless line", "endless", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proctest.Check(t)
			s := helperStdio(t, tc.helper, tc.env)
			s.MaxMessageBytes = limit
			s.CloseWait, s.TermWait = 100*time.Millisecond, 100*time.Millisecond
			c := connect(t, s)
			runtime.GC()
			before := allocated()
			_, err := c.Read(context.Background())
			got := allocated() - before
			var tl *TooLargeError
			if !errors.As(err, &tl) || tl.Limit != limit || !strings.Contains(err.Error(), "larger than the limit of 1 MiB") {
				t.Fatalf("Read: %v, want a *TooLargeError naming the limit of 1 MiB", err)
			}
			if got > 4*limit {
				t.Errorf("%d bytes allocated before giving up at a limit of %d", got, limit)
			}
			if _, err2 := c.Read(context.Background()); !errors.As(err2, &tl) {
				t.Errorf("the Read after: %v, want the same failure", err2)
			}
		})
	}
}

// TestHTTPBodyOverTheLimit answers a request with a JSON body larger than
// MaxMessageBytes, with and without Content-Length: the request fails with
// an error naming the limit.
func TestHTTPBodyOverTheLimit(t *testing.T) {
	const limit = 64 << 10
	for _, withLength := range []bool{true, false} {
		t.Run(fmt.Sprintf("Content-Length %v", withLength), func(t *testing.T) {
			f := newFakeServer(t, &fakeServer{})
			f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
				body := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{"text":"` + strings.Repeat("x", 2*limit) + `"}}`
				w.Header().Set("Content-Type", "application/json")
				if withLength {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				io.WriteString(w, body)
				return true
			}
			hc := dial(t, &HTTP{URL: f.url(), MaxMessageBytes: limit})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "big"})
			var tl *TooLargeError
			if !errors.As(err, &tl) || !strings.Contains(err.Error(), "larger than the limit of 64 KiB") {
				t.Fatalf("Write: %v, want a *TooLargeError naming the limit", err)
			}
		})
	}
}

// TestSSEEndlessEvent answers a request with an event stream whose event
// never ends (data lines without end): the connection fails with an error
// naming the limit, and what was held stays about the limit.
func TestSSEEndlessEvent(t *testing.T) {
	const limit = 1 << 20
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		line := "data: " + strings.Repeat("x", 1000) + "\n"
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, line); err != nil {
				break
			}
		}
		return true
	}
	hc := dial(t, &HTTP{URL: f.url(), MaxMessageBytes: limit})
	conn := jsonrpc.NewConn(hc, nil)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runtime.GC()
	before := allocated()
	_, err := conn.Call(ctx, "x", nil)
	got := allocated() - before
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "larger than the limit of 1 MiB") {
		t.Fatalf("Call: %v, want a *TooLargeError naming the limit", err)
	}
	if got > 8*limit {
		t.Errorf("%d bytes allocated before giving up at a limit of %d", got, limit)
	}
}
