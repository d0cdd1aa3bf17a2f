package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// An sdkStep is one line of a foreign client (the Go SDK's,
// internal/peers/testdata/gosdkclient; the TypeScript SDK's,
// scripts/peers/sdk-steps-client.mjs): what the SDK's client saw at one step.
type sdkStep struct {
	Step       string          `json:"step"`
	Protocol   string          `json:"protocol,omitempty"`
	ServerInfo json.RawMessage `json:"serverInfo,omitempty"`
	Tools      json.RawMessage `json:"tools,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *struct {
		Kind    string `json:"kind"`
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
	Ms int64 `json:"ms"`
}

// A foreignClient is the command line of a client not ours that prints
// sdkSteps: the Go SDK's, or the TypeScript SDK's.
type foreignClient struct {
	name string
	argv func(t *testing.T) []string
	// roots says whether the client declares roots (a server may offer
	// it more tools): a recording to compare with declares them too.
	roots bool
}

// foreignClients are the SDK clients the replay tests run.
var foreignClients = []foreignClient{
	{"go-sdk", func(t *testing.T) []string { return []string{peers.GoSDK(t, "gosdkclient")} }, true},
	{"typescript-sdk", func(t *testing.T) []string {
		peers.SDK(t)
		return []string{peers.Node(t), filepath.Join(peers.Root(t), "scripts", "peers", "sdk-steps-client.mjs")}
	}, false},
}

// runClient runs a foreign client with flags against the stdio server
// command, and returns its steps and stderr (the server's stderr too).
func runClient(t *testing.T, r *runner, c foreignClient, flags []string, server ...string) ([]sdkStep, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := c.argv(t)
	cmd := exec.CommandContext(ctx, argv[0], append(append(append(argv[1:], flags...), "--"), server...)...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	// It exits 1 after a failed connect step, which it prints.
	if err := cmd.Run(); err != nil && (cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stdout.String(), `"step":"connect","error"`)) {
		t.Fatalf("the %s client %v: %v\n%s\n%s", c.name, cmd.Args, err, stdout.String(), stderr.String())
	}
	var steps []sdkStep
	for _, l := range lines(stdout.String()) {
		var s sdkStep
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("the %s client: %v in %s", c.name, err, l)
		}
		steps = append(steps, s)
	}
	return steps, stderr.String()
}

// sameSteps compares what the client saw, times and the order of
// members aside.
func sameSteps(t *testing.T, what string, live, replayed []sdkStep) {
	t.Helper()
	canon := func(raw json.RawMessage) json.RawMessage {
		var v any
		if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			return raw
		}
		b, _ := json.Marshal(v) // members sorted
		return b
	}
	enc := func(steps []sdkStep) string {
		var b strings.Builder
		for _, s := range steps {
			s.Ms = 0
			s.ServerInfo, s.Tools, s.Result = canon(s.ServerInfo), canon(s.Tools), canon(s.Result)
			j, _ := json.Marshal(s)
			b.Write(j)
			b.WriteByte('\n')
		}
		return b.String()
	}
	if a, b := enc(live), enc(replayed); a != b {
		t.Errorf("%s: the Go SDK client saw otherwise against the replay\nlive:\n%s\nreplayed:\n%s", what, a, b)
	}
}

// TestForeignClientsSeeTheRecording: the official Go SDK's client
// (v1.8.0) and the TypeScript SDK's (1.32.2, legacy revisions only) see
// the same from mcpwire replay as from the live server the recording
// came from (the demo server, server-everything): the revision, the
// server's identity, the tools, a call's result; over stdio, and over
// streamable HTTP (replay --listen).
func TestForeignClientsSeeTheRecording(t *testing.T) {
	proctest.Check(t)
	for _, c := range foreignClients {
		t.Run(c.name, func(t *testing.T) {
			r := newRunner(t)
			r.run(t, "call", "--demo", "--record", "demo.jsonl", "echo", "text=hi").want(t, 0)
			call := []string{"-call", "echo", "-args", `{"text":"hi"}`}
			live, _ := runClient(t, r, c, call, r.bin, "serve-demo")
			replayed, _ := runClient(t, r, c, call, r.bin, "replay", filepath.Join(r.dir, "demo.jsonl"))
			if len(live) != 3 || live[2].Result == nil || !strings.Contains(string(live[2].Result), `"text":"hi"`) {
				t.Fatalf("live: %+v", live)
			}
			// The TypeScript SDK speaks 2025-11-25 with the dual-era demo:
			// the modern recording's answers reach it without the modern
			// envelope, as the live server's did.
			sameSteps(t, "the demo server", live, replayed)
			// The same recording replayed over streamable HTTP (replay
			// --listen): the client sees what it saw live over stdio.
			sameSteps(t, "the demo server, replayed over HTTP", live, replayOverHTTP(t, r, c, call, "demo.jsonl"))

			// server-everything speaks 2025-11-25 alone: the replay of its
			// recording offers that revision alone too, as the server did,
			// so the Go SDK's client (which would take 2026-07-28) settles
			// on it again. The recording declares roots when the client
			// does (the server then offers get-roots-list).
			everything := peers.Everything(t)
			record := []string{"call", "--record", "ev.jsonl", "echo", "message=hi", "--"}
			if c.roots {
				record = append([]string{"call", "--root", r.dir}, record[1:]...)
			}
			r.run(t, append(record, everything...)...).want(t, 0)
			call = []string{"-call", "echo", "-args", `{"message":"hi"}`}
			live, _ = runClient(t, r, c, call, everything...)
			replayed, _ = runClient(t, r, c, call, r.bin, "replay", filepath.Join(r.dir, "ev.jsonl"))
			if len(live) != 3 || live[0].Protocol != "2025-11-25" || !strings.Contains(string(live[2].Result), "Echo: hi") {
				t.Fatalf("live: %+v", live)
			}
			sameSteps(t, "server-everything", live, replayed)
			sameSteps(t, "server-everything, replayed over HTTP", live, replayOverHTTP(t, r, c, call, "ev.jsonl"))
			if c.name == "go-sdk" {
				// --any-era serves what the recorded server did not: 2026-07-28.
				replayed, _ = runClient(t, r, c, nil, r.bin, "replay", "--any-era", filepath.Join(r.dir, "ev.jsonl"))
				if replayed[0].Protocol != "2026-07-28" {
					t.Errorf("--any-era: the SDK's client spoke %s", replayed[0].Protocol)
				}
			}
		})
	}
}

// replayOverHTTP is what client c saw of the recording rec replayed by
// replay --listen over streamable HTTP.
func replayOverHTTP(t *testing.T, r *runner, c foreignClient, flags []string, rec string) []sdkStep {
	t.Helper()
	url, stop := startListen(t, r, "replay", "--listen", "127.0.0.1:0", filepath.Join(r.dir, rec))
	defer stop()
	steps, stderr := runClient(t, r, c, append([]string{"-url", url}, flags...))
	if len(steps) == 0 {
		t.Fatalf("the %s client over HTTP printed nothing:\n%s", c.name, stderr)
	}
	return steps
}

// TestForeignClientsSeeTheFaults: each fault of replay --inject reaches
// the Go SDK's and the TypeScript SDK's client as the fault it is: error
// as a JSON-RPC error (-32603), drop as the client's own timeout,
// kill-after as a closed connection after the requests it allows,
// latency as the same answers, later (a lower bound only: the replay
// waits at least the latency less the jitter). The replay counts each
// on stderr at exit.
func TestForeignClientsSeeTheFaults(t *testing.T) {
	proctest.Check(t)
	for _, c := range foreignClients {
		t.Run(c.name, func(t *testing.T) { seeTheFaults(t, c) })
	}
}

func seeTheFaults(t *testing.T, c foreignClient) {
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "demo.jsonl", "echo", "text=hi").want(t, 0)
	rec := filepath.Join(r.dir, "demo.jsonl")
	call := []string{"-call", "echo", "-args", `{"text":"hi"}`}
	live, _ := runClient(t, r, c, call, r.bin, "replay", rec)
	replay := func(inject string) []string { return []string{r.bin, "replay", "--seed", "1", "--inject", inject, rec} }
	kinds := func(steps []sdkStep) string {
		var out []string
		for _, s := range steps[1:] {
			k := "ok"
			if s.Error != nil {
				k = s.Error.Kind
			}
			out = append(out, s.Step+":"+k)
		}
		return strings.Join(out, " ")
	}

	steps, stderr := runClient(t, r, c, append([]string{"-repeat", "2"}, call...), replay("error=100%")...)
	if got := kinds(steps); got != "tools:jsonrpc call:jsonrpc call:jsonrpc" || steps[2].Error.Code != -32603 || !strings.Contains(stderr, "faults injected: error 3") {
		t.Errorf("error=100%%: %s\n%+v\n%s", got, steps, stderr)
	}
	timeout := "500ms"
	if c.name != "go-sdk" {
		timeout = "500" // milliseconds
	}
	steps, stderr = runClient(t, r, c, append([]string{"-timeout", timeout}, call...), replay("drop=100%")...)
	if got := kinds(steps); got != "tools:timeout call:timeout" || !strings.Contains(stderr, "faults injected: drop 2") {
		t.Errorf("drop=100%%: %s\n%s", got, stderr)
	}
	steps, stderr = runClient(t, r, c, append([]string{"-repeat", "3"}, call...), replay("kill-after=2")...)
	if got := kinds(steps); got != "tools:ok call:ok call:closed call:closed" || !strings.Contains(stderr, "kill-after 1") {
		t.Errorf("kill-after=2: %s\n%s", got, stderr)
	}
	steps, stderr = runClient(t, r, c, append([]string{"-repeat", "2"}, call...), replay("latency=200ms±50ms")...)
	sameSteps(t, "latency", append(live, live[2]), steps)
	for _, s := range steps[1:] {
		if s.Ms < 150 {
			t.Errorf("latency=200ms±50ms: %s answered in %d ms", s.Step, s.Ms)
		}
	}
	if !strings.Contains(stderr, "faults injected: latency 3") {
		t.Errorf("latency: %s", stderr)
	}
	t.Logf("latency=200ms±50ms seen by the %s client: %d, %d, %d ms", c.name, steps[1].Ms, steps[2].Ms, steps[3].Ms)
}

// inspector runs the MCP Inspector's CLI with args (its --method flags,
// the server's command line, then --tool-arg pairs) and returns its
// exit code, stdout and stderr.
func inspector(t *testing.T, r *runner, args ...string) (int, string, string) {
	t.Helper()
	argv, dir := peers.InspectorCLI(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], args...)...)
	cmd.Dir, cmd.Env = dir, r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("the MCP Inspector CLI %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// canonJSON is a JSON document with its members sorted ("" when it is
// not one).
func canonJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestInspectorCLISeesTheRecording: the MCP Inspector's CLI (1.0.3, the
// TypeScript SDK's client in the legacy era) prints the same tools and
// call result from mcpwire replay as from the live server the recording
// came from (the demo server, server-everything), and an injected error
// as the JSON-RPC error it is.
func TestInspectorCLISeesTheRecording(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "demo.jsonl", "echo", "text=hi").want(t, 0)
	everything := peers.Everything(t)
	r.run(t, append([]string{"call", "--record", "ev.jsonl", "echo", "message=hi", "--"}, everything...)...).want(t, 0)
	for _, tc := range []struct {
		name   string
		live   []string
		rec    string
		toolKV string
	}{
		{"demo", []string{r.bin, "serve-demo"}, "demo.jsonl", "text=hi"},
		{"everything", everything, "ev.jsonl", "message=hi"},
	} {
		replay := []string{r.bin, "replay", filepath.Join(r.dir, tc.rec)}
		for _, method := range [][]string{{"--method", "tools/list"}, {"--method", "tools/call", "--tool-name", "echo"}} {
			var tail []string
			if method[1] == "tools/call" {
				tail = []string{"--tool-arg", tc.toolKV}
			}
			code, live, stderr := inspector(t, r, append(append(append([]string{}, method...), tc.live...), tail...)...)
			if code != 0 || canonJSON(live) == "" {
				t.Fatalf("%s %s live: exit %d\n%s\n%s", tc.name, method[1], code, live, stderr)
			}
			code, replayed, stderr := inspector(t, r, append(append(append([]string{}, method...), replay...), tail...)...)
			if code != 0 || canonJSON(replayed) != canonJSON(live) {
				t.Errorf("%s %s: the Inspector saw otherwise against the replay (exit %d)\nlive:\n%s\nreplayed:\n%s\n%s", tc.name, method[1], code, live, replayed, stderr)
			}
		}
	}
	code, stdout, stderr := inspector(t, r, "--method", "tools/call", "--tool-name", "echo", r.bin, "replay", "--inject", "error=100%", filepath.Join(r.dir, "demo.jsonl"), "--tool-arg", "text=hi")
	if code == 0 || !strings.Contains(stdout+stderr, "MCP error -32603: replay: an error injected on purpose") {
		t.Errorf("error=100%%: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestGoSDKClientSeesTheWireFaults: the wire faults of replay --inject
// reach the Go SDK's client (v1.8.0) as the SDK reports them. garble=100%
// over stdio: the connection closed (mcp.ErrConnectionClosed), the JSON
// decoder's error in its message. Over replay --listen (the SDK's
// streamable client transport): garble, in 2025-11-25, a plain error
// ("failed to decode response"); in 2026-07-28 the closed connection
// around the same decode error of server/discover. slow-stream: every
// answer as without the fault, in each revision (the fault is in the
// framing only). close-stream: the 2025-11-25 client resumes the cut SSE
// answer (the priming event's id) and sees every answer; a 2025-06-18 or
// 2026-07-28 one, with nothing to resume by, reports each request as
// "terminated without response".
func TestGoSDKClientSeesTheWireFaults(t *testing.T) {
	proctest.Check(t)
	c, r, rec, call := goSDKOnDemo(t)
	steps, stderr := runClient(t, r, c, call, r.bin, "replay", "--inject", "garble=100%", rec)
	if got := stepKinds(steps, false); got != "connect:closed" || !strings.Contains(steps[0].Error.Message, "invalid character") || !strings.Contains(stderr, "faults injected: garble 1") {
		t.Errorf("garble=100%% over stdio: %s\n%+v\n%s", got, steps, stderr)
	}
	t.Logf("garble=100%% over stdio: %s", stepLog(steps))

	live, _ := runClient(t, r, c, call, r.bin, "replay", rec)
	serve := func(fault string, see func(url string)) string {
		t.Helper()
		url, stop := startListenOut(t, r, "replay", "--listen", "127.0.0.1:0", "--inject", fault, rec)
		see(url)
		return stop()
	}
	at := func(url, protocol string) []sdkStep {
		steps, _ := runClient(t, r, c, append([]string{"-url", url, "-protocol", protocol}, call...))
		t.Logf("%s, %s: %s", url, protocol, stepLog(steps))
		return steps
	}
	out := serve("garble=100%", func(url string) {
		if s := at(url, "2025-11-25"); stepKinds(s, false) != "connect:other" || !strings.Contains(s[0].Error.Message, "failed to decode response") {
			t.Errorf("garble over HTTP, 2025-11-25: %+v", s)
		}
		if s := at(url, "2026-07-28"); stepKinds(s, false) != "connect:closed" || !strings.Contains(s[0].Error.Message, "failed to decode response") {
			t.Errorf("garble over HTTP, 2026-07-28: %+v", s)
		}
	})
	if !strings.Contains(out, "faults injected: garble") {
		t.Errorf("garble over HTTP not counted:\n%s", out)
	}
	out = serve("slow-stream", func(url string) {
		for _, p := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
			s := at(url, p)
			if stepKinds(s, false) != "connect:ok tools:ok call:ok call:ok" || s[0].Protocol != p || !strings.Contains(string(s[3].Result), `"text":"hi"`) {
				t.Errorf("slow-stream, %s: %+v", p, s)
			}
			if p == "2026-07-28" {
				sameSteps(t, "slow-stream", live, s)
			}
		}
	})
	if !strings.Contains(out, "faults injected: slow-stream") {
		t.Errorf("slow-stream not counted:\n%s", out)
	}
	out = serve("close-stream", func(url string) {
		if s := at(url, "2025-11-25"); stepKinds(s, false) != "connect:ok tools:ok call:ok call:ok" || !strings.Contains(string(s[3].Result), `"text":"hi"`) {
			t.Errorf("close-stream, 2025-11-25 (resumed): %+v", s)
		}
		for _, p := range []string{"2025-06-18", "2026-07-28"} {
			s := at(url, p)
			if stepKinds(s, false) != "connect:ok tools:other call:other call:other" || !strings.Contains(s[3].Error.Message, "terminated without response") {
				t.Errorf("close-stream, %s (nothing to resume by): %+v", p, s)
			}
		}
	})
	if !strings.Contains(out, "faults injected: close-stream") {
		t.Errorf("close-stream not counted:\n%s", out)
	}
}

// stepLog is steps in short for a test's log: each step's kind and
// error, or its result's first bytes.
func stepLog(steps []sdkStep) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Step + ":")
		switch {
		case s.Error != nil:
			b.WriteString(s.Error.Kind + " " + strconv.Quote(s.Error.Message))
		case s.Protocol != "":
			b.WriteString(s.Protocol)
		case len(s.Result) > 0:
			b.WriteString(string(s.Result[:min(len(s.Result), 60)]))
		default:
			b.WriteString("ok")
		}
		b.WriteString("; ")
	}
	return b.String()
}

// TestGoSDKClientSeesTheFaultsOverHTTP: the faults of replay --inject
// that are not the wire's reach the Go SDK's client (v1.8.0, streamable
// HTTP, replay --listen) as over stdio: error as the JSON-RPC error
// -32603; drop as the client's own timeout; kill-after, the replay
// dropping each connection after the requests it allows, as the SDK's
// own -32005 "rejected by transport" (its error for a request it could
// not send); latency as the same answers, later (a lower bound only).
func TestGoSDKClientSeesTheFaultsOverHTTP(t *testing.T) {
	proctest.Check(t)
	c, r, rec, call := goSDKOnDemo(t)
	see := func(fault, protocol string, flags ...string) ([]sdkStep, string) {
		t.Helper()
		url, stop := startListenOut(t, r, "replay", "--seed", "1", "--listen", "127.0.0.1:0", "--inject", fault, rec)
		steps, _ := runClient(t, r, c, append(append([]string{"-url", url, "-protocol", protocol}, flags...), call...))
		out := stop()
		t.Logf("%s, %s: %s", fault, protocol, stepLog(steps))
		return steps, out
	}
	for _, p := range []string{"2026-07-28", "2025-11-25"} {
		steps, out := see("error=100%", p)
		if got := stepKinds(steps, true); got != "connect:ok tools:jsonrpc-32603 call:jsonrpc-32603 call:jsonrpc-32603" || !strings.Contains(out, "faults injected: error 3") {
			t.Errorf("error=100%%, %s: %s\n%s", p, got, out)
		}
		steps, out = see("kill-after=2", p)
		if got := stepKinds(steps, true); got != "connect:ok tools:ok call:ok call:jsonrpc-32005" || !strings.Contains(out, "kill-after 1") {
			t.Errorf("kill-after=2, %s: %s\n%s", p, got, out)
		}
		steps, out = see("latency=200ms±50ms", p)
		if got := stepKinds(steps, true); got != "connect:ok tools:ok call:ok call:ok" || !strings.Contains(out, "faults injected: latency") {
			t.Errorf("latency, %s: %s\n%s", p, got, out)
		}
		for _, s := range steps[1:] {
			if s.Ms < 150 {
				t.Errorf("latency=200ms±50ms, %s: %s answered in %d ms", p, s.Step, s.Ms)
			}
		}
	}
	// drop: each request times out, in both revisions. (In 2026-07-28
	// the SDK then sends notifications/cancelled, which that revision does
	// not carry over HTTP; the server accepts it (202) and ignores it, so
	// the SDK keeps its session.)
	for _, p := range []string{"2025-11-25", "2026-07-28"} {
		steps, out := see("drop=100%", p, "-timeout", "500ms")
		if got := stepKinds(steps, true); got != "connect:ok tools:timeout call:timeout call:timeout" || !strings.Contains(out, "faults injected: drop 3") {
			t.Errorf("drop=100%%, %s: %s\n%s", p, got, out)
		}
	}
}

// stepKinds is each step as STEP:KIND, KIND "ok" or the failure's kind
// (with its code when withCode says so and there is one).
func stepKinds(steps []sdkStep, withCode bool) string {
	var out []string
	for _, s := range steps {
		k := "ok"
		if s.Error != nil {
			k = s.Error.Kind
			if withCode && s.Error.Code != 0 {
				k += strconv.FormatInt(s.Error.Code, 10)
			}
		}
		out = append(out, s.Step+":"+k)
	}
	return strings.Join(out, " ")
}

// goSDKOnDemo is the Go SDK's client, a runner, a recording of the demo
// server's echo and the client's flags to call it twice.
func goSDKOnDemo(t *testing.T) (foreignClient, *runner, string, []string) {
	t.Helper()
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "demo.jsonl", "echo", "text=hi").want(t, 0)
	rec := filepath.Join(r.dir, "demo.jsonl")
	return foreignClients[0], r, rec, []string{"-repeat", "2", "-call", "echo", "-args", `{"text":"hi"}`}
}
