package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A modernServer records the modern requests it gets and answers each
// through answer.
type modernServer struct {
	srv    *httptest.Server
	answer func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int)

	mu      sync.Mutex
	headers []http.Header
	reqs    []*jsonrpc.Request
	gets    int
	done    chan string // the ids of requests whose client went away
}

func newModernServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int)) *modernServer {
	m := &modernServer{answer: answer, done: make(chan string, 16)}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			m.mu.Lock()
			m.gets++
			m.mu.Unlock()
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msgs, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			t.Errorf("the client sent %q: %v", body, err)
			return
		}
		req := msgs[0].(*jsonrpc.Request)
		m.mu.Lock()
		m.headers = append(m.headers, r.Header.Clone())
		m.reqs = append(m.reqs, req)
		n := len(m.reqs)
		m.mu.Unlock()
		m.answer(w, r, req, n)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *modernServer) url() string { return m.srv.URL + "/mcp" }

// connect connects to m.
func (m *modernServer) connect(t *testing.T) *HTTPConn {
	c, err := (&HTTP{URL: m.url()}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// jsonAnswer answers req with result.
func jsonAnswer(w http.ResponseWriter, req *jsonrpc.Request, result string) {
	w.Header().Set("Content-Type", "application/json")
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(result)})
	w.Write(b)
}

// sseAnswer opens an event stream, sends result as its event, or closes
// it without one when result is "".
func sseAnswer(w http.ResponseWriter, req *jsonrpc.Request, result string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	w.Write([]byte(": open\n\n"))
	if result != "" {
		b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(result)})
		w.Write([]byte("event: message\ndata: " + string(b) + "\n\n"))
	}
}

// call sends one modern request with env and reads the answer.
func call(t *testing.T, c *HTTPConn, id int64, method string, env map[string]string) (*jsonrpc.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.WriteEnvelope(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(id), Method: method, Params: json.RawMessage(`{}`)}, env); err != nil {
		return nil, err
	}
	msg, err := c.Read(ctx)
	if err != nil {
		return nil, err
	}
	return msg.(*jsonrpc.Response), nil
}

func TestModernHeaders(t *testing.T) {
	m := newModernServer(t, func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int) {
		jsonAnswer(w, req, `{"resultType":"complete"}`)
	})
	c := m.connect(t)
	env := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get weather",
		"Mcp-Param-Region": "us-west1", "Mcp-Param-Greeting": "Hello, 世界", "Mcp-Param-Text": " padded ",
		"Mcp-Param-Lines": "line1\nline2", "Mcp-Param-Val": "=?base64?literal?=", "Mcp-Param-Tab": "\tindented", "Mcp-Param-Empty": ""}
	resp, err := call(t, c, 7, "tools/call", env)
	if err != nil || resp.ID.Raw() != "7" {
		t.Fatalf("%+v %v", resp, err)
	}
	h := m.headers[0]
	want := map[string]string{
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get weather",
		"Mcp-Param-Region":   "us-west1",
		"Mcp-Param-Greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=",
		"Mcp-Param-Text":     "=?base64?IHBhZGRlZCA=?=",
		"Mcp-Param-Lines":    "=?base64?bGluZTEKbGluZTI=?=",
		"Mcp-Param-Val":      "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"Mcp-Param-Tab":      "=?base64?CWluZGVudGVk?=",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if vs, ok := h["Mcp-Param-Empty"]; !ok || vs[0] != "" {
		t.Errorf("Mcp-Param-Empty %v", h["Mcp-Param-Empty"])
	}
	if h.Get("Mcp-Session-Id") != "" || !strings.Contains(h.Get("Accept"), "text/event-stream") {
		t.Errorf("headers %v", h)
	}
	// No GET stream, no session: nothing but the POST.
	if m.gets != 0 {
		t.Errorf("%d GETs", m.gets)
	}
}

func TestModernErrorAnswers(t *testing.T) {
	m := newModernServer(t, func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		switch req.Method {
		case "version":
			w.WriteHeader(400)
			w.Write([]byte(`{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}`))
		case "noid":
			w.WriteHeader(400)
			w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"}}`))
		case "missing":
			w.WriteHeader(404)
			w.Write([]byte(`{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"error":{"code":-32601,"message":"Method not found"}}`))
		case "legacy":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(400)
			w.Write([]byte("Bad Request: missing session"))
		case "denied":
			w.WriteHeader(401)
		}
	})
	c := m.connect(t)
	env := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "x"}
	for method, code := range map[string]int64{"version": -32022, "noid": -32020, "missing": -32601} {
		resp, err := call(t, c, 1, method, env)
		if err != nil || resp.Error == nil || resp.Error.Code != code || resp.ID.Raw() != "1" {
			t.Errorf("%s: %+v %v", method, resp, err)
		}
	}
	_, err := call(t, c, 2, "legacy", env)
	var he *HTTPError
	if !errors.As(err, &he) || !he.NotModern() || !strings.Contains(he.Body, "missing session") {
		t.Errorf("legacy: %v", err)
	}
	_, err = call(t, c, 3, "denied", env)
	if !errors.As(err, &he) || he.StatusCode != 401 || he.NotModern() {
		t.Errorf("denied: %v", err)
	}
}

// A broken answer stream: the request is sent again with a new id, and
// its answer comes under the original id.
func TestModernReissue(t *testing.T) {
	m := newModernServer(t, func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int) {
		switch {
		case req.Method == "subscriptions/listen":
			sseAnswer(w, req, "")
		case req.Method == "always":
			sseAnswer(w, req, "")
		case n == 1:
			sseAnswer(w, req, "") // dropped before the response
		default:
			sseAnswer(w, req, `{"resultType":"complete","n":`+string(rune('0'+n))+`}`)
		}
	})
	c := m.connect(t)
	env := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
	resp, err := call(t, c, 5, "tools/call", env)
	if err != nil || resp.ID.Raw() != "5" || !strings.Contains(string(resp.Result), `"n":2`) {
		t.Fatalf("%+v %v", resp, err)
	}
	m.mu.Lock()
	first, second := m.reqs[0], m.reqs[1]
	m.mu.Unlock()
	if first.ID == second.ID || string(first.Params) != string(second.Params) || second.Method != "tools/call" {
		t.Errorf("re-issued %s %s as %s %s", first.ID, first.Params, second.ID, second.Params)
	}
	// Bounded: the third broken stream is the answer, an error.
	resp, err = call(t, c, 6, "always", env)
	if err != nil || resp.Error == nil || !strings.Contains(resp.Error.Message, "sent 3 times") {
		t.Errorf("always broken: %+v %v", resp, err)
	}
	// subscriptions/listen is not re-issued: the session opens it again.
	resp, err = call(t, c, 7, "subscriptions/listen", env)
	if err != nil || resp.Error == nil {
		t.Errorf("listen: %+v %v", resp, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.reqs); n != 2+3+1 {
		t.Errorf("%d requests", n)
	}
}

// Cancelling a modern request closes its answer stream: the server sees
// the client go away; nothing else is sent.
func TestModernCancel(t *testing.T) {
	gone := make(chan struct{})
	m := newModernServer(t, func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int) {
		sseAnswer(w, req, "")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	})
	c := m.connect(t)
	ctx := context.Background()
	if err := c.WriteEnvelope(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: json.RawMessage(`{}`)},
		map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}); err != nil {
		t.Fatal(err)
	}
	if !c.CancelRequest(jsonrpc.Int64ID(1)) {
		t.Fatal("the request was not in flight")
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not see the stream closed")
	}
	if c.CancelRequest(jsonrpc.Int64ID(1)) {
		t.Error("a finished request was still in flight")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) != 1 {
		t.Errorf("%d requests: a cancelled request was sent again", len(m.reqs))
	}
}

// A server of the modern era refusing initialize with one of its own
// errors is that answer, not a sign of the old HTTP+SSE transport.
func TestInitializeRefusedByModernServer(t *testing.T) {
	m := newModernServer(t, func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		w.Write([]byte(`{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"error":{"code":-32020,"message":"Missing MCP-Protocol-Version header"}}`))
	})
	c := m.connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	msg, err := c.Read(ctx)
	if err != nil || msg.(*jsonrpc.Response).Error.Code != -32020 {
		t.Fatalf("%+v %v", msg, err)
	}
	if c.Legacy() || m.gets != 0 {
		t.Errorf("fell back to HTTP+SSE (%d GETs)", m.gets)
	}
}
