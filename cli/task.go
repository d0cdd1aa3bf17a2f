package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// taskReport is `mcpwire task get|cancel --json` and `call --detach
// --json`: a task's state.
type taskReport struct {
	_ [0]func() // not comparable: no equality function in the binary

	docHeader
	Server         string `json:"server"`
	Tool           string `json:"tool"` // "" when the home does not know it
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int64 `json:"ttlMs"` // null: unlimited or not said
	PollIntervalMs int64  `json:"pollIntervalMs"`
}

// taskCancelWait bounds the tasks/cancel sent when a wait is interrupted.
const taskCancelWait = 2 * time.Second

// home is the home of t, for its task records (nil when there is none).
func (inv *invocation) taskHome(t *target) *manager.Home {
	h, err := manager.OpenHome(inv.authHome(t))
	if err != nil {
		return nil
	}
	return h
}

// rememberTask records a task in the home, so that `task wait` in another
// process can follow it; failing to is a warning.
func (inv *invocation) rememberTask(t *target, tool string, task *protocol.Task) {
	h := inv.taskHome(t)
	if h == nil {
		return
	}
	if err := h.RememberTask(manager.TaskRecord{Server: t.spec.Name, ID: task.ID, Tool: tool, Status: task.Status}); err != nil {
		inv.say("warning: the task id was not kept in the home: %s\n", safe.Sanitize(err.Error()))
	}
}

// printTask prints a task's state: its id (for --detach), or a document.
func (inv *invocation) printTask(t *target, tool string, task *protocol.Task) error {
	if inv.json {
		inv.writeJSON(&taskReport{docHeader: inv.header(true), Server: t.spec.Name, Tool: tool, TaskID: task.ID,
			Status: task.Status, StatusMessage: task.StatusMessage, CreatedAt: task.CreatedAt, LastUpdatedAt: task.LastUpdatedAt,
			TTLMs: task.TTLMs, PollIntervalMs: task.PollIntervalMs})
		return nil
	}
	if inv.cmd.name == "call" {
		inv.writeLine(safe.Sanitize(task.ID))
		return nil
	}
	rows := [][2]string{{"task", task.ID}, {"status", task.Status}}
	if task.StatusMessage != "" {
		rows = append(rows, [2]string{"message", task.StatusMessage})
	}
	if tool != "" {
		rows = append(rows, [2]string{"tool", tool})
	}
	if task.CreatedAt != "" {
		rows = append(rows, [2]string{"created", task.CreatedAt})
	}
	for _, r := range rows {
		inv.printf("%-8s %s\n", r[0], safe.Sanitize(r[1]))
	}
	return nil
}

// waitTask follows a task to its end with its status on stderr. Ctrl-C
// (ctx) or, when deadline is set (--timeout), its passing sends
// tasks/cancel before giving up; a deadline passed is a
// *protocol.TimeoutError of tools/call that lasted timeout.
func (inv *invocation) waitTask(ctx context.Context, t *target, conn *manager.Conn, tool string, task *protocol.Task, deadline time.Time, timeout time.Duration) (*protocol.CallToolResult, error) {
	wctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	stop := inv.spinner("task " + task.ID + ": " + task.Status)
	res, err := conn.WaitTask(wctx, task, func(st *protocol.Task) {
		msg := st.Status
		if st.StatusMessage != "" {
			msg += ": " + oneLine(st.StatusMessage, 200)
		}
		inv.progress.Store("task " + oneLine(st.ID, 80) + " " + msg)
		if h := inv.taskHome(t); h != nil {
			_ = h.RememberTask(manager.TaskRecord{Server: t.spec.Name, ID: st.ID, Tool: tool, Status: st.Status})
		}
	})
	stop()
	inv.finishProgress()
	if err == nil || wctx.Err() == nil {
		return res, err
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), taskCancelWait)
	defer cancel()
	if cerr := conn.CancelTask(cctx, task.ID); cerr == nil {
		inv.say("cancelled task %s\n", safe.Sanitize(task.ID))
	}
	if ctx.Err() == nil { // the deadline, not Ctrl-C
		return nil, &protocol.TimeoutError{Method: "tools/call", Timeout: timeout}
	}
	return res, err
}

// taskDeadline is when a task's wait gives up: --timeout from now; zero
// (no bound but Ctrl-C) without it.
func taskDeadline(tf *targetFlags) time.Time {
	if tf.timeout <= 0 {
		return time.Time{}
	}
	return time.Now().Add(tf.timeout)
}

// runTask is `mcpwire task get|wait|cancel TARGET ID`.
func runTask(ctx context.Context, inv *invocation, args []string) error {
	if len(args) == 0 {
		return usageErr("task wants get, wait or cancel, then TARGET and the task ID")
	}
	verb := args[0]
	switch verb {
	case "get", "wait", "cancel":
	default:
		return usageErr("task %s: the verbs are get, wait and cancel", safe.Sanitize(verb))
	}
	r, err := inv.openSession(ctx, "task", args[1:], nil, nArgs(1, "the task ID"))
	if err != nil {
		return err
	}
	inv.atExit(r.close)
	t, conn := r.t, r.conn
	id := r.rest[0]
	var tool string
	h := inv.taskHome(t)
	if h != nil {
		if rec, ok := h.Task(t.spec.Name, id); ok {
			tool = rec.Tool
		}
	}
	task, err := conn.GetTask(ctx, id)
	if err != nil {
		return inv.taskFailure(t, err)
	}
	switch verb {
	case "cancel":
		if err := conn.CancelTask(ctx, id); err != nil {
			return inv.taskFailure(t, err)
		}
		if task, err = conn.GetTask(ctx, id); err != nil {
			return inv.taskFailure(t, err)
		}
		fallthrough
	case "get":
		if h != nil {
			_ = h.RememberTask(manager.TaskRecord{Server: t.spec.Name, ID: id, Tool: tool, Status: task.Status})
		}
		return inv.printTask(t, tool, task)
	}
	start := time.Now()
	res, err := inv.waitTask(ctx, t, conn, tool, task, taskDeadline(&r.tf), r.tf.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		var te *protocol.TimeoutError
		if errors.As(err, &te) {
			f := inv.serverFailure(t, fmt.Errorf("task %s did not end within %s (--timeout): %w", safe.Sanitize(id), te.Timeout, err)).(*failure)
			f.hints = append(f.hints, "tasks/cancel was sent; without --timeout, task wait waits until the task ends (or Ctrl-C)")
			return f
		}
		return inv.taskFailure(t, err)
	}
	rep := &callReport{docHeader: inv.header(!res.IsError), Server: t.spec.Name, Tool: tool, IsError: res.IsError, TaskID: id,
		Content: res.Content, StructuredContent: res.StructuredContent,
		Timing: map[string]int64{"spawn": conn.Spawn.Milliseconds(), "initialize": conn.Initialize.Milliseconds(), "list": 0, "call": time.Since(start).Milliseconds()}}
	if res.IsError {
		inv.exit = ExitToolErr
	}
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printResult(res)
	if res.IsError {
		inv.say("error: %s: the task's tool answered isError\n", safe.Sanitize(t.spec.Name))
	}
	return nil
}

// taskFailure is the failure of a task request, with a hint for an
// unknown task.
func (inv *invocation) taskFailure(t *target, err error) error {
	f := inv.serverFailure(t, fmt.Errorf("task: %w", err)).(*failure)
	var je *protocol.Error
	if errors.As(err, &je) && je.Code == -32602 {
		f.hints = append(f.hints, "the server does not know the task (a wrong id, or it expired)")
		if t.spec.Transport == "stdio" {
			f.hints = append(f.hints, "a stdio server's tasks end with its process, and task starts a new one: follow them in the call (call --task)")
		}
	}
	return f
}
