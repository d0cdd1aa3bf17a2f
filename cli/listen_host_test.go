package cli_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestListenRefusesForeignHost: a server of --listen on a loopback
// address (replay here; proxy and serve share the rule) refuses a
// request whose Host is another name, as a page that rebinds its own
// name to 127.0.0.1 sends (DNS rebinding), with 403, before anything is
// served; the loopback names are served.
func TestListenRefusesForeignHost(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hi").want(t, 0)
	addr, stop := startListen(t, r, "replay", "--listen", "127.0.0.1:0", "rec.jsonl")
	defer stop()
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	for host, want := range map[string]int{"rebind.example:" + u.Port(): 403, "localhost:" + u.Port(): 200, u.Host: 200} {
		req, err := http.NewRequest("POST", addr, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || want == 403 && !strings.Contains(string(body), "host not allowed") {
			t.Errorf("Host %s: %d %s, want %d", host, resp.StatusCode, body, want)
		}
	}
}
