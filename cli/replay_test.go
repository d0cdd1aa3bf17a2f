package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestReplayARecording: a session recorded against the demo server is
// served back by mcpwire replay: the same call gets the same answer, in
// the era it was recorded in and in the other one; a call the recording
// does not hold gets an error naming the closest recorded one.
func TestReplayARecording(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hello replay").want(t, 0)
	replay := []string{"--", r.bin, "replay", "rec.jsonl"}
	res := r.run(t, append([]string{"call", "echo", "text=hello replay"}, replay...)...).want(t, 0)
	if !strings.Contains(res.stdout, "hello replay") {
		t.Errorf("the replayed answer:\n%s", res)
	}
	res = r.run(t, append([]string{"call", "--protocol", "2025-06-18", "echo", "text=hello replay"}, replay...)...).want(t, 0)
	if !strings.Contains(res.stdout, "hello replay") {
		t.Errorf("the replayed answer in the legacy era:\n%s", res)
	}
	res = r.run(t, append([]string{"call", "echo", "text=other"}, replay...)...).want(t, 1)
	if !strings.Contains(res.stderr, "closest recorded") || !strings.Contains(res.stderr, "hello replay") {
		t.Errorf("an unknown call does not name the closest recorded one:\n%s", res)
	}
	r.run(t, "replay", "nosuch.jsonl").want(t, 2)
}

// TestReplayFaults: --inject error=100% answers the first request with
// an injected error; kill-after=1 ends the replay after one request;
// each run counts its faults on stderr at exit (seen here through the
// client's --verbose); an unknown fault is a usage error.
func TestReplayFaults(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hi").want(t, 0)
	res := r.run(t, "call", "--verbose", "echo", "text=hi", "--", r.bin, "replay", "--seed", "7", "--inject", "error=100%", "rec.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "injected on purpose") || !strings.Contains(res.stderr, "faults injected: error 1") {
		t.Errorf("error=100%%:\n%s", res)
	}
	res = r.run(t, "call", "--verbose", "echo", "text=hi", "--", r.bin, "replay", "--inject", "latency=1ms±1ms,kill-after=1", "rec.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "kill-after 1") {
		t.Errorf("kill-after=1:\n%s", res)
	}
	r.run(t, "replay", "--inject", "bogus=1", "rec.jsonl").want(t, 2)
}

// TestReplayListen: a recording made over stdio is served over streamable
// HTTP by replay --listen (in both eras), and one made over HTTP is
// served over stdio; a --listen address that is not loopback is refused
// as proxy refuses it.
func TestReplayListen(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "stdio.jsonl", "echo", "text=from stdio").want(t, 0)
	r.run(t, "call", "--demo=http", "--record", "http.jsonl", "echo", "text=from http").want(t, 0)
	r.run(t, "replay", "--listen", "0.0.0.0:0", "stdio.jsonl").want(t, 2)

	url, stop := startListen(t, r, "replay", "--listen", "127.0.0.1:0", "stdio.jsonl")
	defer stop()
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-06-18"} {
		res := r.run(t, "call", url, "echo", "text=from stdio", pin).want(t, 0)
		if strings.TrimSpace(res.stdout) != "from stdio" {
			t.Errorf("%s: a stdio recording replayed over HTTP:\n%s", pin, res)
		}
	}
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-06-18"} {
		res := r.run(t, "call", "echo", "text=from http", pin, "--", r.bin, "replay", "http.jsonl").want(t, 0)
		if strings.TrimSpace(res.stdout) != "from http" {
			t.Errorf("%s: an HTTP recording replayed over stdio:\n%s", pin, res)
		}
	}
}

// TestReplayPages: a list recorded page by page (the demo's
// --page-size) is replayed whole: the recorded nextCursor the replay
// returns is what the client sends next, and that matches the recorded
// request of the next page, in either era.
func TestReplayPages(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	tools := func(res *result) []string {
		t.Helper()
		var doc struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
			t.Fatalf("%v:\n%s", err, res)
		}
		var names []string
		for _, tool := range doc.Tools {
			names = append(names, tool.Name)
		}
		return names
	}
	live := tools(r.run(t, "test", "--json", "--record", "pages.jsonl", "--", r.bin, "serve-demo", "--page-size", "2").want(t, 0))
	if len(live) < 6 {
		t.Fatalf("the demo lists %v", live)
	}
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-06-18"} {
		got := tools(r.run(t, "test", "--json", pin, "--", r.bin, "replay", "pages.jsonl").want(t, 0))
		if !slices.Equal(got, live) {
			t.Errorf("%s: replayed %v, live %v", pin, got, live)
		}
	}
}

// TestReplayLoose: a call with other arguments than recorded is refused
// by the exact match (naming the closest and the way out), answered
// with --ignore-field naming the argument, and with --match loose.
func TestReplayLoose(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=recorded").want(t, 0)
	replay := func(flags ...string) []string {
		return append(append([]string{"call", "echo", "text=other", "--", r.bin, "replay"}, flags...), "rec.jsonl")
	}
	res := r.run(t, replay()...).want(t, 1)
	if !strings.Contains(res.stderr, `"text":"recorded"`) || !strings.Contains(res.stderr, "--match loose") {
		t.Errorf("exact: the error does not name the closest call and the way out:\n%s", res)
	}
	for _, flags := range [][]string{{"--ignore-field", "text"}, {"--ignore-field", "arguments.text"}, {"--match", "loose"}} {
		res := r.run(t, replay(flags...)...).want(t, 0)
		if strings.TrimSpace(res.stdout) != "recorded" {
			t.Errorf("%v: %s", flags, res)
		}
	}
	res = r.run(t, "call", "add", "a=1", "b=2", "--", r.bin, "replay", "--match", "loose", "rec.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "no tools/call request like this one") {
		t.Errorf("loose answers another tool's call:\n%s", res)
	}
	r.run(t, "replay", "--match", "fuzzy", "rec.jsonl").want(t, 2)
	r.run(t, "replay", "--speed", "-1", "rec.jsonl").want(t, 2)
}

// TestReplayNotifications: what the server sent during a recorded call
// (tools/list_changed, three progress notifications) is sent again, in
// its order, before the answer, to a client that speaks raw JSON-RPC over
// the pipe: its own id answered, its own progressToken in each progress
// (not the recorded one), and no progress for a request that gave none.
func TestReplayNotifications(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--protocol", "2025-06-18", "--record", "rec.jsonl", "notify").want(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, "replay", "--speed", "0", "rec.jsonl")
	cmd.Dir, cmd.Env = r.dir, r.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until reads lines up to the answer to id, and returns the methods of
	// the notifications before it and their params.
	until := func(id string) (methods []string, params []string) {
		t.Helper()
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("not JSON: %s", sc.Bytes())
			}
			if m.Method == "" && string(m.ID) == id {
				return methods, params
			}
			methods, params = append(methods, m.Method), append(params, string(m.Params))
		}
		t.Fatalf("no answer to %s: %v", id, sc.Err())
		return nil, nil
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	until(`"init"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":"x-1","method":"tools/call","params":{"name":"notify","_meta":{"progressToken":"theirs-7"}}}`)
	methods, params := until(`"x-1"`)
	want := []string{"notifications/tools/list_changed", "notifications/progress", "notifications/progress", "notifications/progress"}
	if !slices.Equal(methods[:min(len(methods), 4)], want) {
		t.Fatalf("sent before the answer: %v, want %v first", methods, want)
	}
	for i, p := range params[1:4] {
		if !strings.Contains(p, `"progressToken":"theirs-7"`) || !strings.Contains(p, fmt.Sprintf(`"progress":%d`, i+1)) {
			t.Errorf("progress %d: %s", i+1, p)
		}
	}
	send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"notify"}}`)
	methods, _ = until(`42`)
	if slices.Contains(methods, "notifications/progress") {
		t.Errorf("progress sent to a request without a progressToken: %v", methods)
	}
}

// TestReplayWireFaults: garble=100% makes the answers invalid JSON, over
// stdio and over HTTP, and the client says so; slow-stream sends SSE
// answers in small writes, which the client reads whole; close-stream
// cuts a POST's SSE answer mid-event, which a 2025-11-25 client resumes
// (the priming event's id) and a 2025-06-18 one cannot; each is counted
// at exit; the stream faults need --listen.
func TestReplayWireFaults(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hi").want(t, 0)
	res := r.run(t, "call", "echo", "text=hi", "--", r.bin, "replay", "--inject", "garble=100%", "rec.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "not valid JSON") {
		t.Errorf("garble over stdio:\n%s", res)
	}
	r.run(t, "replay", "--inject", "slow-stream", "rec.jsonl").want(t, 2)

	serve := func(fault string, calls func(url string)) string {
		t.Helper()
		url, stop := startListenOut(t, r, "replay", "--listen", "127.0.0.1:0", "--inject", fault, "rec.jsonl")
		calls(url)
		return stop()
	}
	out := serve("garble=100%", func(url string) {
		res := r.run(t, "call", url, "echo", "text=hi", "--protocol=2025-06-18").want(t, 1)
		if !strings.Contains(res.stderr, "JSON") {
			t.Errorf("garble over HTTP:\n%s", res)
		}
	})
	if !strings.Contains(out, "faults injected: garble") {
		t.Errorf("garble not counted:\n%s", out)
	}
	out = serve("slow-stream", func(url string) {
		for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
			res := r.run(t, "call", url, "echo", "text=hi", pin).want(t, 0)
			if strings.TrimSpace(res.stdout) != "hi" {
				t.Errorf("%s: slow-stream:\n%s", pin, res)
			}
		}
	})
	if !strings.Contains(out, "slow-stream") {
		t.Errorf("slow-stream not counted:\n%s", out)
	}
	out = serve("close-stream", func(url string) {
		res := r.run(t, "call", url, "echo", "text=hi", "--protocol=2025-11-25").want(t, 0)
		if strings.TrimSpace(res.stdout) != "hi" {
			t.Errorf("close-stream, resumed:\n%s", res)
		}
		res = r.run(t, "call", url, "echo", "text=hi", "--protocol=2025-06-18").want(t, 1)
		if !strings.Contains(res.stderr, "ended before the response") {
			t.Errorf("close-stream, no id to resume by:\n%s", res)
		}
	})
	if !strings.Contains(out, "close-stream") {
		t.Errorf("close-stream not counted:\n%s", out)
	}
}

// TestReplayServerRequests: a request the server made during a recorded
// call (roots/list, legacy era) is made again of the replay's client,
// which answers it, before the recorded answer.
func TestReplayServerRequests(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	root := t.TempDir()
	r.run(t, "call", "--demo", "--protocol", "2025-06-18", "--root", root, "--record", "rec.jsonl", "roots").want(t, 0)
	res := r.run(t, "call", "--protocol", "2025-06-18", "--root", root, "--events", "roots", "--", r.bin, "replay", "rec.jsonl").want(t, 0)
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"event":"server_request","method":"roots/list","outcome":"answered"`) || !strings.Contains(lines[1], `"event":"result"`) {
		t.Errorf("the replay did not ask for the roots before its answer:\n%s", res)
	}
}

// TestReplayServers: list --record records every server's session in one
// file; replay serves one of them with --server NAME (in the era each
// was recorded in or the other), and without it names the servers.
func TestReplayServers(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	writeJSON(t, filepath.Join(r.home, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"modern": map[string]any{"command": r.bin, "args": []string{"serve-demo", "--era=modern"}},
		"legacy": map[string]any{"command": r.bin, "args": []string{"serve-demo", "--era=legacy", "--tools", "2"}},
	}})
	r.run(t, "approve", "--all").want(t, 0)
	r.run(t, "list", "--record", "all.jsonl").want(t, 0)
	res := r.run(t, "test", "--", r.bin, "replay", "all.jsonl").want(t, 1)
	if !strings.Contains(res.stderr, "choose one with --server NAME") || !strings.Contains(res.stderr, "legacy") {
		t.Errorf("a recording of two servers without --server:\n%s", res)
	}
	for _, c := range []struct {
		server string
		tools  int
	}{{"modern", 12}, {"legacy", 14}} {
		res := r.run(t, "test", "--json", "--", r.bin, "replay", "--server", c.server, "all.jsonl").want(t, 0)
		var doc struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil || len(doc.Tools) != c.tools {
			t.Errorf("%s: %d tools, want %d (%v):\n%s", c.server, len(doc.Tools), c.tools, err, res)
		}
	}
}

// TestReplayInputRequests: a modern recording of a call that asked for
// input (input_required, then the retry with the answers) replays to a
// modern client as recorded, and to a legacy client as a legacy server
// asks: an elicitation/create request the client answers, then the
// recorded retry's answer.
func TestReplayInputRequests(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--elicit", "defaults", "--record", "rec.jsonl", "ask").want(t, 0)
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-06-18"} {
		res := r.run(t, "call", pin, "--elicit", "defaults", "--events", "ask", "--", r.bin, "replay", "rec.jsonl").want(t, 0)
		lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
		if len(lines) != 2 || !strings.Contains(lines[0], `"method":"elicitation/create","outcome":"accepted"`) || !strings.Contains(lines[1], `Ada`) {
			t.Errorf("%s: the elicitation replayed:\n%s", pin, res)
		}
	}
}

// TestReplaySeesWhatLiveSaw: the events mcpwire's client saw of a live
// call (the demo's list_changed after each tools/list answer, progress
// and a log message during the notify call) are the events it sees of
// the replay, in the same order, in the era recorded.
func TestReplaySeesWhatLiveSaw(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	notes := func(res *result) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
			// The replay answers logging/setLevel itself, without a
			// line of its own: the recorded server's is the one seen.
			if strings.Contains(l, `"event":"notification"`) {
				out = append(out, l)
			}
		}
		return out
	}
	for _, pin := range []string{"--protocol=2025-06-18", "--protocol=2026-07-28"} {
		call := []string{"call", pin, "--log-level", "info", "--events", "notify"}
		live := notes(r.run(t, append(call, "--record", "rec.jsonl", "--", r.bin, "serve-demo", "--list-changed", "1")...).want(t, 0))
		got := notes(r.run(t, append(call, "--", r.bin, "replay", "rec.jsonl")...).want(t, 0))
		if len(live) < 4 || !slices.Equal(got, live) {
			t.Errorf("%s: live:\n%s\nreplayed:\n%s", pin, strings.Join(live, "\n"), strings.Join(got, "\n"))
		}
	}
}
