package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`

type httpClient struct {
	t   *testing.T
	url string
	sid string
}

func startHTTP(t *testing.T, opts Options) *httpClient {
	t.Helper()
	h := NewHTTPHandler(opts)
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return &httpClient{t: t, url: srv.URL + "/mcp"}
}

func (c *httpClient) do(method, body string, hdr map[string]string) *http.Response {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	c.t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (c *httpClient) post(body string) *http.Response {
	c.t.Helper()
	return c.do(http.MethodPost, body, nil)
}

// init initializes a session and sends the initialized notification.
func (c *httpClient) init() {
	c.t.Helper()
	resp := c.post(initBody)
	if resp.StatusCode != 200 {
		c.t.Fatalf("initialize: %s", resp.Status)
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != http.StatusAccepted {
		c.t.Fatalf("initialized: %s", r.Status)
	}
}

func bodyOf(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type event struct{ id, data, retry string }

// nextEvent reads one SSE event (LF line ends, as the demo writes them).
func nextEvent(r *bufio.Reader) (event, error) {
	var ev event
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return ev, nil
		}
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimPrefix(v, " ")
		switch k {
		case "id":
			ev.id = v
		case "data":
			ev.data += v
		case "retry":
			ev.retry = v
		}
	}
}

func TestHTTPJSON(t *testing.T) {
	c := startHTTP(t, Options{})
	resp := c.post(initBody)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "application/json" {
		t.Fatalf("initialize: %s %s", resp.Status, ct)
	}
	if !strings.Contains(bodyOf(t, resp), `"protocolVersion":"2025-11-25"`) {
		t.Error("initialize answer")
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	if c.sid == "" {
		t.Fatal("no session id")
	}
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.StatusCode != 202 {
		t.Errorf("notification: %s", r.Status)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); r.StatusCode != 200 || !strings.Contains(bodyOf(t, r), `"name":"echo"`) {
		t.Errorf("tools/list: %s", r.Status)
	}
	for _, tc := range []struct {
		hdr  map[string]string
		want int
	}{
		{map[string]string{"Mcp-Session-Id": ""}, 400},
		{map[string]string{"Mcp-Session-Id": "nope"}, 404},
		{map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400},
		{map[string]string{"Origin": "https://evil.example"}, 403},
	} {
		if r := c.do(http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, tc.hdr); r.StatusCode != tc.want {
			t.Errorf("%v: %s, want %d", tc.hdr, r.Status, tc.want)
		}
	}
	if r := c.post(`{"jsonrpc":"2.0","id":3,`); r.StatusCode != 400 {
		t.Errorf("bad JSON: %s", r.Status)
	}

	// Messages not tied to a call, and in JSON mode also progress, go on the GET stream.
	get := c.do(http.MethodGet, "", nil)
	if get.StatusCode != 200 || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %s", get.Status)
	}
	if r := c.do(http.MethodGet, "", nil); r.StatusCode != http.StatusConflict {
		t.Errorf("second GET: %s", r.Status)
	}
	r := c.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"notify","_meta":{"progressToken":7}}}`)
	if !strings.Contains(bodyOf(t, r), `"sent notifications"`) {
		t.Error("notify answer")
	}
	br := bufio.NewReader(get.Body)
	var methods []string
	for len(methods) < 5 {
		ev, err := nextEvent(br)
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Method string }
		json.Unmarshal([]byte(ev.data), &m)
		methods = append(methods, m.Method)
	}
	if strings.Join(methods, " ") != "notifications/tools/list_changed notifications/progress notifications/progress notifications/progress notifications/message" {
		t.Errorf("GET stream: %v", methods)
	}

	// A server request in JSON mode goes on the GET stream; the answer is POSTed.
	done := make(chan string, 1)
	go func() {
		r := c.post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots"}}`)
		b, _ := io.ReadAll(r.Body)
		done <- string(b)
	}()
	ev, err := nextEvent(br)
	if err != nil || !strings.Contains(ev.data, `"method":"roots/list"`) {
		t.Fatalf("roots/list on GET: %q %v", ev.data, err)
	}
	var req struct{ ID json.RawMessage }
	json.Unmarshal([]byte(ev.data), &req)
	if r := c.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"roots":[{"uri":"file:///r"}]}}`); r.StatusCode != 202 {
		t.Errorf("posting the answer: %s", r.Status)
	}
	if ans := <-done; !strings.Contains(ans, `file:///r`) {
		t.Errorf("roots tool: %s", ans)
	}

	if r := c.do(http.MethodDelete, "", nil); r.StatusCode != 200 {
		t.Errorf("DELETE: %s", r.Status)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":6,"method":"ping"}`); r.StatusCode != 404 {
		t.Errorf("after DELETE: %s", r.Status)
	}
}

func TestHTTPSSE(t *testing.T) {
	c := startHTTP(t, Options{SSE: true})
	c.init()
	resp := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notify","_meta":{"progressToken":"p"}}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	var got []string
	ids := map[string]bool{}
	for {
		ev, err := nextEvent(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.id == "" || ids[ev.id] {
			t.Errorf("event id %q missing or repeated", ev.id)
		}
		ids[ev.id] = true
		if ev.data == "" {
			got = append(got, "priming")
			continue
		}
		var m struct {
			Method string
			Result json.RawMessage
		}
		json.Unmarshal([]byte(ev.data), &m)
		if m.Result != nil {
			got = append(got, "result")
		} else {
			got = append(got, m.Method)
		}
	}
	if strings.Join(got, " ") != "priming notifications/progress notifications/progress notifications/progress notifications/message result" {
		t.Errorf("POST stream: %v", got)
	}
	// list_changed waits on the standalone stream.
	get := c.do(http.MethodGet, "", nil)
	ev, err := nextEvent(bufio.NewReader(get.Body))
	if err != nil || !strings.Contains(ev.data, "notifications/tools/list_changed") {
		t.Errorf("GET: %q %v", ev.data, err)
	}

	// A server request comes on the POST stream before the response.
	resp = c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roots"}}`)
	br = bufio.NewReader(resp.Body)
	for {
		ev, err = nextEvent(br)
		if err != nil {
			t.Fatal(err)
		}
		if ev.data != "" {
			break
		}
	}
	if !strings.Contains(ev.data, `"method":"roots/list"`) {
		t.Fatalf("expected roots/list, got %s", ev.data)
	}
	var req struct{ ID json.RawMessage }
	json.Unmarshal([]byte(ev.data), &req)
	if r := c.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"roots":[]}}`); r.StatusCode != 202 {
		t.Errorf("posting the answer: %s", r.Status)
	}
	ev, err = nextEvent(br)
	if err != nil || !strings.Contains(ev.data, `"id":3,"result"`) {
		t.Errorf("result: %q %v", ev.data, err)
	}
}

func TestHTTPResume(t *testing.T) {
	c := startHTTP(t, Options{SSE: true, DropAfterPriming: true})
	c.init()
	resp := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"resumed"}}}`)
	br := bufio.NewReader(resp.Body)
	ev, err := nextEvent(br)
	if err != nil || ev.data != "" || ev.retry != "100" || ev.id == "" {
		t.Fatalf("priming: %+v %v", ev, err)
	}
	if _, err := nextEvent(br); err != io.EOF {
		t.Fatalf("the stream goes on after priming: %v", err)
	}
	get := c.do(http.MethodGet, "", map[string]string{"Last-Event-ID": ev.id})
	if get.StatusCode != 200 {
		t.Fatalf("GET: %s", get.Status)
	}
	br = bufio.NewReader(get.Body)
	ev, err = nextEvent(br)
	if err != nil || !strings.Contains(ev.data, `"text":"resumed"`) {
		t.Fatalf("resumed: %+v %v", ev, err)
	}
	if _, err := nextEvent(br); err != io.EOF {
		t.Errorf("the resumed stream goes on after the response: %v", err)
	}
	if r := c.do(http.MethodGet, "", map[string]string{"Last-Event-ID": "zz-1"}); r.StatusCode != 400 {
		t.Errorf("unknown Last-Event-ID: %s", r.Status)
	}
}

func TestHTTPStatelessAndExpiry(t *testing.T) {
	c := startHTTP(t, Options{Stateless: true})
	resp := c.post(initBody)
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a session id in stateless mode")
	}
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); r.StatusCode != 200 {
		t.Errorf("call: %s", r.Status)
	}
	if r := c.do(http.MethodGet, "", nil); r.StatusCode != 405 {
		t.Errorf("GET: %s", r.Status)
	}

	c = startHTTP(t, Options{ExpireAfter: 2})
	c.init()
	first := c.sid
	for i := 0; i < 2; i++ {
		if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.StatusCode != 200 {
			t.Fatalf("request %d: %s", i, r.Status)
		}
	}
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.StatusCode != 404 {
		t.Fatalf("after expiry: %s", r.Status)
	}
	c.sid = ""
	c.init()
	if c.sid == first || c.sid == "" {
		t.Error("no new session")
	}
}

func TestHTTPAuthAndCrash(t *testing.T) {
	c := startHTTP(t, Options{RequireAuth: "tok"})
	resp := c.post(initBody)
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="http://`) {
		t.Fatalf("without token: %s %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	if r := c.do(http.MethodPost, initBody, map[string]string{"Authorization": "Bearer tok"}); r.StatusCode != 200 {
		t.Errorf("with token: %s", r.Status)
	}

	c = startHTTP(t, Options{})
	c.init()
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash"}}`))
	req.Header.Set("Mcp-Session-Id", c.sid)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatalf("crash answered %s", resp.Status)
	}
}

func TestMainHTTP(t *testing.T) {
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--http", "127.0.0.1:0", "--sse"}, strings.NewReader(""), outW, io.Discard)
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on http://127.0.0.1:") || !strings.HasSuffix(line, "/mcp\n") {
		t.Fatalf("first line %q: %v", line, err)
	}
	c := &httpClient{t: t, url: strings.TrimSpace(strings.TrimPrefix(line, "listening on "))}
	c.init()
	get := c.do(http.MethodGet, "", nil) // an open stream must not hold up the end
	_ = get
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Main did not return")
	}
}

// TestModernNotificationAccepted: a 2026-07-28 client's notification (the
// Go SDK sends notifications/cancelled after a timeout) is accepted with
// 202 and no body, by a dual-era and a modern-only server alike; it does
// not end anything.
func TestModernNotificationAccepted(t *testing.T) {
	for _, era := range []string{EraDual, EraModern} {
		t.Run(era, func(t *testing.T) {
			c := startHTTP(t, Options{Era: era})
			hdr := map[string]string{"MCP-Protocol-Version": "2026-07-28"}
			r := c.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"timeout"}}`, hdr)
			if body := bodyOf(t, r); r.StatusCode != http.StatusAccepted || body != "" {
				t.Fatalf("a modern notification: %s %q, want 202 and no body", r.Status, body)
			}
		})
	}
}
