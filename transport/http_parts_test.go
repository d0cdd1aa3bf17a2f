package transport

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestModernBigRequestInParts: a modern request whose params are big and
// in parts (a retry echoing a requestState) goes out as those parts, not
// joined first: with its Content-Length (not chunked), the same bytes as
// its encoding, and the same again when its broken answer stream has it
// re-issued.
func TestModernBigRequestInParts(t *testing.T) {
	var mu sync.Mutex
	var lengths []int64
	var chunked []bool
	m := newModernServer(t, func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int) {
		mu.Lock()
		lengths = append(lengths, r.ContentLength)
		chunked = append(chunked, len(r.TransferEncoding) > 0)
		mu.Unlock()
		if n == 1 {
			sseAnswer(w, req, "") // dropped before the response
			return
		}
		jsonAnswer(w, req, `{"resultType":"complete"}`)
	})
	c := m.connect(t)
	state := strings.Repeat("s", 200<<10)
	parts := [][]byte{[]byte(`{"name":"t","requestState":"`), []byte(state), []byte(`"}`)}
	msg := &jsonrpc.Request{ID: jsonrpc.Int64ID(9), Method: "tools/call", Parts: parts}
	want, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WriteEnvelope(ctx, msg, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Read(ctx); err != nil || got.(*jsonrpc.Response).ID.Raw() != "9" {
		t.Fatalf("%+v %v", got, err)
	}
	m.mu.Lock()
	reqs := m.reqs
	m.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (one re-issued)", len(reqs))
	}
	for i, r := range reqs {
		if string(r.Params) != `{"name":"t","requestState":"`+state+`"}` {
			t.Errorf("request %d: params of %d bytes, not the parts", i, len(r.Params))
		}
		if chunked[i] || lengths[i] <= 0 {
			t.Errorf("request %d: Content-Length %d, chunked %v", i, lengths[i], chunked[i])
		}
	}
	if lengths[0] != int64(len(want)) {
		t.Errorf("sent %d bytes, the encoding has %d", lengths[0], len(want))
	}
}

// TestHTTPBigRequestInParts: a legacy request with big params in parts
// goes out as those parts, and again the same when the server has
// forgotten the session (sent once more to the new one).
func TestHTTPBigRequestInParts(t *testing.T) {
	f := newFakeServer(t, &fakeServer{sessions: true})
	hc := dial(t, &HTTP{URL: f.url()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	initReq := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize", Params: []byte(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)}
	if err := hc.Write(ctx, initReq); err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Read(ctx); err != nil {
		t.Fatal(err)
	}
	hc.SetProtocolVersion("2025-11-25")
	f.expire()
	text := strings.Repeat("t", 300<<10)
	parts := [][]byte{[]byte(`{"text":"`), []byte(text), []byte(`"}`)}
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "echo", Parts: parts}); err != nil {
		t.Fatal(err)
	}
	m, err := hc.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || string(r.Result) != `{"text":"`+text+`"}` {
		t.Fatalf("echo answer of %d bytes, not the params", len(encode(t, m)))
	}
	echoes := f.find(func(h hit) bool { return h.RPCMethod == "echo" })
	if len(echoes) != 2 {
		t.Fatalf("echo sent %d times, want 2 (the session expired)", len(echoes))
	}
	for i, e := range echoes {
		if e.Params != `{"text":"`+text+`"}` {
			t.Errorf("echo %d: params of %d bytes, not the parts", i, len(e.Params))
		}
	}
}
