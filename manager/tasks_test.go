package manager

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/protocol"
)

// Tasks through the Manager, against the demo's server side of the
// 2026-07-28 extension (ours: no released server implements it): with
// CallOptions.Task a call comes back as a *Task whose Wait gives the
// result and whose Cancel ends it; each status change reaches OnNotice
// as NoticeTask and the home's tasks.json (0600), where OpenTask finds
// the task again; without the option a task is followed within the call.
func TestManagerTasks(t *testing.T) {
	proctest.Check(t)
	notices := make(chan TaskNotice, 100)
	opts := Options{OnNotice: func(n Notice) {
		if n.Kind == NoticeTask {
			notices <- *n.Task
		}
	}}
	m, home := newManager(t, opts, demoServer{name: "jobs", args: []string{"--tasks", "--era", "modern"}})
	mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	res, err := m.CallWith(ctx, "mcp__jobs__slow-task", map[string]any{"ms": 200, "poll": 20}, &CallOptions{Task: true})
	if err != nil || res.Task == nil || res.Task.Server != "jobs" || res.Task.Tool != "slow-task" {
		t.Fatalf("CallWith Task: %+v %v", res, err)
	}
	task := res.Task
	if st, err := task.Status(ctx); err != nil || st.ID != task.ID {
		t.Fatalf("Status: %+v %v", st, err)
	}
	res, err = task.Wait(ctx)
	if err != nil || res.Text() != "worked 200 ms" || task.Last().Status != protocol.TaskCompleted {
		t.Fatalf("Wait: %+v %v", res, err)
	}

	res, err = m.CallWith(ctx, "mcp__jobs__slow-task", map[string]any{"ms": 60000, "poll": 20}, &CallOptions{Task: true})
	if err != nil || res.Task == nil {
		t.Fatalf("second task: %+v %v", res, err)
	}
	if err := res.Task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := m.OpenTask(ctx, "jobs", res.Task.ID)
	if err != nil || again.Last().Status != protocol.TaskCancelled || again.Tool != "slow-task" {
		t.Fatalf("OpenTask after Cancel: %+v %v", again, err)
	}
	_, err = again.Wait(ctx)
	var tf *protocol.TaskFailedError
	if !errors.As(err, &tf) {
		t.Errorf("Wait of a cancelled task: %v", err)
	}

	// Without the option, the call follows the task.
	res, err = m.Call(ctx, "mcp__jobs__slow-task", map[string]any{"ms": 20, "poll": 20})
	if err != nil || res.Task != nil || res.Text() != "worked 20 ms" {
		t.Fatalf("Call: %+v %v", res, err)
	}

	fi, err := os.Stat(filepath.Join(home, TaskFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("task file: %v %v", fi, err)
	}
	recs := m.Home().Tasks()
	if len(recs) != 2 || recs[0].ID != again.ID || recs[0].Status != protocol.TaskCancelled {
		t.Errorf("task records: %+v", recs)
	}
	// The notices: the first task working, then completed; the second
	// working, then cancelled (a status still waiting may be replaced by
	// a newer one of the same task, never lost).
	last := map[string]string{}
	timeout := time.After(30 * time.Second)
	for last[task.ID] != protocol.TaskCompleted || last[again.ID] != protocol.TaskCancelled {
		select {
		case n := <-notices:
			last[n.ID] = n.Status
		case <-timeout:
			t.Fatalf("task notices: last seen %v", last)
		}
	}
}

// Skills through the Manager: listed across servers without reading a
// file, loaded verified, a tampered one refused naming its file.
func TestManagerSkills(t *testing.T) {
	proctest.Check(t)
	m, _ := newManager(t, Options{}, demoServer{name: "docs", args: []string{"--skills=on"}},
		demoServer{name: "bad", args: []string{"--skills=tampered"}}, demoServer{name: "plain"})
	mustTools(t, m)
	ctx := context.Background()
	skills, err := m.Skills(ctx)
	if err != nil || len(skills) != 4 {
		t.Fatalf("Skills: %+v %v", skills, err)
	}
	sk, err := m.GetSkill(ctx, "docs", "greeting")
	if err != nil || len(sk.Files) != 2 || sk.Files[0].Path != "SKILL.md" {
		t.Fatalf("GetSkill: %+v %v", sk, err)
	}
	_, err = m.GetSkill(ctx, "bad", "greeting")
	var ve *protocol.SkillVerifyError
	if !errors.As(err, &ve) || ve.File != "skill://greeting/SKILL.md" {
		t.Fatalf("tampered: %v", err)
	}
	if _, err := m.GetSkill(ctx, "plain", "greeting"); err == nil {
		t.Error("a server without skills gave one")
	}
}

// Tasks through the Manager against a real server: the TypeScript SDK's
// (scripts/peers/sdk-tasks-server.mjs on @modelcontextprotocol/sdk), which
// implements the tasks of 2025-11-25 (no released server implements the
// 2026-07-28 extension). A tool whose taskSupport is optional comes back
// as a *Task with CallOptions.Task and Wait gives its result; one whose
// taskSupport is required runs as a task through a plain Call; Cancel
// ends a task cancelled, as OpenTask then says; a failed task gives the
// tool's result with isError, as 2025-11-25 has tasks/result return it.
func TestManagerSDKTasks(t *testing.T) {
	proctest.Check(t)
	argv := peers.SDKTasks(t)
	home := t.TempDir()
	entry, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"sdk": map[string]any{"command": argv[0], "args": argv[1:]}}})
	if err := os.WriteFile(filepath.Join(home, config.FileName), entry, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Config: loadConfig(t, home), Home: openHome(t, home), TrustAll: true, StartupTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tools := mustTools(t, m)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	res, err := m.CallWith(ctx, toolNamed(t, tools, "sdk", "slow"), map[string]any{"ms": 200}, &CallOptions{Task: true})
	if err != nil || res.Task == nil || res.Task.Server != "sdk" || res.Task.Tool != "slow" {
		t.Fatalf("CallWith Task: %+v %v", res, err)
	}
	task := res.Task
	if st, err := task.Status(ctx); err != nil || st.ID != task.ID {
		t.Fatalf("Status: %+v %v", st, err)
	}
	res, err = task.Wait(ctx)
	if err != nil || res.Text() != "done after 200 ms" || task.Last().Status != protocol.TaskCompleted {
		t.Fatalf("Wait: %+v %v", res, err)
	}

	res, err = m.Call(ctx, toolNamed(t, tools, "sdk", "must-task"), map[string]any{"ms": 50})
	if err != nil || res.Task != nil || res.Text() != "done after 50 ms" {
		t.Fatalf("a required task through Call: %+v %v", res, err)
	}

	res, err = m.CallWith(ctx, toolNamed(t, tools, "sdk", "slow"), map[string]any{"ms": 60000}, &CallOptions{Task: true})
	if err != nil || res.Task == nil {
		t.Fatalf("a long task: %+v %v", res, err)
	}
	if err := res.Task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := m.OpenTask(ctx, "sdk", res.Task.ID)
	if err != nil || again.Last().Status != protocol.TaskCancelled {
		t.Fatalf("OpenTask after Cancel: %+v %v", again, err)
	}

	res, err = m.CallWith(ctx, toolNamed(t, tools, "sdk", "broken"), nil, &CallOptions{Task: true})
	if err != nil || res.Task == nil {
		t.Fatalf("broken: %+v %v", res, err)
	}
	// 2025-11-25: tasks/result of a failed tool call is its result,
	// isError set: the tool's own error, as a plain call gives it.
	broken := res.Task
	res, err = broken.Wait(ctx)
	if err != nil || !res.IsError || res.Text() != "broken as asked" || broken.Last().Status != protocol.TaskFailed {
		t.Errorf("Wait of a failed task: %+v %v (status %s)", res, err, broken.Last().Status)
	}
}
