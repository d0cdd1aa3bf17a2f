package demo

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// modernMeta is a modern request's _meta, with the Tasks extension
// declared or not.
func modernMeta(tasks bool) map[string]any {
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{extTasks: map[string]any{}}
	}
	return map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "test", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": caps}
}

// A taskNote is what the test reads of a notifications/tasks.
type taskNote struct {
	TaskID, Status, StatusMessage string
	Result                        json.RawMessage
	Meta                          map[string]any `json:"_meta"`
}

// TestTaskNotifications: the demo sends notifications/tasks (the Tasks
// extension's "Task Status Notifications") to a subscriptions/listen
// that names the task: the acknowledgment keeps the task ids it knows,
// the task's state comes at once, then each step of its work and its
// end, each a full task state on that subscription; tasks/cancel's
// change comes too. Naming taskIds without the extension declared is
// -32021, as the extension says.
func TestTaskNotifications(t *testing.T) {
	c := startStdio(t, nil, "--tasks", "--era", "modern")
	var created struct{ TaskID, ResultType string }
	c.mustCall(t, "tools/call", map[string]any{"_meta": modernMeta(true), "name": "slow-task", "arguments": map[string]any{"ms": 200, "poll": 100000}}, &created)
	if created.ResultType != "task" || created.TaskID == "" {
		t.Fatalf("no task: %+v", created)
	}
	err := c.call(t, "subscriptions/listen", map[string]any{"_meta": modernMeta(false), "notifications": map[string]any{"taskIds": []string{created.TaskID}}}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32021 {
		t.Fatalf("taskIds without the extension declared: %v", err)
	}

	listened := make(chan error, 1)
	listen := func(ids ...string) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			_, err := c.conn.Call(ctx, "subscriptions/listen", map[string]any{"_meta": modernMeta(true), "notifications": map[string]any{"taskIds": ids}})
			listened <- err
		}()
		return func() { cancel(); <-listened }
	}
	stop := listen(created.TaskID, "no-such-task")
	var ack struct {
		Notifications struct{ TaskIDs []string }
		Meta          map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(c.nextNote(t, "notifications/subscriptions/acknowledged").Params, &ack); err != nil || !slices.Equal(ack.Notifications.TaskIDs, []string{created.TaskID}) {
		t.Fatalf("acknowledged: %+v %v", ack, err)
	}
	sub := ack.Meta["io.modelcontextprotocol/subscriptionId"]
	var seen []string
	for {
		var n taskNote
		if err := json.Unmarshal(c.nextNote(t, "notifications/tasks").Params, &n); err != nil {
			t.Fatal(err)
		}
		if n.TaskID != created.TaskID || n.Meta["io.modelcontextprotocol/subscriptionId"] != sub {
			t.Fatalf("a notification of another task or subscription: %+v (subscription %v)", n, sub)
		}
		seen = append(seen, n.Status+" "+n.StatusMessage)
		if n.Status == "completed" {
			if string(n.Result) != `{"content":[{"text":"worked 200 ms","type":"text"}],"isError":false}` {
				t.Errorf("completed without the result: %s", n.Result)
			}
			break
		}
	}
	if len(seen) < 2 || seen[0] != "working step 1 of 4" {
		t.Errorf("statuses notified: %q", seen)
	}

	// tasks/cancel's change.
	var long struct{ TaskID string }
	c.mustCall(t, "tools/call", map[string]any{"_meta": modernMeta(true), "name": "slow-task", "arguments": map[string]any{"ms": 60000}}, &long)
	stop()
	stop = listen(long.TaskID)
	defer stop()
	c.nextNote(t, "notifications/subscriptions/acknowledged")
	var n taskNote
	if err := json.Unmarshal(c.nextNote(t, "notifications/tasks").Params, &n); err != nil || n.Status != "working" {
		t.Fatalf("the long task's state: %+v %v", n, err)
	}
	c.mustCall(t, "tasks/cancel", map[string]any{"_meta": modernMeta(true), "taskId": long.TaskID}, nil)
	for n.Status == "working" {
		if err := json.Unmarshal(c.nextNote(t, "notifications/tasks").Params, &n); err != nil {
			t.Fatal(err)
		}
	}
	if n.Status != "cancelled" || n.TaskID != long.TaskID {
		t.Errorf("after tasks/cancel: %+v", n)
	}
}
