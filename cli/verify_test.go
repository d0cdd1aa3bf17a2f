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

// A verifyDoc is what the tests read of `verify --json`.
type verifyDoc struct {
	OK                       bool
	Protocol                 string
	Same, Different, Skipped int
	Requests                 []struct {
		Method, Name, Status, Note string
		Changes                    []struct{ Class, Item, Name, Change string }
		Values                     []struct{ Path, Change string }
	}
}

func readVerifyDoc(t *testing.T, res *result) *verifyDoc {
	t.Helper()
	var d verifyDoc
	if err := json.Unmarshal([]byte(res.stdout), &d); err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	return &d
}

// TestVerifyAgainstTheDemo: a recording of the demo server verifies
// against the live demo server it came from (exit 0), in both eras,
// and fails against the demo's --next-release (exit 1), which removes
// crash and narrows add's arguments: the tools/list request shows the
// surface changes of diff, the call of add still answers the same.
func TestVerifyAgainstTheDemo(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "add", "a=1", "b=2").want(t, 0)
	r.run(t, "call", "--demo", "--protocol", "2025-06-18", "--record", "legacy.jsonl", "echo", "text=hi").want(t, 0)
	live := []string{"--", r.bin, "serve-demo"}
	next := []string{"--", r.bin, "serve-demo", "--next-release"}

	res := r.run(t, append([]string{"verify", "rec.jsonl"}, live...)...).want(t, 0)
	if !strings.Contains(res.stdout, "2 same, 0 different") {
		t.Errorf("against the server it came from:\n%s", res)
	}
	d := readVerifyDoc(t, r.run(t, append([]string{"verify", "legacy.jsonl", "--json"}, live...)...).want(t, 0))
	if !d.OK || d.Protocol != "2025-06-18" || d.Same != 2 {
		t.Errorf("a legacy recording: ok %v, protocol %s, %d same", d.OK, d.Protocol, d.Same)
	}

	res = r.run(t, append([]string{"verify", "rec.jsonl"}, next...)...).want(t, 1)
	for _, want := range []string{"✗ tools/list", "tool crash: removed", "tool add: argument a: type number → integer", "✓ tools/call add", "1 same, 1 different", "answered otherwise"} {
		if !strings.Contains(res.stdout+res.stderr, want) {
			t.Errorf("against --next-release: no %q:\n%s", want, res)
		}
	}
	d = readVerifyDoc(t, r.run(t, append([]string{"verify", "rec.jsonl", "--json"}, next...)...).want(t, 1))
	if d.OK || d.Different != 1 || len(d.Requests) != 2 || d.Requests[0].Status != "different" || d.Requests[1].Status != "same" {
		t.Fatalf("--json against --next-release: %+v", d)
	}
	// Known changes: the tools and the server's version, accepted.
	if err := os.WriteFile(filepath.Join(r.dir, "accept.txt"), []byte("tool *\nserver mcpwire-demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = r.run(t, append([]string{"verify", "rec.jsonl", "--accept", "accept.txt"}, next...)...).want(t, 0)
	if !strings.Contains(res.stdout, "~ accepted: tool crash: removed (breaking)") || !strings.Contains(res.stdout, "2 same, 0 different") {
		t.Errorf("--accept:\n%s", res)
	}
	removed := false
	for _, c := range d.Requests[0].Changes {
		removed = removed || (c.Item == "tool" && c.Name == "crash" && c.Change == "removed" && c.Class == "breaking")
	}
	if !removed {
		t.Errorf("--json: no breaking removal of crash: %+v", d.Requests[0].Changes)
	}
}

// TestVerifyValuesAndIgnore: an answer that differs from the recording
// (the recording's text changed by hand) is a difference at its path;
// --ignore of that path, or of a wildcard over it, makes it the same; a
// recorded JSON-RPC error is compared as one; bad paths and files are
// usage errors; a target that does not start is a server failure.
func TestVerifyValuesAndIgnore(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "echo", "text=hello").want(t, 0)
	path := filepath.Join(r.dir, "rec.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"text":"hello","type"`, `"text":"goodbye","type"`, 1)
	if changed == string(data) {
		t.Fatalf("the recording holds no echoed text:\n%s", data)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "changed.jsonl"), []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	res := r.run(t, "verify", "changed.jsonl", "--demo").want(t, 1)
	if !strings.Contains(res.stdout, `result.content[0].text: "goodbye" → "hello"`) {
		t.Errorf("the changed text:\n%s", res)
	}
	d := readVerifyDoc(t, r.run(t, "verify", "changed.jsonl", "--demo", "--json").want(t, 1))
	if v := d.Requests[len(d.Requests)-1].Values; len(v) != 1 || v[0].Path != "result.content[0].text" || v[0].Change != "changed" {
		t.Errorf("--json values: %+v", v)
	}
	for _, ignore := range []string{"result.content[0].text", "content[*].text", "result.content"} {
		r.run(t, "verify", "changed.jsonl", "--demo", "--ignore", ignore).want(t, 0)
	}

	r.run(t, "read", "--demo", "--record", "err.jsonl", "demo://nosuch").want(t, 1)
	d = readVerifyDoc(t, r.run(t, "verify", "err.jsonl", "--demo", "--json").want(t, 0))
	if len(d.Requests) != 1 || d.Requests[0].Method != "resources/read" || d.Requests[0].Status != "same" {
		t.Errorf("a recorded error: %+v", d.Requests)
	}

	r.run(t, "verify", "changed.jsonl", "--demo", "--ignore", "content[x").want(t, 2)
	r.run(t, "verify", "nosuch.jsonl", "--demo").want(t, 2)
	r.run(t, "verify", "rec.jsonl").want(t, 2)
	r.run(t, "verify", "rec.jsonl", "--server", "other", "--demo").want(t, 2)
	r.run(t, "verify", "rec.jsonl", "--", "no-such-command-mcpwire").want(t, 1)
}

// TestVerifyGoSDKExample: a recording of the Go SDK's everything example
// in the modern era (2026-07-28 over stdio) verifies against the live
// example, and its replay shows the Go SDK's own client what the example
// showed it.
func TestVerifyGoSDKExample(t *testing.T) {
	proctest.Check(t)
	example := peers.GoSDK(t, "everything")
	r := newRunner(t)
	r.run(t, "call", "--record", "sdk.jsonl", "greet", "name=Ada", "--", example).want(t, 0)
	d := readVerifyDoc(t, r.run(t, "verify", "sdk.jsonl", "--json", "--", example).want(t, 0))
	if d.Protocol != "2026-07-28" || d.Same < 2 || d.Different != 0 {
		t.Errorf("verify against the live example: %+v", d)
	}
	call := []string{"-call", "greet", "-args", `{"name":"Ada"}`}
	c := foreignClients[0]
	live, _ := runClient(t, r, c, call, example)
	replayed, _ := runClient(t, r, c, call, r.bin, "replay", filepath.Join(r.dir, "sdk.jsonl"))
	if len(live) != 3 || live[0].Protocol != "2026-07-28" {
		t.Fatalf("live: %+v", live)
	}
	sameSteps(t, "the Go SDK's everything example", live, replayed)
}

// TestVerifyAnswersAsRecorded: the server's own requests (elicitation,
// sampling, roots) are answered as the recorded client answered them,
// in both eras (legacy server requests; a modern input_required and
// its retry, compared as one request by its last answer). The answers
// recorded are none mcpwire gives by itself (a name, a canned sample, a
// root), so the verify passes only with them; before, verify declared
// nothing and the demo answered "did not declare".
func TestVerifyAnswersAsRecorded(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	files := map[string]string{
		"answer.json": `{"name":"Grace","age":85,"color":"blue","height":1.5,"subscribe":true}`,
		"sample.json": `{"role":"assistant","model":"canned","content":{"type":"text","text":"a recorded sample"}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(r.dir, "a-root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	calls := map[string][]string{
		"ask":    {"--elicit", "answer.json", "ask"},
		"sample": {"--sample", "sample.json", "sample"},
		"roots":  {"--root", root, "roots"},
		// Declared nothing: verify declares nothing either, and the
		// demo answers "did not declare" as it did.
		"none": {"--elicit", "none", "ask"},
	}
	for _, pin := range []string{"2026-07-28", "2025-11-25"} {
		for tool, args := range calls {
			rec := pin + "-" + tool + ".jsonl"
			code := 0
			if tool == "none" {
				code = 5 // the tool answers isError
			}
			res := r.run(t, append([]string{"call", "--demo", "--protocol", pin, "--record", rec}, args...)...).want(t, code)
			if want := map[string]string{"ask": "Grace", "sample": "a recorded sample", "roots": "a-root", "none": "did not declare"}[tool]; !strings.Contains(res.stdout+res.stderr, want) {
				t.Fatalf("%s %s: the live call did not use the answer:\n%s", pin, tool, res)
			}
			d := readVerifyDoc(t, r.run(t, "verify", rec, "--demo", "--json"))
			if !d.OK || d.Same != 2 || d.Different != 0 || len(d.Requests) != 2 {
				t.Errorf("%s %s: verify: %+v", pin, tool, d)
			}
		}
	}
}

// TestVerifyTasks: a recorded call that the server answered with a task
// (the Tasks extension) is compared by the task's end, however the
// recording followed it (notifications/tasks, tasks/get): verify's
// session follows the live task to its end, and the recorded tasks/get,
// tasks/update and subscriptions/listen are its own, not sent again. A
// completed task's result, a failed one's error and a task that asked
// mid-way (answered as recorded) all verify against the demo; a
// recording whose task ended otherwise fails (exit 1).
func TestVerifyTasks(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	if err := os.WriteFile(filepath.Join(r.dir, "name.json"), []byte(`{"name":"Grace"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	demo := []string{"--", r.bin, "serve-demo", "--tasks"}
	for tool, code := range map[string]int{"slow-task": 0, "ask-task": 0, "fail-task": 1} {
		rec := tool + ".jsonl"
		r.run(t, append([]string{"call", "--task", "--elicit", "name.json", "--record", rec, tool, "ms=100"}, demo...)...).want(t, code)
		d := readVerifyDoc(t, r.run(t, append([]string{"verify", rec, "--json"}, demo...)...).want(t, 0))
		if !d.OK || d.Same != 2 || d.Skipped != 0 || len(d.Requests) != 2 || d.Requests[1].Name != tool {
			t.Errorf("%s: %+v", tool, d)
		}
	}
	data, err := os.ReadFile(filepath.Join(r.dir, "slow-task.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.ReplaceAll(string(data), "worked 100 ms", "worked 999 ms")
	if err := os.WriteFile(filepath.Join(r.dir, "changed.jsonl"), []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	res := r.run(t, append([]string{"verify", "changed.jsonl"}, demo...)...).want(t, 1)
	if !strings.Contains(res.stdout, `"worked 999 ms" → "worked 100 ms"`) {
		t.Errorf("a task that ended otherwise:\n%s", res)
	}
}
