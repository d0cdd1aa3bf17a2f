package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Tasks, in both eras.
//
// Modern (the io.modelcontextprotocol/tasks extension, ext-tasks
// specification/draft/tasks.md): the client declares the extension in
// every request's capabilities and the server decides, per call, to answer
// tools/call with a CreateTaskResult (resultType "task"). The client polls
// tasks/get at the task's pollIntervalMs until a terminal status; an
// input_required task carries inputRequests, answered with tasks/update
// (inputResponses, each key once); the result or error is inlined in the
// completed or failed task. tasks/cancel asks the server to stop.
//
// Legacy (2025-11-25/basic/utilities/tasks.mdx): the client asks for a task
// with params.task on tools/call, only to a server whose capabilities
// include tasks.requests.tools.call and for a tool whose
// execution.taskSupport is optional or required (required: always). The
// answer is {"task": Task} with ttl and pollInterval; tasks/get gives the
// status; tasks/result, once the task is terminal or needs input, blocks
// until it ends and returns the tool's result (elicitation and sampling
// arrive meanwhile as ordinary server requests).

// ExtTasks is the identifier of the Tasks extension.
const ExtTasks = "io.modelcontextprotocol/tasks"

// Task statuses.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// Poll interval bounds: a server's pollIntervalMs is honoured within
// them (a peer cannot make the client poll in a tight loop), and a task
// that says none is polled every defaultPollInterval.
const (
	minPollInterval     = 20 * time.Millisecond
	maxPollInterval     = time.Minute
	defaultPollInterval = time.Second
)

// A Task is the state of a task-augmented tools/call, as tasks/get (or the
// call's CreateTaskResult) gave it. Result and Error are set once the task
// is completed or failed (modern era: inlined; legacy era: from
// tasks/result, by WaitTask); InputRequests while it is input_required
// (modern era).
type Task struct {
	ID            string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt,omitempty"`
	LastUpdatedAt string `json:"lastUpdatedAt,omitempty"`
	// TTLMs is how long the server keeps the task from its creation (nil:
	// unlimited, or not said).
	TTLMs *int64 `json:"ttlMs,omitempty"`
	// PollIntervalMs is the polling interval the server asks for (0: none
	// said).
	PollIntervalMs int64           `json:"pollIntervalMs,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
}

// Terminal reports whether the task has ended: completed, failed or
// cancelled.
func (t *Task) Terminal() bool {
	switch t.Status {
	case TaskCompleted, TaskFailed, TaskCancelled:
		return true
	}
	return false
}

// pollInterval is how long to wait before the next tasks/get.
func (t *Task) pollInterval() time.Duration {
	if t.PollIntervalMs <= 0 {
		return defaultPollInterval
	}
	return min(max(time.Duration(t.PollIntervalMs)*time.Millisecond, minPollInterval), maxPollInterval)
}

// wireTask is a Task as either era sends it.
type wireTask struct {
	Task
	TTL          *int64 `json:"ttl,omitempty"`          // legacy
	PollInterval int64  `json:"pollInterval,omitempty"` // legacy
	ResultType   string `json:"resultType,omitempty"`
}

// decodeTask reads a task of either era from raw.
func decodeTask(method string, raw json.RawMessage) (*Task, error) {
	var w wireTask
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, &ResultError{Method: method, Err: fmt.Errorf("task: %v", err)}
	}
	t := w.Task
	if t.TTLMs == nil {
		t.TTLMs = w.TTL
	}
	if t.PollIntervalMs == 0 {
		t.PollIntervalMs = w.PollInterval
	}
	switch {
	case t.ID == "":
		return nil, &ResultError{Method: method, Err: errors.New("task: no taskId")}
	case len(t.ID) > 1024:
		return nil, &ResultError{Method: method, Err: errors.New("task: taskId longer than 1024 bytes")}
	}
	switch t.Status {
	case TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed, TaskCancelled:
	default:
		return nil, &ResultError{Method: method, Err: fmt.Errorf("task %s: unknown status %s", quoteShort(t.ID), quoteShort(t.Status))}
	}
	return &t, nil
}

// A TaskFailedError says that a task ended failed (the JSON-RPC error of
// its execution) or cancelled.
type TaskFailedError struct {
	Task *Task
	Err  *jsonrpc.Error // the task's error; nil when cancelled
}

func (e *TaskFailedError) Error() string {
	msg := e.Task.StatusMessage
	if e.Err != nil {
		msg = e.Err.Message
	}
	if msg == "" {
		return fmt.Sprintf("task %s %s", e.Task.ID, e.Task.Status)
	}
	return fmt.Sprintf("task %s %s: %s", e.Task.ID, e.Task.Status, msg)
}

// Unwrap returns the task's JSON-RPC error.
func (e *TaskFailedError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// tasksOffered reports whether tools/call may be asked to run as a task
// (legacy era): the server declared tasks.requests.tools.call.
func (s *Session) tasksOffered() bool {
	var c struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	return declared(s.init.Capabilities.Tasks) && json.Unmarshal(s.init.Capabilities.Tasks, &c) == nil && declared(c.Requests.Tools.Call)
}

// TaskSupport says how tool name may run as a task on this session, as
// its listing said: "forbidden" (or "" when the tool was not listed),
// "optional" or "required". In the legacy era a server without
// tasks.requests.tools.call runs none as a task; in the modern era the
// server decides per call and any call may become one.
func (s *Session) TaskSupport(name string) string {
	s.mu.Lock()
	ts := s.taskSupport[name]
	s.mu.Unlock()
	if s.era == EraLegacy && !s.tasksOffered() {
		return "forbidden"
	}
	return ts
}

// GetTask asks for the task's state (tasks/get).
func (s *Session) GetTask(ctx context.Context, id string) (*Task, error) {
	raw, err := s.call(ctx, "tasks/get", taskParams{ID: id}, nil)
	if err != nil {
		return nil, err
	}
	t, err := decodeTask("tasks/get", raw)
	if err == nil && t.ID != id {
		err = &ResultError{Method: "tasks/get", Err: fmt.Errorf("asked for task %s, got %s", quoteShort(id), quoteShort(t.ID))}
	}
	return t, err
}

// CancelTask asks the server to cancel the task (tasks/cancel). The
// server may finish it anyway.
func (s *Session) CancelTask(ctx context.Context, id string) error {
	_, err := s.call(ctx, "tasks/cancel", taskParams{ID: id}, nil)
	return err
}

// taskParams are the params of tasks/get, tasks/cancel and tasks/result.
type taskParams struct {
	ID string `json:"taskId"`
}

// WaitTask follows the task until it ends and returns the tool's result:
// tasks/get at the server's interval, its input requests answered with
// the session's callbacks (modern era: tasks/update; legacy era: they come
// as server requests during tasks/result). onStatus, when set, is told of
// each state seen whose status or message changed. A task that failed or
// was cancelled is a *TaskFailedError. ctx bounds the wait; the task is
// not cancelled when it ends (see CancelTask).
func (s *Session) WaitTask(ctx context.Context, t *Task, onStatus func(*Task)) (*CallToolResult, error) {
	answered := map[string]bool{}
	last := Task{}
	var w *taskWatch
	if s.tasksNotified() && !t.Terminal() {
		var stop func()
		w, stop = s.watchTask(t.ID)
		defer stop()
	}
	for {
		if onStatus != nil && (t.Status != last.Status || t.StatusMessage != last.StatusMessage) {
			onStatus(t)
		}
		last = *t
		switch {
		case t.Terminal() && (s.era == EraModern || t.Status == TaskCancelled):
			return taskOutcome(t)
		case s.era == EraLegacy && (t.Terminal() || t.Status == TaskInputRequired):
			return s.taskResult(ctx, t)
		case t.Status == TaskInputRequired && declared(t.InputRequests):
			if err := s.updateTask(ctx, t, answered); err != nil {
				return nil, err
			}
		}
		interval := t.pollInterval()
		var wake chan struct{}
		if w != nil {
			wake = w.wake
			if s.taskAcked(t.ID) {
				interval = max(interval, taskBackstop)
			}
		}
		timer := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, &MethodError{Method: "tasks/get", Err: ctx.Err()}
		case <-wake:
			timer.Stop()
			if n := s.notified(w); n != nil {
				t = n
				continue
			}
		case <-timer.C:
		}
		next, err := s.GetTask(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		t = next
	}
}

// taskOutcome is the result of a terminal task (modern era).
func taskOutcome(t *Task) (*CallToolResult, error) {
	switch t.Status {
	case TaskCompleted:
		return decodeTaskResult(t.Result)
	case TaskFailed:
		if t.Error == nil {
			t.Error = jsonrpc.NewError(jsonrpc.CodeInternalError, "the task failed without an error")
		}
		return nil, &TaskFailedError{Task: t, Err: t.Error}
	}
	return nil, &TaskFailedError{Task: t}
}

// decodeTaskResult reads a task's CallToolResult.
func decodeTaskResult(raw json.RawMessage) (*CallToolResult, error) {
	var res CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &ResultError{Method: "tasks/get", Err: fmt.Errorf("the task's result: %v", err)}
	}
	if res.Content == nil {
		res.Content = []Content{}
	}
	return &res, nil
}

// taskResult asks for the result of a legacy task (tasks/result), which
// blocks until the task ends: no timeout but ctx's.
func (s *Session) taskResult(ctx context.Context, t *Task) (*CallToolResult, error) {
	resp, err := s.callResponse(ctx, &request{method: "tasks/result", params: taskParams{ID: t.ID}, endless: true})
	if err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) && t.Terminal() {
			t.Error = je
			return nil, &TaskFailedError{Task: t, Err: je}
		}
		return nil, err
	}
	t.Result = resp.Result
	return decodeTaskResult(resp.Result)
}

// updateTask answers the input requests of t not answered yet
// (tasks/update); answered holds the keys answered before.
func (s *Session) updateTask(ctx context.Context, t *Task, answered map[string]bool) error {
	reqs, err := s.boundInputs("tasks/get", &resultHead{inputRequests: t.InputRequests}, len(answered))
	if err != nil {
		return err
	}
	for k := range reqs {
		if answered[k] {
			delete(reqs, k) // seen in an earlier poll: answered once only
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	answers, err := s.answerInputs(ctx, "tasks/update", reqs)
	if err != nil {
		return err
	}
	for k := range reqs {
		answered[k] = true
	}
	_, err = s.call(ctx, "tasks/update", struct {
		ID             string          `json:"taskId"`
		InputResponses json.RawMessage `json:"inputResponses"`
	}{t.ID, answers}, nil)
	return err
}

// notifications/tasks (modern era, where the server declares the
// extension): while WaitTask follows a task, its id is in the filter of
// the session's subscriptions/listen stream, and each notification, a
// complete task state, wakes the wait; once the server acknowledged the
// id, tasks/get only backs the notifications up, at taskBackstop or the
// task's interval if longer.

// taskBackstop is how often a task that notifications report is polled.
const taskBackstop = 10 * time.Second

// A taskWatch is a task WaitTask follows through notifications.
type taskWatch struct {
	wake   chan struct{} // room for one wake-up
	latest *Task         // the state the last notification gave; s.mu
}

// tasksNotified reports whether the server sends notifications/tasks.
func (s *Session) tasksNotified() bool {
	if s.era != EraModern {
		return false
	}
	var ext map[string]json.RawMessage
	return json.Unmarshal(s.init.Capabilities.Extensions, &ext) == nil && declared(ext[ExtTasks])
}

// watchTask adds id to the listen stream's filter; stop takes it out.
func (s *Session) watchTask(id string) (w *taskWatch, stop func()) {
	w = &taskWatch{wake: make(chan struct{}, 1)}
	s.mu.Lock()
	if s.mod.taskWatch == nil {
		s.mod.taskWatch = map[string]*taskWatch{}
	}
	if s.mod.taskWatch[id] != nil || len(s.mod.taskWatch) >= maxWatchedTasks {
		s.mu.Unlock()
		return nil, func() {}
	}
	s.mod.taskWatch[id] = w
	s.relistenLocked()
	s.mu.Unlock()
	return w, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.mod.taskWatch, id)
		s.relistenLocked()
	}
}

// maxWatchedTasks bounds the tasks in one listen filter.
const maxWatchedTasks = 64

// taskNotice takes notifications/tasks, on the reader goroutine.
func (s *Session) taskNotice(params json.RawMessage) {
	t, err := decodeTask("notifications/tasks", params)
	if err != nil {
		return // malformed: ignored
	}
	s.mu.Lock()
	w := s.mod.taskWatch[t.ID]
	if w != nil {
		w.latest = t
	}
	s.mu.Unlock()
	if w != nil {
		select {
		case w.wake <- struct{}{}:
		default: // a wake-up is waiting already: it finds the latest
		}
	}
}

// taskAcked reports whether the listen stream's acknowledgment names
// the task: the server will send its notifications.
func (s *Session) taskAcked(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.mod.listen
	return l != nil && l.ack != nil && slices.Contains(l.ack.TaskIDs, id)
}

// notified takes the state a notification gave, if one came.
func (s *Session) notified(w *taskWatch) *Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := w.latest
	w.latest = nil
	return t
}
