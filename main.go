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
	// SIGINT, SIGTERM and SIGHUP stop the command the same way: the
	// servers are told and stopped in steps, and the exit code is the
	// signal's (130, 143, 129). A second one cuts the stop short.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, cli.StopSignals()...)
	ctx, cancel := context.WithCancelCause(context.Background())
	hurry := make(chan struct{})
	go func() {
		cancel(cli.InterruptOf(<-sigs))
		<-sigs
		close(hurry)
	}()
	env := cli.OSEnv()
	env.Hurry = hurry
	env.ReapOrphans = true
	code := cli.Main(ctx, os.Args[1:], env)
	os.Exit(code)
}
