package protocol

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// Trace context (SEP-414) goes into every request's _meta in both eras:
// the session's, or a call's own, which wins; a malformed traceparent is
// refused before anything is sent.
func TestTraceContext(t *testing.T) {
	session := &TraceContext{Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Tracestate: "rojo=00f067aa0ba902b7", Baggage: "userId=alice"}
	call := &TraceContext{Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[string]map[string]any{}
			f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
				var p struct {
					Meta map[string]any `json:"_meta"`
				}
				json.Unmarshal(m.Params, &p)
				mu.Lock()
				seen[m.Method] = p.Meta
				mu.Unlock()
				switch m.Method {
				case "initialize":
					return initResult("2025-11-25", `{"tools":{}}`), nil
				case "server/discover":
					if era == "legacy" {
						return nil, noAnswer
					}
					return discoverResult(`{"tools":{}}`, ModernVersion), nil
				case "tools/list":
					return json.RawMessage(`{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`), nil
				}
				return json.RawMessage(`{"content":[]}`), nil
			})
			opts := &Options{Trace: session}
			if era == "legacy" {
				opts.ProtocolVersion = "2025-11-25"
			}
			s, err := Connect(context.Background(), f.stream(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			if _, err := s.ListTools(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.CallTool(ctx, "t", nil, &CallOptions{Trace: call}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			l, c := seen["tools/list"], seen["tools/call"]
			if l["traceparent"] != session.Traceparent || l["tracestate"] != session.Tracestate || l["baggage"] != session.Baggage {
				t.Errorf("tools/list _meta %v", l)
			}
			if c["traceparent"] != call.Traceparent || c["tracestate"] != nil {
				t.Errorf("tools/call _meta %v", c)
			}
			if era == "modern" && l["io.modelcontextprotocol/protocolVersion"] != ModernVersion {
				t.Errorf("modern _meta lost its protocol fields: %v", l)
			}
		})
	}
	for _, bad := range []string{"", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"} {
		if (&TraceContext{Traceparent: bad}).Check() == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	if got := session.TraceID(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("TraceID %q", got)
	}
}

// Icons whose src is neither https: nor data: are dropped (from listed
// items and the server's identity), and OnIconDropped is told of each.
func TestIconSchemes(t *testing.T) {
	var mu sync.Mutex
	var dropped []string
	f := newFake(t, func(f *fakeServer, m *wire) (any, error) {
		switch m.Method {
		case "initialize":
			return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1","icons":[{"src":"http://x/i.png"},{"src":"https://x/i.png"}]}}`), nil
		case "tools/list":
			return json.RawMessage(`{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":[{"src":"data:image/png;base64,AA=="},{"src":"javascript:alert(1)"},{"src":"file:///etc/passwd"},{"src":"HTTPS://X/Y.PNG"}]}]}`), nil
		}
		return nil, noAnswer
	})
	s, err := Connect(context.Background(), f.stream(), &Options{ProtocolVersion: "2025-11-25", OnIconDropped: func(what, src string) {
		mu.Lock()
		dropped = append(dropped, what+" "+src)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ic := s.Init().ServerInfo.Icons; len(ic) != 1 || ic[0].Src != "https://x/i.png" {
		t.Errorf("server icons %+v", ic)
	}
	tools, err := s.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ic := tools[0].Icons; len(ic) != 2 || ic[0].Src != "data:image/png;base64,AA==" || ic[1].Src != "HTTPS://X/Y.PNG" {
		t.Errorf("tool icons %+v", ic)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dropped) != 3 || dropped[0] != "server fake http://x/i.png" || dropped[1] != "tool t javascript:alert(1)" {
		t.Errorf("dropped %q", dropped)
	}
}

// notifications/tasks: while WaitTask follows a task of a server that
// declares the Tasks extension, the task's id joins the listen stream's
// filter; once acknowledged, a notification carrying the completed task
// ends the wait (tasks/get only backs it up, and here says "working").
func TestTaskNotifications(t *testing.T) {
	caps := `{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	listens := make(chan *wire, 10)
	s, f := startModern(t, caps, func(f *fakeServer, m *wire) (any, error) {
		switch m.Method {
		case "subscriptions/listen":
			var p struct {
				Notifications listenFilter `json:"notifications"`
			}
			json.Unmarshal(m.Params, &p)
			f.notify("notifications/subscriptions/acknowledged", map[string]any{
				"_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}, "notifications": p.Notifications})
			listens <- m
			<-f.done
			return nil, noAnswer
		case "tools/call":
			return json.RawMessage(`{"resultType":"task","taskId":"t-1","status":"working","pollIntervalMs":20}`), nil
		case "tasks/get":
			return json.RawMessage(`{"resultType":"complete","taskId":"t-1","status":"working","pollIntervalMs":20}`), nil
		}
		return json.RawMessage(`{"resultType":"complete","tools":[]}`), nil
	}, nil)
	_, task, err := s.CallToolTask(context.Background(), "slow", nil, nil)
	if err != nil || task == nil {
		t.Fatalf("%+v %v", task, err)
	}
	done := make(chan error, 1)
	var res *CallToolResult
	go func() {
		var err error
		res, err = s.WaitTask(context.Background(), task, nil)
		done <- err
	}()
	l := <-listens
	if !strings.Contains(string(l.Params), `"taskIds":["t-1"]`) {
		t.Fatalf("listen params %s", l.Params)
	}
	// The acknowledgment came first on the stream; then the completed
	// task, which the wait takes without asking.
	f.notify("notifications/tasks", map[string]any{"taskId": "t-1", "status": "completed",
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}}})
	if err := <-done; err != nil || len(res.Content) != 1 || res.Content[0].Text != "done" {
		t.Fatalf("WaitTask: %+v %v", res, err)
	}
}
