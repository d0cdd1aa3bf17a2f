package cli_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestTaskTimeoutCancels: --timeout bounds the whole wait of a task, not
// only each request. call --task and task wait against the demo's slow
// task (60 s) over HTTP give up, send tasks/cancel, and fail with the
// code timeout (exit 1); the server then says the task is cancelled, so
// it received the tasks/cancel.
func TestTaskTimeoutCancels(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	url, stop := startListen(t, r, "serve-demo", "--tasks", "--http", "127.0.0.1:0")
	defer stop()
	cancelled := regexp.MustCompile(`cancelled task ([0-9a-f]+)`)
	check := func(res *result) string {
		t.Helper()
		res.want(t, 1)
		var doc struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil || doc.Error.Code != "timeout" {
			t.Fatalf("want the code timeout (%v):\n%s", err, res)
		}
		m := cancelled.FindStringSubmatch(res.stderr)
		if m == nil {
			t.Fatalf("no tasks/cancel accepted:\n%s", res)
		}
		return m[1]
	}
	status := func(id string) string {
		t.Helper()
		res := r.run(t, "task", "get", url, id, "--json").want(t, 0)
		var doc struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
			t.Fatalf("%v:\n%s", err, res)
		}
		return doc.Status
	}

	id := check(r.run(t, "call", url, "slow-task", "ms=60000", "poll=20", "--task", "--timeout", "1s", "--json"))
	if s := status(id); s != "cancelled" {
		t.Errorf("call --task --timeout: the task is %q after, want cancelled", s)
	}

	res := r.run(t, "call", url, "slow-task", "ms=60000", "--detach", "--json").want(t, 0)
	var det struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &det); err != nil || det.TaskID == "" {
		t.Fatalf("call --detach: %v\n%s", err, res)
	}
	if got := check(r.run(t, "task", "wait", url, det.TaskID, "--timeout", "1s", "--json")); got != det.TaskID {
		t.Errorf("task wait cancelled %s, want %s", got, det.TaskID)
	}
	if s := status(det.TaskID); s != "cancelled" {
		t.Errorf("task wait --timeout: the task is %q after, want cancelled", s)
	}
}
