package protocol_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// The Tasks extension (2026-07-28) against the demo server's
// implementation of its server side: no released server implements it
// yet, so this is mcpwire's own (internal/demo/tasks.go). A slow task is
// polled at its interval to completion, a task that asks is answered
// through the elicitation callback with tasks/update (once per key), a
// failing one is a *TaskFailedError, a cancelled one ends cancelled, and
// CallTool follows a task it did not ask for to its end.
func TestDemoTasks(t *testing.T) {
	proctest.Check(t)
	var mu sync.Mutex
	asked := 0
	opts := &protocol.Options{Elicit: func(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		return &protocol.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	s, _ := demoSession(t, opts, "--tasks", "--era", "modern")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	res, task, err := s.CallToolTask(ctx, "slow-task", map[string]any{"ms": 300, "poll": 50}, nil)
	if err != nil || res != nil || task == nil || task.Status != protocol.TaskWorking || task.PollIntervalMs != 50 || task.TTLMs == nil {
		t.Fatalf("slow-task: %+v %+v %v", res, task, err)
	}
	var seen []string
	res, err = s.WaitTask(ctx, task, func(t *protocol.Task) { seen = append(seen, t.Status+" "+t.StatusMessage) })
	if err != nil || text(res) != "worked 300 ms" {
		t.Fatalf("slow-task result: %+v %v", res, err)
	}
	if len(seen) < 2 || !slices.Contains(seen, "completed ") {
		t.Errorf("statuses seen: %q", seen)
	}

	_, task, err = s.CallToolTask(ctx, "ask-task", map[string]any{"ms": 50, "poll": 20}, nil)
	if err != nil || task == nil {
		t.Fatalf("ask-task: %+v %v", task, err)
	}
	res, err = s.WaitTask(ctx, task, nil)
	if err != nil || text(res) != "Hello, Ada!" {
		t.Fatalf("ask-task result: %+v %v", res, err)
	}
	mu.Lock()
	if asked != 1 {
		t.Errorf("asked %d times, want once", asked)
	}
	mu.Unlock()

	_, task, err = s.CallToolTask(ctx, "fail-task", map[string]any{"ms": 50, "poll": 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.WaitTask(ctx, task, nil)
	var tf *protocol.TaskFailedError
	if !errors.As(err, &tf) || tf.Task.Status != protocol.TaskFailed || tf.Err == nil || tf.Err.Code != -32603 {
		t.Fatalf("fail-task: %v", err)
	}

	_, task, err = s.CallToolTask(ctx, "slow-task", map[string]any{"ms": 60000, "poll": 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CancelTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetTask(ctx, task.ID); err != nil || got.Status != protocol.TaskCancelled {
		t.Fatalf("after tasks/cancel: %+v %v", got, err)
	}
	if _, err := s.GetTask(ctx, "no-such-task"); err == nil {
		t.Error("tasks/get of an unknown task: no error")
	}

	// CallTool follows a task to its end, as a plain call.
	res, err = s.CallTool(ctx, "slow-task", map[string]any{"ms": 50, "poll": 20}, nil)
	if err != nil || text(res) != "worked 50 ms" {
		t.Fatalf("CallTool of a task tool: %+v %v", res, err)
	}
}

// text is the text of a result's first content block.
func text(res *protocol.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].Text
}

// The 2025-11-25 tasks of the TypeScript SDK's server (a real peer:
// scripts/peers/sdk-tasks-server.mjs on @modelcontextprotocol/sdk): a
// tool whose taskSupport is optional runs as a task when asked, its
// result comes from tasks/result; one whose taskSupport is required runs
// as a task through plain CallTool; tasks/cancel ends a task cancelled.
func TestSDKLegacyTasks(t *testing.T) {
	proctest.Check(t)
	cmd := peers.SDKTasks(t)
	st := &transport.Stdio{Command: cmd[0], Args: cmd[1:], Env: transport.ChildEnv(os.Environ(), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := protocol.Connect(ctx, conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Era() != protocol.EraLegacy || s.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("speaks %s %s", s.Era(), s.ProtocolVersion())
	}
	if _, err := s.ListTools(ctx); err != nil {
		t.Fatal(err)
	}
	if ts := s.TaskSupport("must-task"); ts != "required" {
		t.Errorf("must-task: taskSupport %q", ts)
	}
	res, task, err := s.CallToolTask(ctx, "slow", map[string]any{"ms": 200}, nil)
	if err != nil || res != nil || task == nil || task.Status != protocol.TaskWorking || task.PollIntervalMs != 50 {
		t.Fatalf("slow: %+v %+v %v", res, task, err)
	}
	res, err = s.WaitTask(ctx, task, nil)
	if err != nil || text(res) != "done after 200 ms" {
		t.Fatalf("slow result: %+v %v", res, err)
	}
	res, err = s.CallTool(ctx, "must-task", map[string]any{"ms": 50}, nil)
	if err != nil || text(res) != "done after 50 ms" {
		t.Fatalf("must-task through CallTool: %+v %v", res, err)
	}
	_, task, err = s.CallToolTask(ctx, "slow", map[string]any{"ms": 60000}, nil)
	if err != nil || task == nil {
		t.Fatalf("long slow: %+v %v", task, err)
	}
	if err := s.CancelTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetTask(ctx, task.ID); err != nil || got.Status != protocol.TaskCancelled {
		t.Fatalf("after tasks/cancel: %+v %v", got, err)
	}
}

// A task CallTool follows without having asked for it is cancelled with
// tasks/cancel when the call's time is over (Options.MaxTimeout) and
// when its context ends: the demo logs each tasks/cancel it gets. Each
// case has a session of its own: a status of the first case's task that
// comes late would otherwise end the second call's context before its
// task exists.
func TestFollowedTaskCancelled(t *testing.T) {
	proctest.Check(t)
	args := map[string]any{"ms": 60000, "poll": 20}
	t.Run("past MaxTimeout", func(t *testing.T) {
		s, cancels, _ := followedTaskSession(t)
		_, err := s.CallTool(context.Background(), "slow-task", args, nil)
		var te *protocol.TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("a task past MaxTimeout: %v, want a *TimeoutError", err)
		}
		waitTaskCancel(t, cancels)
	})
	t.Run("context ended", func(t *testing.T) {
		// Cancelled once the task runs: its first status came.
		s, cancels, statuses := followedTaskSession(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-statuses:
			case <-time.After(time.Minute):
			}
			cancel()
		}()
		_, err := s.CallTool(ctx, "slow-task", args, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("a task whose context ended: %v", err)
		}
		waitTaskCancel(t, cancels)
	})
}

// followedTaskSession starts a modern demo serving tasks, with a channel
// that gets a value for each tasks/cancel the demo logs and one that gets
// a value when a notifications/tasks came.
func followedTaskSession(t *testing.T) (*protocol.Session, <-chan struct{}, <-chan struct{}) {
	t.Helper()
	pr, pw := io.Pipe()
	cancels := make(chan struct{}, 10)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "demo: <- tasks/cancel") {
				cancels <- struct{}{}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	t.Cleanup(func() { pw.Close() })
	statuses := make(chan struct{}, 1)
	opts := &protocol.Options{
		Timeout: 3 * time.Second, MaxTimeout: 3 * time.Second, StartTimeout: 30 * time.Second,
		OnNotification: func(method string, _ json.RawMessage) {
			if method == "notifications/tasks" {
				select {
				case statuses <- struct{}{}:
				default:
				}
			}
		},
	}
	s, _ := demoSessionLogged(t, opts, pw, "--tasks", "--era", "modern", "--verbose")
	return s, cancels, statuses
}

// waitTaskCancel waits for the demo to log a tasks/cancel.
func waitTaskCancel(t *testing.T, cancels <-chan struct{}) {
	t.Helper()
	select {
	case <-cancels:
	case <-time.After(time.Minute):
		t.Fatal("no tasks/cancel reached the server")
	}
}
