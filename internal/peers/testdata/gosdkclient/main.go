// Command gosdkclient is a test peer of mcpwire: a client written with
// the official Go SDK (github.com/modelcontextprotocol/go-sdk), which
// scripts/deps.sh builds into .deps/gosdk/VERSION/. It starts a stdio
// server, connects, lists the tools, calls one tool (-call, -args) as
// many times as -repeat says, each bounded by -timeout, and prints one
// JSON line per step: what the SDK's client saw, with each failure
// classified as the SDK reports it (a JSON-RPC error, a timeout, a
// closed connection). With -url it speaks streamable HTTP to that
// endpoint (the SDK's StreamableClientTransport) instead of running a
// server; -protocol asks for a revision other than the SDK's latest.
//
// Usage: gosdkclient [-call NAME -args JSON -repeat N -timeout D -protocol V] (-url URL | -- COMMAND ARGS...)
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A line is one step as printed.
type line struct {
	Step       string              `json:"step"`
	Protocol   string              `json:"protocol,omitempty"`
	ServerInfo *mcp.Implementation `json:"serverInfo,omitempty"`
	Tools      []*mcp.Tool         `json:"tools,omitempty"`
	Result     *mcp.CallToolResult `json:"result,omitempty"`
	Error      *failure            `json:"error,omitempty"`
	Ms         int64               `json:"ms"`
}

// A failure is an error as the SDK reported it.
type failure struct {
	Kind    string `json:"kind"` // jsonrpc, timeout, closed or other
	Code    int64  `json:"code,omitempty"`
	Message string `json:"message"`
}

func classify(err error) *failure {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we):
		return &failure{Kind: "jsonrpc", Code: we.Code, Message: we.Message}
	case errors.Is(err, context.DeadlineExceeded):
		return &failure{Kind: "timeout", Message: err.Error()}
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &failure{Kind: "closed", Message: err.Error()}
	}
	return &failure{Kind: "other", Message: err.Error()}
}

func main() {
	call := flag.String("call", "", "the tool to call")
	args := flag.String("args", "{}", "its arguments, a JSON object")
	repeat := flag.Int("repeat", 1, "how many times to call it")
	timeout := flag.Duration("timeout", 10*time.Second, "the bound of each request")
	url := flag.String("url", "", "a streamable HTTP endpoint (else a command to run over stdio)")
	version := flag.String("protocol", "", "the protocol version to ask for (default: the SDK's latest)")
	flag.Parse()
	var transport mcp.Transport
	switch {
	case *url != "" && flag.NArg() == 0:
		transport = &mcp.StreamableClientTransport{Endpoint: *url}
	case *url == "" && flag.NArg() > 0:
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Stderr = os.Stderr
		transport = &mcp.CommandTransport{Command: cmd}
	default:
		fmt.Fprintln(os.Stderr, "usage: gosdkclient [-call NAME -args JSON -repeat N -timeout D -protocol V] (-url URL | -- COMMAND ARGS...)")
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	emit := func(l line, start time.Time) {
		l.Ms = time.Since(start).Milliseconds()
		_ = out.Encode(l)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdkclient", Version: "v1.0.0"}, nil)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: *version})
	cancel()
	if err != nil {
		emit(line{Step: "connect", Error: classify(err)}, start)
		os.Exit(1)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	emit(line{Step: "connect", Protocol: init.ProtocolVersion, ServerInfo: init.ServerInfo}, start)

	start = time.Now()
	ctx, cancel = context.WithTimeout(context.Background(), *timeout)
	tools, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
	cancel()
	if err != nil {
		emit(line{Step: "tools", Error: classify(err)}, start)
	} else {
		emit(line{Step: "tools", Tools: tools.Tools}, start)
	}
	if *call == "" {
		return
	}
	var arguments map[string]any
	if err := json.Unmarshal([]byte(*args), &arguments); err != nil {
		fmt.Fprintln(os.Stderr, "gosdkclient: -args:", err)
		os.Exit(2)
	}
	for range *repeat {
		start = time.Now()
		ctx, cancel = context.WithTimeout(context.Background(), *timeout)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: *call, Arguments: arguments})
		cancel()
		if err != nil {
			emit(line{Step: "call", Error: classify(err)}, start)
			continue
		}
		emit(line{Step: "call", Result: res}, start)
	}
}
