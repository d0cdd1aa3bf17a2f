package demo

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// sessionsSeen collects the servers of the sessions an Options serves.
type sessionsSeen struct {
	mu   sync.Mutex
	list []*server
}

func (ss *sessionsSeen) hook(opts *Options) {
	opts.onSession = func(s *server) {
		ss.mu.Lock()
		ss.list = append(ss.list, s)
		ss.mu.Unlock()
	}
}

// checkStopped fails t unless every session seen has ended with no task
// timer armed, and one of them had a task.
func (ss *sessionsSeen) checkStopped(t *testing.T) {
	t.Helper()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	tasks := 0
	for _, s := range ss.list {
		s.mu.Lock()
		if !s.ended {
			t.Errorf("a session's server was not told that it ended")
		}
		for id, task := range s.tasks {
			tasks++
			if task.timer != nil {
				t.Errorf("task %s: its timer is still armed after the session ended", id[:8])
			}
		}
		s.mu.Unlock()
	}
	if tasks == 0 {
		t.Fatal("no task was created")
	}
}

const slowTaskCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}},"name":"slow-task","arguments":{"ms":60000}}}`

// TestTaskTimersStopAtSessionEnd: a session that ends with a task still
// working (stdio's end of input, the HTTP handler's Close) stops the
// task's step timer and starts no goroutine that outlives it; before,
// the timer fired up to a minute later and sent to no subscriber.
func TestTaskTimersStopAtSessionEnd(t *testing.T) {
	t.Run("stdio EOF", func(t *testing.T) {
		leaks := proctest.Goroutines(t)
		var seen sessionsSeen
		opts := Options{Tasks: true, Era: "modern"}
		seen.hook(&opts)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan error, 1)
		go func() { served <- newMCPServer(&opts).ServeStdio(context.Background(), inR, outW) }()
		conn := jsonrpc.NewConn(jsonrpc.NewLineStream(outR, inW, closers{inW, outR}), &jsonrpc.ConnOptions{})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var call struct{ Params json.RawMessage }
		_ = json.Unmarshal([]byte(slowTaskCall), &call)
		raw, err := conn.Call(ctx, "tools/call", call.Params)
		if err != nil || !strings.Contains(string(raw), `"working"`) {
			t.Fatalf("slow-task: %s %v", raw, err)
		}
		conn.Close() // the server's end of input
		select {
		case <-served:
		case <-ctx.Done():
			t.Fatal("ServeStdio did not return at the end of input")
		}
		outW.Close()
		seen.checkStopped(t)
		leaks()
	})
	t.Run("HTTP close", func(t *testing.T) {
		leaks := proctest.Goroutines(t)
		var seen sessionsSeen
		opts := Options{Tasks: true, Era: "modern"}
		seen.hook(&opts)
		h := NewHTTPHandler(opts)
		srv := httptest.NewServer(h)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(slowTaskCall))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow-task"} {
			req.Header.Set(k, v)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"working"`) {
			t.Fatalf("slow-task: %s %s", resp.Status, body)
		}
		h.Close()
		srv.Close()
		srv.Client().CloseIdleConnections()
		seen.checkStopped(t)
		leaks()
	})
}
