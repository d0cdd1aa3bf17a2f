package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A hit is one request the fake server received.
type hit struct {
	HTTPMethod, RPCMethod       string
	Session, Version, LastEvent string
	Accept, ContentType         string
	Auth                        string
	ID                          string
	Params                      string
	At                          time.Time
}

// A fakeServer speaks the streamable HTTP transport: initialize, ping,
// echo (result = params), notifications (202) and the client's responses
// (202, handed to responses). Hooks change its behaviour per test.
type fakeServer struct {
	t        *testing.T
	sse      bool // answer requests with event streams
	sessions bool // give a session id at initialize
	getCode  int  // status of a GET; 0 = 405

	// before runs first for every POSTed request; it returns true when it
	// answered the request itself.
	before func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool
	// onGet answers a GET (when set).
	onGet func(w http.ResponseWriter, r *http.Request)

	mu        sync.Mutex
	hits      []hit
	live      map[string]bool
	nsess     int
	hitSignal chan struct{}

	responses chan *jsonrpc.Response
	srv       *httptest.Server
	conns     sync.WaitGroup // open connections
}

func newFakeServer(t *testing.T, f *fakeServer) *fakeServer {
	t.Helper()
	f.t = t
	f.live = map[string]bool{}
	f.hitSignal = make(chan struct{}, 1)
	f.responses = make(chan *jsonrpc.Response, 16)
	f.srv = startCounted(t, http.HandlerFunc(f.serve), &f.conns)
	return f
}

// startCounted starts a test server for h that counts its open
// connections in conns (so that a test can wait for none to be left), and
// closes it at the end of the test.
func startCounted(t *testing.T, h http.Handler, conns *sync.WaitGroup) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			conns.Done()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func (f *fakeServer) url() string { return f.srv.URL + "/mcp" }

func (f *fakeServer) record(r *http.Request, req *jsonrpc.Request) {
	h := hit{
		HTTPMethod: r.Method, Session: r.Header.Get("Mcp-Session-Id"),
		Version: r.Header.Get("Mcp-Protocol-Version"), LastEvent: r.Header.Get("Last-Event-ID"),
		Accept: r.Header.Get("Accept"), ContentType: r.Header.Get("Content-Type"),
		Auth: r.Header.Get("Authorization"), At: time.Now(),
	}
	if req != nil {
		h.RPCMethod, h.ID, h.Params = req.Method, req.ID.Raw(), string(req.Params)
	}
	f.mu.Lock()
	f.hits = append(f.hits, h)
	f.mu.Unlock()
	select {
	case f.hitSignal <- struct{}{}:
	default:
	}
}

// find returns the hits that match.
func (f *fakeServer) find(match func(hit) bool) []hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []hit
	for _, h := range f.hits {
		if match(h) {
			out = append(out, h)
		}
	}
	return out
}

// waitFor waits, with a deadline, until n hits match.
func (f *fakeServer) waitFor(n int, what string, match func(hit) bool) []hit {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if hs := f.find(match); len(hs) >= n {
			return hs
		}
		select {
		case <-f.hitSignal:
		case <-deadline:
			f.t.Fatalf("timed out waiting for %d × %s; got %+v", n, what, f.find(func(hit) bool { return true }))
		}
	}
}

// expire forgets every session.
func (f *fakeServer) expire() {
	f.mu.Lock()
	clear(f.live)
	f.mu.Unlock()
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		f.record(r, nil)
		if f.onGet != nil {
			f.onGet(w, r)
			return
		}
		code := f.getCode
		if code == 0 {
			code = http.StatusMethodNotAllowed
		}
		w.WriteHeader(code)
		return
	case http.MethodDelete:
		f.record(r, nil)
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	msgs, err := jsonrpc.DecodeMessage(body)
	if err != nil || len(msgs) != 1 {
		f.record(r, nil)
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	if resp, ok := msgs[0].(*jsonrpc.Response); ok {
		f.record(r, nil)
		f.responses <- resp
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req := msgs[0].(*jsonrpc.Request)
	f.record(r, req)
	if f.sessions && req.Method != "initialize" {
		sess := r.Header.Get("Mcp-Session-Id")
		f.mu.Lock()
		ok := f.live[sess]
		f.mu.Unlock()
		if sess == "" {
			http.Error(w, "no session", http.StatusBadRequest)
			return
		}
		if !ok {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
	}
	if f.before != nil && f.before(w, r, req) {
		return
	}
	if req.IsNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	switch req.Method {
	case "initialize":
		if f.sessions {
			f.mu.Lock()
			f.nsess++
			id := fmt.Sprintf("sess-%d", f.nsess)
			f.live[id] = true
			f.mu.Unlock()
			w.Header().Set("Mcp-Session-Id", id)
		}
		result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "fake", "version": "1"}}
	case "echo":
		result = req.Params
	default:
		result = map[string]any{}
	}
	resp, _ := jsonrpc.NewResponse(req.ID, result, nil)
	data, _ := jsonrpc.EncodeMessage(resp)
	if f.sse {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "", string(data))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// writeEvent writes one SSE event and flushes it.
func writeEvent(w http.ResponseWriter, id, data string) {
	if id != "" {
		fmt.Fprintf(w, "id: %s\n", id)
	}
	for _, line := range strings.Split(data, "\n") {
		fmt.Fprintf(w, "data: %s\n", line)
	}
	fmt.Fprint(w, "\n")
	w.(http.Flusher).Flush()
}

func encode(t testing.TB, m jsonrpc.Message) string {
	data, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// dial connects to url and registers Close.
func dial(t *testing.T, h *HTTP) *HTTPConn {
	t.Helper()
	c, err := h.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// session runs initialize and notifications/initialized over a Conn.
func session(t *testing.T, hc *HTTPConn, opts *jsonrpc.ConnOptions) *jsonrpc.Conn {
	t.Helper()
	conn := jsonrpc.NewConn(hc, opts)
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "clientInfo": map[string]any{"name": "t", "version": "1"}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	hc.SetProtocolVersion("2025-11-25")
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return conn
}

func callEcho(t *testing.T, conn *jsonrpc.Conn, v string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := conn.Call(ctx, "echo", map[string]string{"v": v})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if want := `{"v":"` + v + `"}`; string(res) != want {
		t.Fatalf("echo = %s, want %s", res, want)
	}
}

func TestHTTPJSONAnswers(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) {
			f := newFakeServer(t, &fakeServer{sse: sse, sessions: true})
			hc := dial(t, &HTTP{URL: f.url(), Header: http.Header{"Authorization": {"Bearer secret-token"}}})
			conn := session(t, hc, nil)
			callEcho(t, conn, "a")
			callEcho(t, conn, "b")
			if hc.SessionID() != "sess-1" {
				t.Errorf("SessionID = %q", hc.SessionID())
			}
			posts := f.find(func(h hit) bool { return h.HTTPMethod == "POST" })
			if len(posts) != 4 {
				t.Fatalf("%d POSTs, want 4: %+v", len(posts), posts)
			}
			for i, h := range posts {
				if h.Accept != "application/json, text/event-stream" || h.ContentType != "application/json" || h.Auth != "Bearer secret-token" {
					t.Errorf("POST %d (%s): headers %+v", i, h.RPCMethod, h)
				}
				wantSess, wantVersion := "sess-1", "2025-11-25"
				if i == 0 {
					wantSess, wantVersion = "", ""
				}
				if h.Session != wantSess || h.Version != wantVersion {
					t.Errorf("POST %d (%s): session %q version %q, want %q %q", i, h.RPCMethod, h.Session, h.Version, wantSess, wantVersion)
				}
			}
			hc.Close()
			del := f.find(func(h hit) bool { return h.HTTPMethod == "DELETE" })
			if len(del) != 1 || del[0].Session != "sess-1" {
				t.Errorf("DELETE: %+v", del)
			}
			if _, err := hc.Read(context.Background()); err != io.EOF {
				t.Errorf("Read after Close = %v, want io.EOF", err)
			}
		})
	}
}

func TestHTTPBatchAnswer(t *testing.T) {
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		if req.Method != "batch" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}]`, req.ID.Raw())
		return true
	}
	hc := dial(t, &HTTP{URL: f.url()})
	ctx := context.Background()
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(9), Method: "batch"}); err != nil {
		t.Fatal(err)
	}
	m1, err1 := hc.Read(ctx)
	m2, err2 := hc.Read(ctx)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if r, ok := m1.(*jsonrpc.Request); !ok || r.Method != "notifications/message" {
		t.Errorf("first = %#v", m1)
	}
	if r, ok := m2.(*jsonrpc.Response); !ok || r.ID != jsonrpc.Int64ID(9) {
		t.Errorf("second = %#v", m2)
	}
}

func TestHTTPSSEServerRequestBeforeResponse(t *testing.T) {
	f := newFakeServer(t, &fakeServer{sse: true, sessions: true})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		if req.Method != "tools/call" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "p1", "") // priming
		w.Write([]byte(": a comment\n\n"))
		writeEvent(w, "e1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		writeEvent(w, "e2", `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
		var answer *jsonrpc.Response
		select {
		case answer = <-f.responses:
		case <-r.Context().Done():
			return true
		}
		result, _ := json.Marshal(map[string]any{"roots": json.RawMessage(answer.Result), "answeredID": answer.ID.Raw()})
		resp, _ := jsonrpc.NewResponse(req.ID, json.RawMessage(result), nil)
		writeEvent(w, "e3", encode(t, resp))
		return true
	}
	hc := dial(t, &HTTP{URL: f.url()})
	notes := make(chan string, 4)
	conn := session(t, hc, &jsonrpc.ConnOptions{
		Notify: func(req *jsonrpc.Request) { notes <- req.Method },
		Handle: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method != "roots/list" {
				return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "no")
			}
			return map[string]any{"roots": []any{}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := conn.Call(ctx, "tools/call", map[string]any{"name": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"answeredID":"\"s1\"","roots":{"roots":[]}}`; string(res) != want {
		t.Errorf("result %s, want %s", res, want)
	}
	select {
	case m := <-notes:
		if m != "notifications/progress" {
			t.Errorf("notification %q", m)
		}
	default:
		t.Error("the progress notification did not arrive before the response")
	}
	// The answer to the server's request was POSTed with the session.
	posted := f.find(func(h hit) bool { return h.HTTPMethod == "POST" && h.RPCMethod == "" })
	if len(posted) != 1 || posted[0].Session != "sess-1" {
		t.Errorf("client response POSTs: %+v", posted)
	}
}

func TestHTTPSessionExpiry(t *testing.T) {
	f := newFakeServer(t, &fakeServer{sessions: true})
	hc := dial(t, &HTTP{URL: f.url()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	initReq := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize", Params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)}
	if err := hc.Write(ctx, initReq); err != nil {
		t.Fatal(err)
	}
	if m, err := hc.Read(ctx); err != nil || m.(*jsonrpc.Response).ID != initReq.ID {
		t.Fatalf("initialize answer: %v %v", m, err)
	}
	hc.SetProtocolVersion("2025-11-25")
	if err := hc.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
		t.Fatal(err)
	}

	f.expire()
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "echo", Params: json.RawMessage(`{"v":1}`)}); err != nil {
		t.Fatalf("echo after expiry: %v", err)
	}
	m, err := hc.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || r.ID != jsonrpc.Int64ID(2) || string(r.Result) != `{"v":1}` {
		t.Fatalf("after expiry Read = %s (the re-initialize answer must not be seen)", encode(t, m))
	}
	if hc.SessionID() != "sess-2" {
		t.Errorf("SessionID = %q, want sess-2", hc.SessionID())
	}
	inits := f.find(func(h hit) bool { return h.RPCMethod == "initialize" })
	if len(inits) != 2 || inits[1].Params != string(initReq.Params) || inits[1].Session != "" {
		t.Errorf("initialize requests: %+v", inits)
	}
	initialized := f.find(func(h hit) bool { return h.RPCMethod == "notifications/initialized" })
	if len(initialized) != 2 || initialized[1].Session != "sess-2" {
		t.Errorf("initialized notifications: %+v", initialized)
	}
	echoes := f.find(func(h hit) bool { return h.RPCMethod == "echo" })
	if len(echoes) != 2 || echoes[0].Session != "sess-1" || echoes[1].Session != "sess-2" {
		t.Errorf("echo requests: %+v", echoes)
	}

	// A server that forgets every session at once: the request is tried
	// again once, then the error says the session expired.
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		if req.Method == "echo" {
			http.Error(w, "gone", http.StatusNotFound)
			return true
		}
		return false
	}
	err = hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(3), Method: "echo"})
	if !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("err = %v, want ErrSessionExpired", err)
	}
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 404 {
		t.Errorf("err = %v, want an HTTPError 404 inside", err)
	}
	if n := len(f.find(func(h hit) bool { return h.RPCMethod == "echo" && h.ID == "3" })); n != 2 {
		t.Errorf("echo 3 sent %d times, want 2", n)
	}
}

func TestHTTPResumeDroppedStream(t *testing.T) {
	f := newFakeServer(t, &fakeServer{sessions: true})
	var closedAt time.Time
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		if req.Method != "slow" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: ev-0\nretry: 50\ndata:\n\n")
		writeEvent(w, "ev-1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		f.mu.Lock()
		closedAt = time.Now()
		f.mu.Unlock()
		return true // the connection ends without the response
	}
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Last-Event-ID") == "" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "ev-2", `{"jsonrpc":"2.0","id":7,"result":{"done":true}}`)
	}
	hc := dial(t, &HTTP{URL: f.url()})
	notes := make(chan string, 8)
	session(t, hc, &jsonrpc.ConnOptions{Notify: func(req *jsonrpc.Request) {
		select {
		case notes <- req.Method:
		default:
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(7), Method: "slow"}); err != nil {
		t.Fatal(err)
	}
	// The progress sent before the drop reaches the reader.
	select {
	case m := <-notes:
		if m != "notifications/progress" {
			t.Errorf("notification %s, want notifications/progress", m)
		}
	case <-ctx.Done():
		t.Fatal("the progress sent before the drop never reached the reader")
	}
	gets := f.waitFor(1, "resuming GET", func(h hit) bool { return h.HTTPMethod == "GET" && h.LastEvent != "" })
	if gets[0].LastEvent != "ev-1" || gets[0].Session != "sess-1" || gets[0].Version != "2025-11-25" {
		t.Errorf("resuming GET: %+v", gets[0])
	}
	f.mu.Lock()
	gap := gets[0].At.Sub(closedAt)
	f.mu.Unlock()
	// A lower bound only: the client waits at least retry before
	// reconnecting (a timer never fires early), so this cannot flake.
	if gap < 50*time.Millisecond {
		t.Errorf("reconnected %v after the drop, before retry (50ms)", gap)
	}
	t.Logf("reconnected %v after the drop (retry 50ms)", gap)
}

func TestHTTPResumeRawAnswer(t *testing.T) {
	// Without a Conn in between: the notification, then the response.
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "retry: 0\n")
		writeEvent(w, "a", `{"jsonrpc":"2.0","method":"n1"}`)
		return true
	}
	var mu sync.Mutex
	n := 0
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if k == 1 {
			writeEvent(w, "b", `{"jsonrpc":"2.0","method":"n2"}`) // progress, dropped again
			return
		}
		writeEvent(w, "c", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}
	hc := dial(t, &HTTP{URL: f.url()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "x"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		m, err := hc.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, encode(t, m))
	}
	want := []string{`{"jsonrpc":"2.0","method":"n1"}`, `{"jsonrpc":"2.0","method":"n2"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	gets := f.find(func(h hit) bool { return h.HTTPMethod == "GET" })
	if len(gets) != 2 || gets[0].LastEvent != "a" || gets[1].LastEvent != "b" {
		t.Errorf("GETs: %+v", gets)
	}
}

func TestHTTPStreamEndsWithoutIDs(t *testing.T) {
	// A stream that cannot be resumed fails the call at once.
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "", `{"jsonrpc":"2.0","method":"n1"}`)
		return true
	}
	hc := dial(t, &HTTP{URL: f.url()})
	conn := jsonrpc.NewConn(hc, nil)
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := conn.Call(ctx, "x", nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || !strings.Contains(je.Message, "ended before the response") {
		t.Fatalf("err = %v", err)
	}
}

func TestHTTPStandaloneGET(t *testing.T) {
	t.Run("405", func(t *testing.T) {
		f := newFakeServer(t, &fakeServer{sessions: true})
		hc := dial(t, &HTTP{URL: f.url()})
		conn := session(t, hc, nil)
		f.waitFor(1, "GET", func(h hit) bool { return h.HTTPMethod == "GET" })
		callEcho(t, conn, "x")
		hc.Close()
		gets := f.find(func(h hit) bool { return h.HTTPMethod == "GET" })
		if len(gets) != 1 || gets[0].Accept != "text/event-stream" || gets[0].Session != "sess-1" {
			t.Errorf("GETs: %+v", gets)
		}
	})
	t.Run("stream", func(t *testing.T) {
		f := newFakeServer(t, &fakeServer{sessions: true})
		var mu sync.Mutex
		n := 0
		f.onGet = func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n++
			k := n
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			if k == 1 {
				fmt.Fprint(w, "retry: 10\n")
				writeEvent(w, "g1", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
				return // dropped: the client comes back
			}
			writeEvent(w, "g2", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
			<-r.Context().Done()
		}
		hc := dial(t, &HTTP{URL: f.url()})
		notes := make(chan string, 4)
		session(t, hc, &jsonrpc.ConnOptions{Notify: func(req *jsonrpc.Request) { notes <- req.Method }})
		for _, want := range []string{"notifications/tools/list_changed", "notifications/message"} {
			select {
			case got := <-notes:
				if got != want {
					t.Errorf("got %s, want %s", got, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s", want)
			}
		}
		gets := f.find(func(h hit) bool { return h.HTTPMethod == "GET" })
		if len(gets) != 2 || gets[1].LastEvent != "g1" {
			t.Errorf("GETs: %+v", gets)
		}
	})
}

func TestHTTPRedirectRefused(t *testing.T) {
	var other int
	var mu sync.Mutex
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other++
		mu.Unlock()
	}))
	defer target.Close()
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Location", target.URL+"/elsewhere?token=secret-query#frag")
		w.WriteHeader(http.StatusTemporaryRedirect)
		return true
	}
	for _, client := range []*http.Client{nil, {}} {
		hc := dial(t, &HTTP{URL: f.url(), Client: client})
		err := hc.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "x"})
		var rerr *RedirectError
		if !errors.As(err, &rerr) {
			t.Fatalf("err = %v, want a RedirectError", err)
		}
		if rerr.Location != target.URL+"/elsewhere" || rerr.StatusCode != 307 {
			t.Errorf("RedirectError %+v", rerr)
		}
		if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "frag") {
			t.Errorf("error shows the query: %v", err)
		}
		if client != nil && client.CheckRedirect != nil {
			t.Error("the caller's client was modified")
		}
	}
	if other != 0 {
		t.Errorf("the redirect was followed")
	}
}

func TestHTTPErrorBodyBounded(t *testing.T) {
	f := newFakeServer(t, &fakeServer{})
	page := "<html>\x1b[31m" + strings.Repeat("<p>server error</p>\n", 10<<20/20) + "</html>"
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, page)
		return true
	}
	hc := dial(t, &HTTP{URL: f.url() + "?key=secret-query", Header: http.Header{"X-Api-Key": {"secret-header"}}})
	err := hc.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "x"})
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 500 {
		t.Fatalf("err = %v", err)
	}
	if len(herr.Body) > 4<<10 || !strings.HasPrefix(herr.Body, `<html>\x1b[31m<p>server error`) {
		t.Errorf("body is %d bytes: %.60q", len(herr.Body), herr.Body)
	}
	if msg := err.Error(); strings.Contains(msg, "secret") || strings.Contains(msg, "\x1b") || len(msg) > 400 {
		t.Errorf("error message: %q", msg)
	}
}

func TestHTTP401KeepsHeader(t *testing.T) {
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
		return true
	}
	hc := dial(t, &HTTP{URL: f.url(), Header: http.Header{"Authorization": {"Bearer secret-token"}}})
	err := hc.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
	var herr *HTTPError
	if !errors.As(err, &herr) || herr.StatusCode != 401 || !strings.Contains(herr.Header.Get("WWW-Authenticate"), "resource_metadata") {
		t.Fatalf("err = %#v", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error shows a secret: %v", err)
	}
}

func TestHTTPHangingServer(t *testing.T) {
	release := make(chan struct{})
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	}
	defer close(release)
	hc := dial(t, &HTTP{URL: f.url()})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), f.url()) {
		t.Errorf("error does not name the URL: %v", err)
	}
}

func TestHTTPCheckURL(t *testing.T) {
	for _, u := range []string{"http://example.com/mcp", "https://user:secret-pw@example.com/mcp", "ftp://127.0.0.1/", "http://10.0.0.1/", "not a url"} {
		_, err := (&HTTP{URL: u}).Connect(context.Background())
		if err == nil {
			t.Errorf("%s: no error", u)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error shows the password: %v", u, err)
		}
	}
	for _, u := range []string{"http://localhost:1/mcp", "http://127.0.0.2:1/", "http://[::1]:1/", "https://example.com/mcp"} {
		c, err := (&HTTP{URL: u}).Connect(context.Background())
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		c.Close()
	}
}

func TestHTTPNoLeak(t *testing.T) {
	for _, mode := range []string{"json", "sse", "get-stream", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			leaks := proctest.Goroutines(t)
			f := &fakeServer{sse: mode == "sse", sessions: true}
			if mode == "get-stream" {
				f.onGet = func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					writeEvent(w, "1", `{"jsonrpc":"2.0","method":"n"}`)
					<-r.Context().Done()
				}
			}
			var l *legacyServer
			var url string
			if mode == "legacy" {
				l = newLegacyServer(t, false)
				url = l.srv.URL + "/sse"
			} else {
				f = newFakeServer(t, f)
				url = f.url()
			}
			hc, err := (&HTTP{URL: url}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			conn := jsonrpc.NewConn(hc, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := conn.Call(ctx, "initialize", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
				t.Fatal(err)
			}
			if mode == "get-stream" {
				f.waitFor(1, "GET", func(h hit) bool { return h.HTTPMethod == "GET" })
			}
			for range 5 {
				if _, err := conn.Call(ctx, "echo", map[string]int{"a": 1}); err != nil {
					t.Fatal(err)
				}
			}
			conn.Close()
			// Every connection to the server is closed by Close.
			conns := &f.conns
			if l != nil {
				conns = &l.conns
			}
			done := make(chan struct{})
			go func() { conns.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("connections to the server left open after Close")
			}
			if l != nil {
				l.srv.Close()
			} else {
				f.srv.Close()
			}
			leaks()
		})
	}
}

func TestHTTPAnswerNotJSONRPC(t *testing.T) {
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "<html>oops</html>")
		return true
	}
	hc := dial(t, &HTTP{URL: f.url()})
	err := hc.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "x"})
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), f.url()) {
		t.Fatalf("err = %v, want a DecodeError naming the URL", err)
	}
}

func TestHTTPUnexpectedContentType(t *testing.T) {
	f := newFakeServer(t, &fakeServer{})
	f.before = func(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) bool {
		w.Header().Set("Content-Type", "text/html\x1b[2J")
		io.WriteString(w, "<html>hi</html>")
		return true
	}
	hc := dial(t, &HTTP{URL: f.url()})
	err := hc.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "x"})
	if err == nil || !strings.Contains(err.Error(), "text/html") || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("err = %v", err)
	}
}
