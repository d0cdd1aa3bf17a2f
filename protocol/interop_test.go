package protocol

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// startEverything runs @modelcontextprotocol/server-everything over stdio
// (installed by scripts/deps.sh; skipped without it outside CI) and
// connects a session to it. The process is killed and reaped at cleanup.
func startEverything(t *testing.T, opts *Options) *Session {
	t.Helper()
	argv := peers.Everything(t)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ctx, cancel := context.WithTimeout(context.Background(), peers.StartTimeout)
	defer cancel()
	s, err := Connect(ctx, jsonrpc.NewLineStream(stdout, stdin, closerFunc(func() error {
		stdin.Close()
		cmd.Process.Kill()
		return nil
	})), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func TestInteropEverything(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	var logs []LogParams
	rootsAsked := make(chan struct{}, 10)
	s := startEverything(t, &Options{
		Timeout: 30 * time.Second,
		Roots: func(ctx context.Context) ([]Root, error) {
			return []Root{{URI: "file:///tmp/mcpwire-root", Name: "mcpwire-root"}}, nil
		},
		Sample: func(ctx context.Context, p json.RawMessage) (any, error) {
			return map[string]any{"role": "assistant", "model": "canned", "stopReason": "endTurn",
				"content": map[string]any{"type": "text", "text": "canned answer"}}, nil
		},
		Elicit: func(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
			return &ElicitResult{Action: "decline"}, nil
		},
		OnServerRequest: func(method, outcome string) {
			mu.Lock()
			requests = append(requests, method+" "+outcome)
			mu.Unlock()
			if method == "roots/list" {
				rootsAsked <- struct{}{}
			}
		},
		OnLog: func(p LogParams) { mu.Lock(); logs = append(logs, p); mu.Unlock() },
	})
	ctx := context.Background()
	init := s.Init()
	// server-everything is of the legacy era: the dual-era session probed
	// with server/discover, then fell back to initialize.
	if init.ProtocolVersion != LatestLegacyVersion || s.Era() != EraLegacy || init.ServerInfo.Name == "" {
		t.Errorf("init %+v", init)
	}
	caps := strings.Join(init.Capabilities.Names(), " ")
	for _, c := range []string{"tools", "resources", "resources.subscribe", "prompts", "logging", "completions"} {
		if !strings.Contains(" "+caps+" ", " "+c+" ") {
			t.Errorf("capability %s missing from %s", c, caps)
		}
	}

	tools, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	for _, n := range []string{"echo", "get-structured-content", "trigger-sampling-request", "trigger-elicitation-request", "trigger-long-running-operation", "get-roots-list"} {
		if !names[n] {
			t.Errorf("tool %s missing", n)
		}
	}

	res, err := s.CallTool(ctx, "echo", map[string]string{"message": "hi there"}, nil)
	if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, "hi there") {
		t.Errorf("echo: %+v %v", res, err)
	}

	res, err = s.CallTool(ctx, "get-structured-content", map[string]string{"location": "Chicago"}, nil)
	if err != nil || res.OutputProblem != "" || !strings.Contains(string(res.StructuredContent), "temperature") {
		t.Errorf("structured: %+v %v", res, err)
	}

	select {
	case <-rootsAsked:
	case <-time.After(30 * time.Second):
		t.Error("the server never asked for roots")
	}
	res, err = s.CallTool(ctx, "get-roots-list", nil, nil)
	if err != nil || !strings.Contains(res.Content[0].Text, "file:///tmp/mcpwire-root") {
		t.Errorf("roots: %+v %v", res, err)
	}

	res, err = s.CallTool(ctx, "trigger-sampling-request", map[string]any{"prompt": "say hi"}, nil)
	if err != nil || !strings.Contains(res.Content[0].Text, "canned answer") {
		t.Errorf("sampling: %+v %v", res, err)
	}
	res, err = s.CallTool(ctx, "trigger-elicitation-request", nil, nil)
	if err != nil || res.IsError {
		t.Errorf("elicitation: %+v %v", res, err)
	}

	var progress []ProgressParams
	res, err = s.CallTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3},
		&CallOptions{Progress: func(p ProgressParams) { progress = append(progress, p) }})
	if err != nil || len(progress) != 3 || progress[2].Progress != 3 {
		t.Errorf("progress: %+v %v (%d notifications)", res, err, len(progress))
	}

	resources, err := s.ListResources(ctx)
	if err != nil || len(resources) < 2 {
		t.Fatalf("resources: %d %v", len(resources), err)
	}
	rr, err := s.ReadResource(ctx, resources[0].URI)
	if err != nil || len(rr.Contents) == 0 {
		t.Errorf("read %s: %+v %v", resources[0].URI, rr, err)
	}
	if _, err := s.ListResourceTemplates(ctx); err != nil {
		t.Error(err)
	}
	if err := s.Subscribe(ctx, resources[0].URI); err != nil {
		t.Error(err)
	}
	if err := s.Unsubscribe(ctx, resources[0].URI); err != nil {
		t.Error(err)
	}

	prompts, err := s.ListPrompts(ctx)
	if err != nil || len(prompts) == 0 {
		t.Fatalf("prompts: %v", err)
	}
	gp, err := s.GetPrompt(ctx, "simple-prompt", nil)
	if err != nil || len(gp.Messages) == 0 {
		t.Errorf("simple-prompt: %+v %v", gp, err)
	}
	cr, err := s.Complete(ctx, PromptRef("completable-prompt"), "name", "", map[string]string{"department": "Sales"})
	if err != nil || strings.Join(cr.Completion.Values, ",") != "David,Eve,Frank" {
		t.Errorf("complete: %+v %v", cr, err)
	}
	if err := s.SetLogLevel(ctx, "debug"); err != nil {
		t.Error(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Error(err)
	}
	_, err = s.CallTool(ctx, "no-such-tool", nil, nil)
	if err == nil {
		// Some servers report an unknown tool as an isError result.
		t.Log("unknown tool gave a result")
	}

	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(requests, "|")
	for _, want := range []string{"roots/list answered", "sampling/createMessage answered", "elicitation/create declined"} {
		if !strings.Contains(all, want) {
			t.Errorf("server requests %q lack %q", all, want)
		}
	}
}
