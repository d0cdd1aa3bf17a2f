package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// The cost of a call through `mcpwire proxy` (issue 25 item 8: at most
// 1.3× a direct call over the same transport): one session over stdio,
// sequential echo calls, to `mcpwire serve-demo` directly and to
// `mcpwire proxy -- mcpwire serve-demo`. The binary is built and the
// session started before the timer; scripts/bench.sh prints the ratios
// BenchmarkProxyCall / BenchmarkProxyFloorCall (the direct call) and
// BenchmarkProxyCallLegacy / BenchmarkProxyFloorCallLegacy.

func benchCalls(b *testing.B, pin string, args ...string) {
	bin := buildFor(b, ".", b.TempDir(), "mcpwire")
	st := &transport.Stdio{Command: bin, Args: args, Env: transport.ChildEnv(os.Environ(), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if len(args) > 0 && args[0] == "proxy" {
		st.Args = append(append([]string{}, args...), bin, "serve-demo")
	}
	conn, err := st.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	s, err := protocol.Connect(ctx, conn, &protocol.Options{ProtocolVersion: pin})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	call := func() {
		res, err := s.CallTool(ctx, "echo", map[string]any{"text": "hi"}, nil)
		if err != nil || res.IsError {
			b.Fatalf("echo: %v %+v", err, res)
		}
	}
	call() // warm
	for b.Loop() {
		call()
	}
}

// BenchmarkProxyFloorCall is an echo call to the demo over stdio, direct.
func BenchmarkProxyFloorCall(b *testing.B) { benchCalls(b, "", "serve-demo") }

// BenchmarkProxyFloorCallLegacy is the direct call in the legacy era.
func BenchmarkProxyFloorCallLegacy(b *testing.B) { benchCalls(b, "2025-11-25", "serve-demo") }

// BenchmarkProxyCall is the same call through mcpwire proxy over stdio.
func BenchmarkProxyCall(b *testing.B) { benchCalls(b, "", "proxy", "--") }

// BenchmarkProxyCallLegacy is the proxied call with a legacy host.
func BenchmarkProxyCallLegacy(b *testing.B) { benchCalls(b, "2025-11-25", "proxy", "--") }
