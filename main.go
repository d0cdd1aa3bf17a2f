// Command mcpwire is a client for MCP (Model Context Protocol) servers: it
// lists, tests and calls them, and logs in to the ones that need OAuth.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/mcpwire/mcpwire/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, os.Args[1:], cli.OSEnv())
	stop()
	os.Exit(code)
}
