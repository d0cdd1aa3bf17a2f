package cli_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// TestServeChanges: a host of each era holds one session with serve
// while a server behind starts late (announced with list_changed, its
// tools and prompts then listed, a prompt's argument completed, a
// resource subscribed to and its update heard) and then
// crashes (list_changed again).
func TestServeChanges(t *testing.T) {
	r := newRunner(t)
	r.run(t, "add", "fast", "--", r.bin, "serve-demo").want(t, 0)
	r.run(t, "add", "late", "--", r.bin, "serve-demo", "--start-delay", "1500ms").want(t, 0)
	for _, pin := range []string{"", "2025-11-25"} {
		t.Run("host "+pin, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tools := make(chan struct{}, 16)
			updated := make(chan string, 16)
			prompts := make(chan struct{}, 16)
			spec := &manager.Spec{Name: "serve", Transport: "stdio", Command: r.bin, ProtocolVersion: pin,
				Args: []string{"--home", r.home, "serve", "--wait", "0s"}}
			conn, err := manager.Dial(ctx, spec, &manager.DialOptions{Environ: r.env, Protocol: protocol.Options{
				OnToolsChanged:   func() { tools <- struct{}{} },
				OnPromptsChanged: func() { prompts <- struct{}{} },
				OnResourceUpdated: func(uri string) {
					select {
					case updated <- uri:
					default:
					}
				},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			names := func() []string {
				ts, err := conn.ListTools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, tl := range ts {
					out = append(out, tl.Name)
				}
				return out
			}
			wait := func(what string, ch chan struct{}) {
				t.Helper()
				select {
				case <-ch:
				case <-ctx.Done():
					t.Fatalf("no %s list_changed", what)
				}
			}
			for !slices.Contains(names(), "mcp__late__echo") {
				wait("tools", tools)
			}
			if !slices.Contains(names(), "mcp__fast__echo") {
				t.Fatalf("the fast server's tools are gone: %v", names())
			}
			ps, err := conn.ListPrompts(ctx)
			if err != nil || !slices.ContainsFunc(ps, func(p *protocol.Prompt) bool { return p.Name == "mcp__late__greet" }) {
				t.Fatalf("the late server's prompts: %v %v", ps, err)
			}
			// Completion on the prompt's server, by the server's own name.
			cr, err := conn.Complete(ctx, protocol.PromptRef("mcp__late__greet"), "style", "pi", nil)
			if err != nil || !slices.Contains(cr.Completion.Values, "pirate") {
				t.Fatalf("completion through serve: %+v %v", cr, err)
			}
			// A subscription through serve: the server behind says the
			// resource changed, the host hears it.
			if err := conn.Subscribe(ctx, "demo://status"); err != nil {
				t.Fatal(err)
			}
			select {
			case uri := <-updated:
				if uri != "demo://status" {
					t.Fatalf("updated %q", uri)
				}
			case <-ctx.Done():
				t.Fatal("no resources/updated through serve")
			}
			for len(tools) > 0 {
				<-tools
			}
			if _, err := conn.CallTool(ctx, "mcp__late__crash", nil, nil); err == nil {
				t.Fatal("the crash answered")
			}
			wait("tools", tools)
			wait("prompts", prompts)
			res, err := conn.CallTool(ctx, "mcp__fast__echo", map[string]any{"text": "still here"}, nil)
			if err != nil || res.IsError {
				t.Fatalf("the fast server after the late one crashed: %v %+v", err, res)
			}
		})
	}
}
