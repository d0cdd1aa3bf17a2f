// Command agent is an example to copy: a Go program that uses mcpwire as
// its MCP layer, the way a coding agent does.
//
//	agent                  list the MCP tools the agent would offer its model
//	agent call TOOL [JSON] call one of them (arguments as a JSON object)
//	agent mcp …            mcpwire's command line, mounted under the agent's
//	                       name: agent mcp add, list, login, test, …
//
// Its servers, approvals and tokens live in its own folder: $AGENT_HOME,
// else ~/.config/agent. A server that needs a login is reported as it
// is found (OnLoginNeeded), with the command that logs in.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/mcpwire/mcpwire/cli"
	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/manager"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string) int {
	home, err := agentHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	if len(args) > 0 && args[0] == "mcp" {
		// The mounted command line: its usage lines and hints say
		// "agent mcp", and it uses the agent's folder.
		env := cli.OSEnv()
		env.Program, env.Home = "agent mcp", home
		return cli.Main(ctx, args[1:], env)
	}

	cfg, err := config.Load(config.LoadOptions{Home: home})
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	m, err := manager.New(manager.Options{
		Config: cfg,
		Home:   h, // approvals enforced, the home's tokens sent to HTTP servers
		OnLoginNeeded: func(server string) {
			fmt.Fprintf(os.Stderr, "agent: %s needs a login: agent mcp login %s\n", server, server)
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	defer m.Close()

	// An agent asks for Tools at every turn and never waits; this one
	// runs once, so it lets the servers start first (each within its
	// budget), for at most 30 seconds in all.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	_ = m.Wait(wctx)
	cancel()
	tools, err := m.Tools(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
	}

	switch {
	case len(args) == 0:
		for _, t := range tools {
			fmt.Printf("%s\t%s\n", t.Name, t.Description)
		}
		for _, st := range m.States() {
			if st.State != manager.StateConnected && st.State != manager.StateDisabled {
				fmt.Fprintf(os.Stderr, "agent: %s: %s\n", st.Name, st.State)
			}
		}
		return 0
	case args[0] == "call" && (len(args) == 2 || len(args) == 3):
		var in map[string]any
		if len(args) == 3 {
			if err := json.Unmarshal([]byte(args[2]), &in); err != nil {
				fmt.Fprintln(os.Stderr, "agent: the arguments are not a JSON object:", err)
				return 2
			}
		}
		res, err := m.Call(ctx, args[1], in)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent:", err)
			return 1
		}
		fmt.Println(res.Text())
		if res.IsError {
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "usage: agent | agent call TOOL [JSON] | agent mcp …")
	return 2
}

// agentHome is the agent's own folder: $AGENT_HOME, else ~/.config/agent.
func agentHome() (string, error) {
	if h := os.Getenv("AGENT_HOME"); h != "" {
		return filepath.Abs(h)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "agent"), nil
}
