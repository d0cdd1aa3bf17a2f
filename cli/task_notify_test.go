package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestTaskFollowedByNotifications: mcpwire call --task follows the
// demo's tasks through notifications/tasks on its subscriptions/listen
// stream, over stdio and HTTP: the task asks for a poll every 100 s, yet
// the call ends as soon as the task does, with no tasks/get in the
// recording (a polling client would still be waiting), and the task that
// asks mid-way is answered with tasks/update and then completes.
func TestTaskFollowedByNotifications(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	url, stop := startListen(t, r, "serve-demo", "--tasks", "--http", "127.0.0.1:0")
	defer stop()
	targets := map[string][]string{"stdio": {"--", r.bin, "serve-demo", "--tasks"}, "http": {url}}
	for name, target := range targets {
		for tool, want := range map[string]string{"slow-task": "worked 300 ms", "ask-task": "Hello, Ada!"} {
			rec := name + "-" + tool + ".jsonl"
			args := []string{"call", "--task", "--elicit", "defaults", "--record", rec}
			if name == "http" {
				args = append(append(args, url), tool, "ms=300", "poll=100000")
			} else {
				args = append(append(args, tool, "ms=300", "poll=100000"), target...)
			}
			res := r.run(t, args...).want(t, 0)
			if !strings.Contains(res.stdout, want) {
				t.Errorf("%s %s:\n%s", name, tool, res)
			}
			data, err := os.ReadFile(filepath.Join(r.dir, rec))
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			if strings.Contains(text, `"method":"tasks/get"`) || strings.Count(text, `"method":"notifications/tasks"`) < 2 ||
				!strings.Contains(text, `"method":"subscriptions/listen"`) || !strings.Contains(text, `"status":"completed"`) {
				t.Errorf("%s %s: not followed by notifications alone:\n%s", name, tool, text)
			}
			if tool == "ask-task" && !strings.Contains(text, `"method":"tasks/update"`) {
				t.Errorf("%s: the task's question was not answered with tasks/update", name)
			}
		}
	}
}
