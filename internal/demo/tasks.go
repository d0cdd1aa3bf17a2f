package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// The server side of the Tasks extension (io.modelcontextprotocol/tasks,
// ext-tasks specification/draft/tasks.md), modern era, with --tasks. No
// released server implements it yet; this one is mcpwire's own, for its
// tests. A task's state is computed from the clock when asked (no
// goroutine works on it): the slow task completes ms after its creation,
// the failing one fails then, and the asking one waits in input_required
// until tasks/update answers its elicitation.
//
// Task status notifications (notifications/tasks, "Task Status
// Notifications"): a subscriptions/listen that names taskIds gets each
// task's state at once, then one notification at each change: each step
// of its work (a timer at each quarter of ms), its end (completed,
// failed, or input_required), tasks/update's answer and tasks/cancel.

const (
	extTasks = "io.modelcontextprotocol/tasks"
	// maxTasks bounds the tasks kept; the oldest goes first.
	maxTasks = 256
	taskTTL  = 60000 // ms
)

// taskTools are the tools --tasks adds.
func taskTools() []toolDef {
	ms := `"ms":{"type":"integer","minimum":0,"description":"how long the task works"},"poll":{"type":"integer","minimum":1,"description":"the pollIntervalMs to ask for"}`
	return []toolDef{
		{Name: "slow-task", Title: "Slow task", Description: "Works ms milliseconds as a task (step messages on the way), then answers.",
			InputSchema: schema(ms), Execution: &execution{TaskSupport: "optional"}},
		{Name: "ask-task", Title: "Task that asks", Description: "A task that needs the user's name mid-way (input_required), then greets.",
			InputSchema: schema(ms), Execution: &execution{TaskSupport: "required"}},
		{Name: "fail-task", Title: "Failing task", Description: "A task that fails with a JSON-RPC error after ms milliseconds.",
			InputSchema: schema(ms), Execution: &execution{TaskSupport: "optional"}},
	}
}

type execution struct {
	TaskSupport string `json:"taskSupport"`
}

// A demoTask is one task's state.
type demoTask struct {
	id      string
	tool    string
	created time.Time
	work    time.Duration
	poll    int64
	answer  json.RawMessage // ask-task: the elicitation's answer
	updated time.Time       // when the answer came
	cancel  time.Time       // when tasks/cancel came
	timer   *time.Timer     // the next step's notifications/tasks; nil when none is due
}

func isTaskTool(name string) bool {
	return name == "slow-task" || name == "ask-task" || name == "fail-task"
}

// createTask answers a tools/call of a task tool: a CreateTaskResult when
// the client declared the extension (modern era), else -32021. In the
// legacy era the tool runs as a plain call.
func (s *server) createTask(ctx context.Context, p peer, in *callParams) (any, error) {
	var a struct {
		MS   int64 `json:"ms"`
		Poll int64 `json:"poll"`
	}
	if r := args(in.Arguments, &a); r != nil {
		return r, nil
	}
	mr := modernOf(ctx)
	if mr == nil {
		return s.runTaskPlain(ctx, p, in.Name, time.Duration(a.MS)*time.Millisecond)
	}
	if _, ok := mr.caps.Extensions[extTasks]; !ok {
		return nil, missingTasks()
	}
	if a.Poll <= 0 {
		a.Poll = 100
	}
	var b [16]byte
	rand.Read(b[:])
	t := &demoTask{id: hex.EncodeToString(b[:]), tool: in.Name, created: time.Now(), work: time.Duration(a.MS) * time.Millisecond, poll: a.Poll}
	s.mu.Lock()
	if s.tasks == nil {
		s.tasks = map[string]*demoTask{}
	}
	if len(s.tasks) >= maxTasks {
		s.dropOldestTask()
	}
	s.tasks[t.id] = t
	state := s.taskState(t, time.Now())
	s.stepLocked(t, time.Now())
	s.mu.Unlock()
	state["resultType"] = "task"
	return state, nil
}

// taskSteps are the steps of a task's work: a notification each.
const taskSteps = 4

// stepLocked arms t's timer for its next step (a quarter of its work), or
// for the end of its work; none once the work is done. s.mu is held.
func (s *server) stepLocked(t *demoTask, now time.Time) {
	if t.timer != nil {
		t.timer.Stop()
		t.timer = nil
	}
	if s.ended || !t.cancel.IsZero() || now.Sub(t.created) >= t.work {
		return
	}
	step := int64(now.Sub(t.created))*taskSteps/int64(max(t.work, 1)) + 1
	at := t.created.Add(time.Duration(int64(t.work) * step / taskSteps))
	id := t.id
	t.timer = time.AfterFunc(at.Sub(now), func() {
		s.mu.Lock()
		t := s.tasks[id]
		if t == nil || s.ended {
			s.mu.Unlock()
			return
		}
		s.stepping.Add(1)
		defer s.stepping.Done()
		now := time.Now()
		state := s.taskState(t, now)
		s.stepLocked(t, now)
		s.mu.Unlock()
		s.notifyTask(state)
	})
}

// Ended stops the session's task timers (mcpserver.Ender) and waits for
// a step being notified: nothing of its tasks runs after the session.
func (s *server) Ended() {
	s.mu.Lock()
	s.ended = true
	for _, t := range s.tasks {
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
	}
	s.mu.Unlock()
	s.stepping.Wait()
}

// notifyTask sends a task's state to the subscriptions that follow it.
func (s *server) notifyTask(state map[string]any) {
	if s.sess != nil {
		s.sess.Broadcast(context.Background(), "notifications/tasks", state)
	}
}

// TaskState is a task's state, for subscriptions/listen (TaskStater).
func (s *server) TaskState(id string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		return nil, false
	}
	return s.taskState(t, time.Now()), true
}

// dropOldestTask forgets the oldest task; s.mu is held.
func (s *server) dropOldestTask() {
	var oldest *demoTask
	for _, t := range s.tasks {
		if oldest == nil || t.created.Before(oldest.created) {
			oldest = t
		}
	}
	if oldest.timer != nil {
		oldest.timer.Stop()
	}
	delete(s.tasks, oldest.id)
}

// runTaskPlain runs a task tool as an ordinary call (no extension: legacy).
func (s *server) runTaskPlain(ctx context.Context, p peer, name string, work time.Duration) (any, error) {
	t := time.NewTimer(work)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, errCancelled
	}
	switch name {
	case "fail-task":
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the task failed (as asked)")
	case "ask-task":
		return s.ask(ctx, p, "elicitation/create", nameRequest())
	}
	return textResult(fmt.Sprintf("worked %d ms", work.Milliseconds())), nil
}

func missingTasks() error {
	e := jsonrpc.NewError(-32021, "Missing required client capability")
	e.Data = json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + extTasks + `":{}}}}`)
	return e
}

func nameRequest() map[string]any {
	return map[string]any{"mode": "form", "message": "Please enter your name.",
		"requestedSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ada"}},"required":["name"]}`)}
}

// taskState is the DetailedTask of t at now; s.mu is held.
func (s *server) taskState(t *demoTask, now time.Time) map[string]any {
	m := map[string]any{"taskId": t.id, "createdAt": t.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt": now.UTC().Format(time.RFC3339Nano), "ttlMs": taskTTL, "pollIntervalMs": t.poll}
	done := now.Sub(t.created) >= t.work
	switch {
	case !t.cancel.IsZero():
		m["status"], m["statusMessage"] = "cancelled", "cancelled by request"
	case !done:
		steps := int64(4)
		step := int64(now.Sub(t.created))*steps/int64(max(t.work, 1)) + 1
		m["status"], m["statusMessage"] = "working", fmt.Sprintf("step %d of %d", step, steps)
	case t.tool == "fail-task":
		m["status"], m["statusMessage"] = "failed", "the task failed (as asked)"
		m["error"] = map[string]any{"code": jsonrpc.CodeInternalError, "message": "the task failed (as asked)"}
	case t.tool == "ask-task" && t.answer == nil:
		m["status"], m["statusMessage"] = "input_required", "waiting for your name"
		m["inputRequests"] = map[string]any{"name-" + t.id[:8]: map[string]any{"method": "elicitation/create", "params": nameRequest()}}
	case t.tool == "ask-task":
		var ans struct {
			Action  string `json:"action"`
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		}
		_ = json.Unmarshal(t.answer, &ans)
		greeting := "Hello, " + ans.Content.Name + "!"
		if ans.Action != "accept" {
			greeting = "No name given (" + ans.Action + ")."
		}
		m["status"] = "completed"
		m["result"] = map[string]any{"content": []any{text(greeting)}, "isError": false}
	default:
		m["status"] = "completed"
		m["result"] = map[string]any{"content": []any{text(fmt.Sprintf("worked %d ms", t.work.Milliseconds()))}, "isError": false}
	}
	return m
}

// taskMethod answers tasks/get, tasks/update and tasks/cancel (modern
// era, with the extension declared).
func (s *server) taskMethod(ctx context.Context, req *jsonrpc.Request) (any, error) {
	mr := modernOf(ctx)
	if mr == nil || !s.opts.Tasks {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	if _, ok := mr.caps.Extensions[extTasks]; !ok {
		return nil, missingTasks()
	}
	var in struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[in.TaskID]
	if t == nil {
		return nil, invalidParams("Failed to retrieve task: Task not found")
	}
	now := time.Now()
	ack := map[string]any{"resultType": "complete"}
	switch req.Method {
	case "tasks/update":
		if t.tool == "ask-task" && t.answer == nil {
			if ans, ok := in.InputResponses["name-"+t.id[:8]]; ok {
				t.answer, t.updated = ans, now
				return s.afterChange(ack, s.taskState(t, now)), nil
			}
		}
		return ack, nil
	case "tasks/cancel":
		if st := s.taskState(t, now)["status"]; st == "working" || st == "input_required" {
			t.cancel = now
			s.stepLocked(t, now) // no step is due any more
			return s.afterChange(ack, s.taskState(t, now)), nil
		}
		return ack, nil
	}
	state := s.taskState(t, now)
	state["resultType"] = "complete"
	return state, nil
}

// afterChange is the answer res, and once it is sent, the notification
// of the task's new state (the acknowledgement comes first: the change
// it made follows).
func (s *server) afterChange(res any, state map[string]any) any {
	return &mcpserver.AfterReply{Result: res, Then: func() { s.notifyTask(state) }}
}
