// Command gosdkhost is a host that is not mcpwire: the Go SDK's client
// (v1.8.0), for the tests of mcpwire proxy and serve. It is its own
// module (scripts/deps.sh builds it into .deps/gosdk/VERSION/), never imported.
//
//	gosdkhost [-protocol VERSION] [-prefix P] -http URL
//	gosdkhost [-protocol VERSION] [-prefix P] COMMAND ARGS…
//
// It connects (the SDK's default: 2026-07-28 with server/discover, or
// the version given: 2025-11-25 is an initialize), lists the tools,
// calls P+echo {text}, P+add {a: 2, b: 3} and P+ask (answering the
// elicitation with {name: "Ada"}), and prints one JSON object:
// {protocol, tools, echo, sum, asked}.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	endpoint := flag.String("http", "", "the streamable HTTP endpoint (else a command to run over stdio)")
	version := flag.String("protocol", "", "the protocol version to ask for (default: the SDK's latest)")
	prefix := flag.String("prefix", "", "put before each tool name called")
	flag.Parse()
	if err := run(*endpoint, *version, *prefix, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gosdkhost:", err)
		os.Exit(1)
	}
}

func run(endpoint, version, prefix string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var transport mcp.Transport
	switch {
	case endpoint != "":
		transport = &mcp.StreamableClientTransport{Endpoint: endpoint}
	case len(args) > 0:
		transport = &mcp.CommandTransport{Command: exec.Command(args[0], args[1:]...)}
	default:
		return fmt.Errorf("give -http URL or a command")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gosdkhost", Version: "v1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	out := map[string]any{"protocol": cs.InitializeResult().ProtocolVersion}
	var tools []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t.Name)
	}
	out["tools"] = tools
	for _, c := range []struct {
		key, tool string
		args      map[string]any
	}{
		{"echo", "echo", map[string]any{"text": "from the Go SDK"}},
		{"sum", "add", map[string]any{"a": 2, "b": 3}},
		{"asked", "ask", map[string]any{}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: prefix + c.tool, Arguments: c.args})
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", prefix+c.tool, err)
		}
		if res.IsError {
			return fmt.Errorf("tools/call %s: isError: %v", prefix+c.tool, res.Content)
		}
		switch {
		case c.key == "sum":
			b, _ := json.Marshal(res.StructuredContent)
			var s struct {
				Sum float64 `json:"sum"`
			}
			_ = json.Unmarshal(b, &s)
			out[c.key] = s.Sum
		case len(res.Content) > 0:
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				out[c.key] = tc.Text
			}
		}
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
