package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A legacyServer speaks the 2024-11-05 HTTP+SSE transport: GET /sse opens
// the stream and names /messages?sessionId=… in its endpoint event; POSTs
// there are answered 202 and their answers sent as message events. A POST
// to /sse is answered 405, as such servers do.
type legacyServer struct {
	srv      *httptest.Server
	conns    sync.WaitGroup
	endpoint func(sess string) string // the endpoint event's data

	mu      sync.Mutex
	streams map[string]chan string
	n       int
	hits    []string // "METHOD path"
}

func newLegacyServer(t *testing.T, _ bool) *legacyServer {
	l := &legacyServer{streams: map[string]chan string{}}
	l.endpoint = func(sess string) string { return "/messages?sessionId=" + sess }
	l.srv = startCounted(t, http.HandlerFunc(l.serve), &l.conns)
	return l
}

func (l *legacyServer) serve(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.hits = append(l.hits, r.Method+" "+r.URL.Path)
	l.mu.Unlock()
	switch {
	case r.URL.Path == "/sse" && r.Method == http.MethodGet:
		l.mu.Lock()
		l.n++
		sess := fmt.Sprintf("s%d", l.n)
		ch := make(chan string, 16)
		l.streams[sess] = ch
		l.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", l.endpoint(sess))
		w.(http.Flusher).Flush()
		for {
			select {
			case msg, ok := <-ch:
				if !ok {
					return
				}
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.URL.Path == "/messages" && r.Method == http.MethodPost:
		l.mu.Lock()
		ch := l.streams[r.URL.Query().Get("sessionId")]
		l.mu.Unlock()
		if ch == nil {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msgs, err := jsonrpc.DecodeMessage(body)
		if err != nil || len(msgs) != 1 {
			http.Error(w, "bad message", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if req, ok := msgs[0].(*jsonrpc.Request); ok && !req.IsNotification() {
			var result any = map[string]any{}
			switch req.Method {
			case "initialize":
				result = map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "old", "version": "1"}}
			case "echo":
				result = req.Params
			case "bye":
				close(ch)
				return
			}
			resp, _ := jsonrpc.NewResponse(req.ID, result, nil)
			data, _ := jsonrpc.EncodeMessage(resp)
			ch <- string(data)
		}
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func TestLegacy(t *testing.T) {
	for _, legacy := range []bool{true, false} {
		t.Run(fmt.Sprintf("Legacy=%v", legacy), func(t *testing.T) {
			l := newLegacyServer(t, false)
			hc := dial(t, &HTTP{URL: l.srv.URL + "/sse", Legacy: legacy})
			conn := session(t, hc, nil)
			callEcho(t, conn, "old")
			callEcho(t, conn, "again")
			l.mu.Lock()
			hits := strings.Join(l.hits, ", ")
			l.mu.Unlock()
			want := "GET /sse, POST /messages, POST /messages, POST /messages, POST /messages"
			if !legacy {
				want = "POST /sse, " + want
			}
			if hits != want {
				t.Errorf("requests: %s\nwant      %s", hits, want)
			}
		})
	}
}

func TestLegacyStreamEnd(t *testing.T) {
	l := newLegacyServer(t, false)
	hc := dial(t, &HTTP{URL: l.srv.URL + "/sse", Legacy: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"}); err != nil {
		t.Fatal(err)
	}
	if _, err := hc.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: "bye"}); err != nil {
		t.Fatal(err)
	}
	_, err := hc.Read(ctx)
	if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "ended") {
		t.Fatalf("Read = %v, want an end of stream", err)
	}
}

func TestLegacyEndpointOtherOrigin(t *testing.T) {
	for _, ep := range []string{"http://127.0.0.1:1/messages?x=secret", "//evil.example/messages", "https://" + "127.0.0.1/m"} {
		l := newLegacyServer(t, false)
		l.endpoint = func(string) string { return ep }
		hc := dial(t, &HTTP{URL: l.srv.URL + "/sse", Legacy: true})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := hc.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "another origin") || strings.Contains(err.Error(), "secret") {
			t.Errorf("endpoint %s: err = %v", ep, err)
		}
	}
}

func TestLegacyNoEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: hello\n\n")
	}))
	defer srv.Close()
	hc := dial(t, &HTTP{URL: srv.URL})
	err := hc.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "initialize"})
	if err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "endpoint event") {
		t.Fatalf("err = %v", err)
	}
}
