package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/transport"
)

// The cost of a call through `mcpwire proxy` (issue 25 item 8: at most
// 1.3× a direct call over the same transport): one session over stdio,
// sequential echo calls, to `mcpwire serve-demo` directly and to
// `mcpwire proxy -- mcpwire serve-demo`. The binary is built and the
// session started before the timer; scripts/bench.sh prints the ratios
// BenchmarkProxyCall / BenchmarkProxyFloorCall (the direct call) and
// BenchmarkProxyCallLegacy / BenchmarkProxyFloorCallLegacy, and the same
// for BenchmarkProxyRelayCall, the floor of a hop.

func benchCalls(b *testing.B, pin string, args ...string) {
	bin := buildFor(b, ".", b.TempDir(), "mcpwire")
	st := &transport.Stdio{Command: bin, Args: args, Env: transport.ChildEnv(os.Environ(), nil)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	switch {
	case len(args) > 0 && args[0] == "proxy":
		st.Args = append(append([]string{}, args...), bin, "serve-demo")
	case len(args) > 0 && args[0] == "relay":
		st.Command = buildFor(b, "./internal/barerelay", b.TempDir(), "barerelay")
		st.Args = []string{bin, "serve-demo"}
	}
	conn, err := st.Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	benchSessionCalls(b, ctx, conn, pin)
}

// benchListen is benchCalls over streamable HTTP: the host reaches
// `mcpwire serve-demo --http` directly, or `mcpwire proxy --listen` in
// front of `mcpwire serve-demo` over stdio, at the address the server
// prints once it listens.
func benchListen(b *testing.B, pin string, proxy bool) {
	bin := buildFor(b, ".", b.TempDir(), "mcpwire")
	args := []string{"serve-demo", "--http", "127.0.0.1:0"}
	if proxy {
		args = []string{"proxy", "--listen", "127.0.0.1:0", "--", bin, "serve-demo"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r, w, err := os.Pipe() // the server's stdout and stderr: one says where it listens
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	w.Close()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				found <- sc.Text()[i:]
				break
			}
		}
		close(found)
		io.Copy(io.Discard, r) // until the server and its children end
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(time.Minute):
	}
	if url == "" {
		b.Fatalf("%s %v printed no address", bin, args)
	}
	conn, err := (&transport.HTTP{URL: url}).Connect(ctx)
	if err != nil {
		b.Fatal(err)
	}
	benchSessionCalls(b, ctx, conn, pin)
}

// benchSessionCalls times sequential echo calls on a session over conn.
func benchSessionCalls(b *testing.B, ctx context.Context, conn jsonrpc.Stream, pin string) {
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

// BenchmarkProxyRelayCall is the direct call through the floor of any
// process in the path (internal/barerelay: bytes copied through user
// space, nothing decoded): what a hop costs before it does any work.
func BenchmarkProxyRelayCall(b *testing.B) { benchCalls(b, "", "relay") }

// BenchmarkProxyRelayCallLegacy is the relayed call in the legacy era.
func BenchmarkProxyRelayCallLegacy(b *testing.B) { benchCalls(b, "2025-11-25", "relay") }

// BenchmarkProxyFloorCallListen is an echo call to the demo over
// streamable HTTP, direct.
func BenchmarkProxyFloorCallListen(b *testing.B) { benchListen(b, "", false) }

// BenchmarkProxyFloorCallListenLegacy is the direct HTTP call in the
// legacy era.
func BenchmarkProxyFloorCallListenLegacy(b *testing.B) { benchListen(b, "2025-11-25", false) }

// BenchmarkProxyCallListen is the same call through mcpwire proxy
// --listen (the demo behind it over stdio).
func BenchmarkProxyCallListen(b *testing.B) { benchListen(b, "", true) }

// BenchmarkProxyCallListenLegacy is the proxied HTTP call with a legacy
// host.
func BenchmarkProxyCallListenLegacy(b *testing.B) { benchListen(b, "2025-11-25", true) }
