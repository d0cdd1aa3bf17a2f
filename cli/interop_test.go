package cli_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestInteropEverythingStdio runs test and call against the reference
// server-everything over stdio. Without --root no roots are offered (the
// server then has no get-roots-list tool); with --root its roots/list
// request (sent after initialized, because the client declares roots) is
// answered with the roots given.
func TestInteropEverythingStdio(t *testing.T) {
	proctest.Check(t)
	cmd := peers.Everything(t)
	r := newRunner(t)

	toolNames := func(args ...string) []string {
		t.Helper()
		res := r.run(t, append(append([]string{"test", "--json"}, args...), append([]string{"--"}, cmd...)...)...).want(t, 0)
		var report struct {
			OK    bool `json:"ok"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &report); err != nil || !report.OK {
			t.Fatalf("test --json: %v\n%s", err, res)
		}
		var names []string
		for _, tl := range report.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	if names := toolNames(); !contains(names, "echo") || contains(names, "get-roots-list") {
		t.Fatalf("tools %v, want echo and, with no roots offered, no get-roots-list", names)
	}
	if names := toolNames("--root", r.dir); !contains(names, "get-roots-list") {
		t.Fatalf("tools %v with --root, want get-roots-list", names)
	}
	var res *result

	res = r.run(t, append([]string{"call", "echo", "message=hello interop", "--"}, cmd...)...).want(t, 0)
	if !strings.Contains(res.stdout, "hello interop") {
		t.Errorf("echo:\n%s", res)
	}

	res = r.run(t, append([]string{"call", "--events", "--root", r.dir, "get-roots-list", "--"}, cmd...)...).want(t, 0)
	evs := parseEvents(t, res)
	answered := false
	for _, ev := range evs {
		if ev["event"] == "server_request" && ev["method"] == "roots/list" && ev["outcome"] == "answered" {
			answered = true
		}
	}
	if !answered {
		t.Errorf("no answered roots/list in the events:\n%s", res)
	}
	last, _ := json.Marshal(evs[len(evs)-1])
	if !strings.Contains(string(last), "file://"+r.dir) {
		t.Errorf("the server did not get the root %s:\n%s", r.dir, res)
	}
}

// TestInteropEverythingHTTP runs test and call against server-everything
// over streamable HTTP and over the legacy HTTP+SSE transport.
func TestInteropEverythingHTTP(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	for _, mode := range []string{"streamable", "sse"} {
		t.Run(mode, func(t *testing.T) {
			url := peers.EverythingHTTP(t, mode)
			res := r.run(t, "test", url).want(t, 0)
			if !strings.Contains(res.stdout, "echo") {
				t.Errorf("no echo tool listed:\n%s", res)
			}
			// The transport spoken is reported: the legacy HTTP+SSE
			// fallback is "sse", not "http".
			want := map[string]string{"streamable": "http", "sse": "sse"}[mode]
			res = r.run(t, "test", url, "--json").want(t, 0)
			var rep struct{ Transport string }
			if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || rep.Transport != want {
				t.Errorf("test --json transport %q, want %q (%v)", rep.Transport, want, err)
			}
			r.run(t, "add", "ev-"+mode, url).want(t, 0)
			res = r.run(t, "list").want(t, 0)
			if !regexp.MustCompile(`(?m)^ev-` + mode + ` +user +` + want + ` `).MatchString(res.stdout) {
				t.Errorf("list does not say %s for ev-%s:\n%s", want, mode, res)
			}
			res = r.run(t, "call", url, "echo", "message=over "+mode, "--json").want(t, 0)
			var out struct {
				OK      bool `json:"ok"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || !out.OK || len(out.Content) == 0 ||
				!strings.Contains(out.Content[0].Text, "over "+mode) {
				t.Errorf("call echo (%v):\n%s", err, res)
			}
		})
	}
}

// parseEvents parses --events output: one JSON object a line, the result
// last.
func parseEvents(t *testing.T, res *result) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range lines(res.stdout) {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("--events line %q is not a JSON object: %v\n%s", line, err, res)
		}
		if _, ok := ev["event"].(string); !ok {
			t.Fatalf("--events line %q has no event name", line)
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 || evs[len(evs)-1]["event"] != "result" {
		t.Fatalf("--events: the result is not last:\n%s", res)
	}
	for _, ev := range evs[:len(evs)-1] {
		if ev["event"] == "result" {
			t.Fatalf("--events: two results:\n%s", res)
		}
	}
	return evs
}
