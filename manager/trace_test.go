package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// metaLog keeps the _meta of each tools/call a front passed on.
type metaLog struct {
	mu    sync.Mutex
	metas []map[string]any
}

func (l *metaLog) calls() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]map[string]any(nil), l.metas...)
}

// metaFront serves the demo of era over HTTP behind a front that keeps
// the _meta of each tools/call it passes on.
func metaFront(t *testing.T, era string) (string, *metaLog) {
	h := demo.NewHTTPHandler(demo.Options{Era: era})
	log := &metaLog{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var req struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) == nil && req.Method == "tools/call" {
			log.mu.Lock()
			log.metas = append(log.metas, req.Params.Meta)
			log.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return srv.URL + "/mcp", log
}

// CallOptions.Trace puts traceparent, tracestate and baggage into the
// call's _meta, in both eras (SEP-414); a call without it carries none;
// a malformed traceparent is refused before anything is sent.
func TestManagerCallTrace(t *testing.T) {
	proctest.Check(t)
	modernURL, modern := metaFront(t, demo.EraModern)
	legacyURL, legacy := metaFront(t, demo.EraLegacy)
	home := t.TempDir()
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"modern": map[string]any{"url": modernURL}, "legacy": map[string]any{"url": legacyURL}}})
	if err := os.WriteFile(filepath.Join(home, config.FileName), entry, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: loadConfig(t, home), Home: openHome(t, home), TrustAll: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	trace := &protocol.TraceContext{Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", Tracestate: "rojo=00f067aa0ba902b7", Baggage: "userId=alice"}
	for _, c := range []struct {
		server string
		era    protocol.Era
		log    *metaLog
	}{{"modern", protocol.EraModern, modern}, {"legacy", protocol.EraLegacy, legacy}} {
		if st := state(t, m, c.server); st.Era != c.era {
			t.Fatalf("%s speaks %s", c.server, st.Era)
		}
		echo := toolNamed(t, tools, c.server, "echo")
		if _, err := m.CallWith(ctx, echo, map[string]any{"text": "hi"}, &CallOptions{Trace: trace}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Call(ctx, echo, map[string]any{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
		_, err := m.CallWith(ctx, echo, map[string]any{"text": "hi"}, &CallOptions{Trace: &protocol.TraceContext{Traceparent: "00-xyz"}})
		if err == nil {
			t.Errorf("%s: a malformed traceparent was accepted", c.server)
		}
		got := c.log.calls()
		if len(got) != 2 {
			t.Fatalf("%s: %d calls reached the server, want 2: %v", c.server, len(got), got)
		}
		if got[0]["traceparent"] != trace.Traceparent || got[0]["tracestate"] != trace.Tracestate || got[0]["baggage"] != trace.Baggage {
			t.Errorf("%s: the traced call's _meta: %v", c.server, got[0])
		}
		if _, ok := got[1]["traceparent"]; ok {
			t.Errorf("%s: a call without Trace carries one: %v", c.server, got[1])
		}
	}
}
