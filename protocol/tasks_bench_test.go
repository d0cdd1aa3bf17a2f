package protocol_test

import (
	"context"
	"testing"
	"time"
)

// A task-augmented call's overhead over a plain one (issue 28 item 4): the
// demo server (--tasks, modern era, a child process over stdio) runs
// slow-task for 0 ms as a task, which CallToolTask gets and WaitTask
// follows to its result (tasks/get until complete); its floor,
// BenchmarkTaskFloorCall, is a plain call of echo on the same server.

func benchTaskCall(b *testing.B, task bool) {
	s, _ := demoSession(b, nil, "--tasks", "--era", "modern")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	call := func() {
		if !task {
			if res, err := s.CallTool(ctx, "echo", map[string]any{"text": "hi"}, nil); err != nil || res.IsError {
				b.Fatalf("echo: %v %+v", err, res)
			}
			return
		}
		res, t, err := s.CallToolTask(ctx, "slow-task", map[string]any{"ms": 0, "poll": 1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if t != nil {
			res, err = s.WaitTask(ctx, t, nil)
		}
		if err != nil || res == nil || res.IsError {
			b.Fatalf("slow-task: %v %+v", err, res)
		}
	}
	call() // warm
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// BenchmarkTaskFloorCall is a plain call to the demo server.
func BenchmarkTaskFloorCall(b *testing.B) { benchTaskCall(b, false) }

// BenchmarkTaskCall is a call made a task, followed to its result.
func BenchmarkTaskCall(b *testing.B) { benchTaskCall(b, true) }
