package manager

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
)

// Tasks (the io.modelcontextprotocol/tasks extension, and the tasks of
// 2025-11-25): a call with CallOptions.Task may come back as a task,
// handed over as a *Task (Result.Task); without it, a task the server
// makes anyway is followed to its end within the call. Each task is
// recorded in the home (TaskFile) with its server, so that another
// process can follow it; its status changes reach OnNotice as
// NoticeTask.

// NoticeTask: a task of the server changed status (Notice.Task says how).
const NoticeTask NoticeKind = "task"

// A TaskNotice is the state of a task as a notice gives it.
type TaskNotice struct {
	ID            string
	Tool          string
	Status        string // protocol.TaskWorking, …
	StatusMessage string
}

// A Task is a task a server runs for a call. Its methods may be called
// from many goroutines at once.
type Task struct {
	Server string // the server's name
	Tool   string // the tool's name on the server
	ID     string // the server's task id

	s *server

	mu   sync.Mutex
	last *protocol.Task
}

// Last returns the task's state as last seen.
func (t *Task) Last() protocol.Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	return *t.last
}

// Status asks the server for the task's state (tasks/get).
func (t *Task) Status(ctx context.Context) (*protocol.Task, error) {
	var got *protocol.Task
	err := t.s.use(ctx, PhaseCall, func(conn *Conn) error {
		var err error
		got, err = conn.GetTask(ctx, t.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	t.seen(got)
	return got, nil
}

// Wait follows the task to its end, at the server's poll interval,
// answering its input requests with the Manager's callbacks, and returns
// the tool's result. A task that failed or was cancelled is a
// *ServerError wrapping a *protocol.TaskFailedError. ctx bounds the wait;
// it does not cancel the task (Cancel does).
func (t *Task) Wait(ctx context.Context) (*Result, error) {
	var res *protocol.CallToolResult
	err := t.s.use(ctx, PhaseCall, func(conn *Conn) error {
		var err error
		t.mu.Lock()
		start := t.last
		t.mu.Unlock()
		res, err = conn.WaitTask(ctx, start, t.seen)
		return err
	})
	if err != nil {
		return nil, err
	}
	return mapResult(res, t.s.m.opts.MaxText), nil
}

// Cancel asks the server to cancel the task (tasks/cancel); the server
// may finish it anyway.
func (t *Task) Cancel(ctx context.Context) error {
	return t.s.use(ctx, PhaseCall, func(conn *Conn) error { return conn.CancelTask(ctx, t.ID) })
}

// seen keeps got as the task's last state; a change of status or
// message is recorded in the home and given to OnNotice.
func (t *Task) seen(got *protocol.Task) {
	t.mu.Lock()
	prev := t.last
	t.last = got
	t.mu.Unlock()
	if prev != nil && prev.Status == got.Status && prev.StatusMessage == got.StatusMessage {
		return
	}
	t.s.noteTask(t.Tool, got)
}

// noteTask records a task's state in the home and tells OnNotice.
func (s *server) noteTask(tool string, got *protocol.Task) {
	m := s.m
	name := s.def.Name
	if h := m.opts.Home; h != nil {
		_ = h.RememberTask(TaskRecord{Server: name, ID: got.ID, Tool: tool, Status: got.Status})
	}
	f := m.opts.OnNotice
	if f == nil {
		return
	}
	tn := &TaskNotice{ID: got.ID, Tool: tool, Status: got.Status, StatusMessage: got.StatusMessage}
	s.mu.Lock()
	n := Notice{Server: name, Kind: NoticeTask, State: s.snapshotLocked(), Task: tn}
	s.mu.Unlock()
	// Keyed by task: a status still waiting is replaced by the newer one.
	m.events.post(name, "task:"+got.ID, func() { f(n) })
}

// newTask is the handle of a task the server made for a call of tool.
func (s *server) newTask(tool string, t *protocol.Task) *Task {
	h := &Task{Server: s.def.Name, Tool: tool, ID: t.ID, s: s}
	h.seen(t)
	return h
}

// OpenTask returns the handle of a task of server (a name of the
// configuration) that an earlier call, maybe of another process, made:
// its state is asked for at once (tasks/get).
func (m *Manager) OpenTask(ctx context.Context, server, id string) (*Task, error) {
	servers, err := m.list()
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		if s.def.Name != server {
			continue
		}
		var tool string
		if h := m.opts.Home; h != nil {
			if r, ok := h.Task(server, id); ok {
				tool = r.Tool
			}
		}
		t := &Task{Server: server, Tool: tool, ID: id, s: s}
		if _, err := t.Status(ctx); err != nil {
			return nil, err
		}
		return t, nil
	}
	return nil, fmt.Errorf("manager: no server %q", server)
}
