package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// The official Go SDK's example servers (v1.8.0, built by
// scripts/deps.sh) speak 2026-07-28 beside the legacy revisions: mcpwire
// runs test, call and probe against them over stdio and HTTP, in both
// eras, and against the SDK's HTTP+SSE example.

// testReportOf runs test --json and decodes the report.
func testReportOf(t *testing.T, r *runner, args ...string) (protocol, era string, tools []string) {
	t.Helper()
	res := r.run(t, append([]string{"test", "--json"}, args...)...).want(t, 0)
	var rep struct {
		OK       bool   `json:"ok"`
		Protocol string `json:"protocol"`
		Era      string `json:"era"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || !rep.OK {
		t.Fatalf("test --json: %v\n%s", err, res)
	}
	for _, tl := range rep.Tools {
		tools = append(tools, tl.Name)
	}
	return rep.Protocol, rep.Era, tools
}

// probeOf runs probe --json and decodes it.
func probeOf(t *testing.T, r *runner, args ...string) (eras string, legacySSE bool, ok map[string]bool) {
	t.Helper()
	res := r.run(t, append([]string{"probe", "--json"}, args...)...).want(t, 0)
	var rep struct {
		Eras      string `json:"eras"`
		LegacySSE bool   `json:"legacySse"`
		Revisions []struct {
			Protocol string `json:"protocol"`
			OK       bool   `json:"ok"`
		} `json:"revisions"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatalf("probe --json: %v\n%s", err, res)
	}
	ok = map[string]bool{}
	for _, row := range rep.Revisions {
		ok[row.Protocol] = row.OK
	}
	return rep.Eras, rep.LegacySSE, ok
}

func TestInteropGoSDK(t *testing.T) {
	proctest.Check(t)
	everything := peers.GoSDK(t, "everything")
	// Over HTTP the example's handler keeps sessions, and the SDK serves
	// 2026-07-28 over HTTP only without them (StreamableHTTPOptions
	// .Stateless): its server/discover names the legacy revisions alone,
	// and mcpwire speaks 2025-11-25 with it, through initialize.
	httpURL := "http://" + peers.GoSDKHTTP(t, "everything", func(host, port string) []string {
		return []string{"-http", host + ":" + port}
	}, nil) + "/mcp"
	r := newRunner(t)
	sample := filepath.Join(r.dir, "sample.json")
	if err := os.WriteFile(sample, []byte(`{"role":"assistant","model":"canned","content":{"type":"text","text":"canned answer"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		target   []string // the words that name the server
		protocol string   // what a dual-era mcpwire speaks with it
		eras     string   // what probe finds
	}{
		{"stdio", []string{"--", everything}, "2026-07-28", "dual"},
		{"http", []string{httpURL}, "2025-11-25", "legacy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// args puts the target words where they belong: a URL first,
			// a command last.
			args := func(words ...string) []string {
				if tc.target[0] == "--" {
					return append(words, tc.target...)
				}
				if len(words) == 0 {
					return tc.target
				}
				return append([]string{words[0], tc.target[0]}, words[1:]...)
			}
			protocol, _, tools := testReportOf(t, r, args()...)
			if protocol != tc.protocol || !contains(tools, "greet") || !contains(tools, "sample") {
				t.Errorf("test: %s %v", protocol, tools)
			}
			res := r.run(t, args("call", "greet", "name=Ada")...).want(t, 0)
			if strings.TrimSpace(res.stdout) != "Hi Ada" {
				t.Errorf("greet:\n%s", res)
			}
			// Logs when asked for: per request in the modern era,
			// logging/setLevel in the legacy one.
			res = r.run(t, args("call", "log", "--log-level", "debug")...).want(t, 0)
			if !strings.Contains(res.stderr, "server log [error] something happened!") {
				t.Errorf("log:\n%s", res)
			}
			// The example asks for roots and samples with server requests,
			// which only the legacy era has: pinned to it, mcpwire answers.
			res = r.run(t, args("call", "--protocol", "2025-11-25", "--root", r.dir, "roots")...).want(t, 0)
			if !strings.Contains(res.stdout, "file://"+r.dir) {
				t.Errorf("roots (2025-11-25):\n%s", res)
			}
			res = r.run(t, args("call", "--protocol", "2025-06-18", "--sample", sample, "sample")...).want(t, 0)
			if !strings.Contains(res.stdout, "canned answer") {
				t.Errorf("sample (2025-06-18):\n%s", res)
			}
			eras, sse, ok := probeOf(t, r, args()...)
			if eras != tc.eras || sse || len(ok) != 5 {
				t.Errorf("probe: %s sse=%v %v", eras, sse, ok)
			}
			for v, accepted := range ok {
				if want := v != "2026-07-28" || tc.eras == "dual"; accepted != want {
					t.Errorf("probe: %s accepted %v", v, accepted)
				}
			}
		})
	}
}

// TestInteropGoSDKStateless: the SDK's "distributed" example serves one
// tool from stateless streamable HTTP servers behind a reverse proxy that
// sends each request to the next one: 2026-07-28 over HTTP, each request
// on its own, so no request needs the instance of the one before.
func TestInteropGoSDKStateless(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	// One stateless instance on its own (the child mode of the example).
	child := "http://" + peers.GoSDKHTTP(t, "distributed", func(string, string) []string { return nil },
		func(port string) []string { return []string{"MCP_CHILD_PORT=" + port} }) + "/mcp"
	protocol, era, tools := testReportOf(t, r, child)
	if protocol != "2026-07-28" || era != "modern" || !contains(tools, "inc") {
		t.Errorf("test: %s %s %v", protocol, era, tools)
	}
	res := r.run(t, "call", child, "inc", "--json", "--log-level", "info").want(t, 0)
	if !strings.Contains(res.stdout, `"Count"`) || !strings.Contains(res.stderr, "server log [info]") {
		t.Errorf("inc:\n%s", res)
	}
	eras, sse, ok := probeOf(t, r, child)
	if !ok["2026-07-28"] || sse || (eras != "modern" && eras != "dual") {
		t.Errorf("probe: %s sse=%v %v", eras, sse, ok)
	}
	// Two instances behind the example's round-robin proxy.
	a, b := peers.FreePort(t), peers.FreePort(t)
	proxy := "http://" + peers.GoSDKHTTP(t, "distributed", func(host, port string) []string {
		return []string{"-http", host + ":" + port, "-child_ports", a + "," + b}
	}, nil) + "/mcp"
	peers.WaitAccepting(t, "127.0.0.1:"+a)
	peers.WaitAccepting(t, "127.0.0.1:"+b)
	for i := 0; i < 3; i++ {
		res := r.run(t, "call", proxy, "inc").want(t, 0)
		if !strings.Contains(res.stdout, "Count") {
			t.Errorf("inc through the proxy:\n%s", res)
		}
	}
}

// TestInteropGoSDKHello: the smallest example, over stdio.
func TestInteropGoSDKHello(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	hello := peers.GoSDK(t, "hello")
	if _, _, tools := testReportOf(t, r, "--", hello); !contains(tools, "greet") {
		t.Errorf("tools %v", tools)
	}
	res := r.run(t, "call", "greet", "name=Grace", "--", hello).want(t, 0)
	if !strings.Contains(res.stdout, "Hi Grace") {
		t.Errorf("greet:\n%s", res)
	}
}

// TestInteropGoSDKLegacySSE: the SDK's HTTP+SSE example has no streamable
// HTTP; mcpwire falls back to the 2024-11-05 transport, in the legacy era.
func TestInteropGoSDKLegacySSE(t *testing.T) {
	proctest.Check(t)
	addr := peers.GoSDKHTTP(t, "sse", func(host, port string) []string { return []string{"-host", host, "-port", port} }, nil)
	r := newRunner(t)
	url := "http://" + addr + "/greeter1"
	protocol, era, tools := testReportOf(t, r, url)
	if era != "legacy" || !strings.HasPrefix(protocol, "20") || !contains(tools, "greet1") {
		t.Errorf("test: %s %s %v", protocol, era, tools)
	}
	res := r.run(t, "call", url, "greet1", "name=Ada").want(t, 0)
	if !strings.Contains(res.stdout, "Hi Ada") {
		t.Errorf("greet1:\n%s", res)
	}
	eras, sse, ok := probeOf(t, r, url)
	if eras != "legacy" || !sse || ok["2026-07-28"] {
		t.Errorf("probe: %s sse=%v %v", eras, sse, ok)
	}
}
