package cli_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestEventsNDJSON parses --events output line by line over stdio and
// HTTP: progress, log messages, list_changed and server requests come
// first, each a JSON object, and the result comes last.
func TestEventsNDJSON(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	for _, target := range []string{"--demo", "--demo=http"} {
		res := r.run(t, "call", target, "notify", "--events", "--log-level", "debug").want(t, 0)
		evs := parseEvents(t, res)
		count := map[string]int{}
		for _, ev := range evs[:len(evs)-1] {
			if ev["event"] == "notification" {
				count[ev["method"].(string)]++
			}
		}
		// Over HTTP with JSON answers the notifications come on the GET
		// stream, unordered with the answer (and those after the result
		// are not printed): only stdio is exact.
		if target == "--demo" && (count["notifications/progress"] != 3 || count["notifications/tools/list_changed"] != 1 || count["notifications/message"] < 1) {
			t.Errorf("%s: notifications %v:\n%s", target, count, res)
		}
		final := evs[len(evs)-1]["result"].(map[string]any)
		if final["schema"] != float64(1) || final["ok"] != true || final["tool"] != "notify" {
			t.Errorf("%s: result %v", target, final)
		}

		res = r.run(t, "call", target, "ask", "--elicit=defaults", "--events").want(t, 0)
		evs = parseEvents(t, res)
		if evs[0]["event"] != "server_request" || evs[0]["method"] != "elicitation/create" || evs[0]["outcome"] != "accepted" {
			t.Errorf("%s: first event %v, want the accepted elicitation", target, evs[0])
		}

		// A tool error still ends with the result; the exit code is 5.
		res = r.run(t, "call", target, "fail", "--events").want(t, 5)
		evs = parseEvents(t, res)
		if final := evs[len(evs)-1]["result"].(map[string]any); final["isError"] != true {
			t.Errorf("%s: fail result %v", target, final)
		}
	}
}

// TestCallJSONFields parses call --json and checks its fields.
func TestCallJSONFields(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	type callJSON struct {
		Schema  int    `json:"schema"`
		OK      bool   `json:"ok"`
		Server  string `json:"server"`
		Tool    string `json:"tool"`
		IsError bool   `json:"isError"`
		Content []struct {
			Type, Text string
		} `json:"content"`
		StructuredContent map[string]float64 `json:"structuredContent"`
		TimingMs          map[string]int64   `json:"timingMs"`
		Error             *struct {
			Server, Phase, Message, Stderr string
		} `json:"error"`
	}
	parse := func(res *result) callJSON {
		t.Helper()
		var c callJSON
		if err := json.Unmarshal([]byte(res.stdout), &c); err != nil {
			t.Fatalf("call --json: %v\n%s", err, res)
		}
		return c
	}
	c := parse(r.run(t, "call", "--demo", "add", "a=2", "b=3", "--json").want(t, 0))
	if c.Schema != 1 || !c.OK || c.Tool != "add" || c.IsError || len(c.Content) != 1 || c.Content[0].Text != "5" ||
		c.StructuredContent["sum"] != 5 {
		t.Errorf("add: %+v", c)
	}
	for _, phase := range []string{"spawn", "initialize", "list", "call"} {
		if _, ok := c.TimingMs[phase]; !ok {
			t.Errorf("no timing for %s: %v", phase, c.TimingMs)
		}
	}
	c = parse(r.run(t, "call", "--demo", "fail", "--json").want(t, 5))
	if c.OK || !c.IsError {
		t.Errorf("fail: %+v", c)
	}
	c = parse(r.run(t, "call", "--demo", "crash", "--json").want(t, 1))
	if c.OK || c.Error == nil || c.Error.Phase != "call" || c.Error.Stderr == "" {
		t.Errorf("crash: %+v", c)
	}
	c = parse(r.run(t, "call", "--demo=http", "echo", "text=json over http", "--json").want(t, 0))
	if !c.OK || len(c.Content) != 1 || c.Content[0].Text != "json over http" {
		t.Errorf("http echo: %+v", c)
	}
}
