package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// servePageSize is how many items one page of serve's lists holds.
const servePageSize = 100

// runServe serves the manager as one MCP server over stdio, or with
// --listen over streamable HTTP: the tools, resources, resource
// templates and prompts of every approved, enabled server (or of the ones
// named), tools and prompts under the manager's names (mcp__server__tool,
// or the definition's prefix), resources under their own URIs; with
// list_changed when a server joins late, fails or changes a list,
// progress and cancellation passed through per call, and the servers'
// elicitations, samples and roots/list asked of the host.
func runServe(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("serve")
	startup := fs.Duration("startup-timeout", manager.DefaultStartup, "bound each server's start")
	wait := fs.Duration("wait", 5*time.Second, "before serving, wait at most `DURATION` for the servers to start (later ones are announced with list_changed)")
	pageSize := fs.Int("page-size", servePageSize, "items per page of each list served")
	var pf proxyFlags
	pf.register(fs)
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *pageSize < 1 {
		return usageErr("--page-size %d: want at least 1", *pageSize)
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	if cfg.Servers, err = inv.serveNamed(cfg.Servers, pos); err != nil {
		return err
	}
	sopts := mcpserver.Options{LogPrefix: "mcpwire serve", Log: safe.NewTextWriter(inv.env.Stderr)}
	if pf.listen != "" {
		if err := inv.listenPolicy(&pf, &sopts, "the configured servers"); err != nil {
			return err
		}
	}
	pin, err := inv.protocolPin()
	if err != nil {
		return err
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		return fail(ExitConfig, manager.PhaseConfig, err)
	}
	var sv *served // its subscriptions are made once serving starts
	hub := &serveHub{relay: mcpserver.NewInputRelay(), subs: mcpserver.NewSubscriptions(mcpserver.Upstream{
		Subscribe:   func(ctx context.Context, uri string) error { return sv.resubscribe(ctx, uri, true) },
		Unsubscribe: func(ctx context.Context, uri string) error { return sv.resubscribe(ctx, uri, false) },
	})}
	mopts := manager.Options{Config: cfg, Home: h, Environ: inv.env.Environ(), StartupTimeout: *startup,
		NeedsLogin: inv.needsLogin(h), OnChange: func(string) { hub.changed() },
		OnNotice: func(n manager.Notice) {
			if n.Kind == manager.NoticeFailed || n.Kind == manager.NoticePaused {
				hub.changed() // a failed server's offers are withdrawn
			}
		},
		OnResourceUpdated: func(_, uri string) { hub.updated(uri) },
		Elicit: func(ctx context.Context, _ string, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			var out protocol.ElicitResult
			err := hub.ask(ctx, "elicitation/create", p, &out)
			return &out, err
		},
		Sample: func(ctx context.Context, _ string, p json.RawMessage) (any, error) {
			var out json.RawMessage
			err := hub.ask(ctx, "sampling/createMessage", p, &out)
			return out, err
		},
		ListRoots: func(ctx context.Context, _ string) ([]protocol.Root, error) {
			var out struct {
				Roots []protocol.Root `json:"roots"`
			}
			err := hub.ask(ctx, "roots/list", nil, &out)
			return out.Roots, err
		},
		ReapOrphans: inv.env.ReapOrphans, Hurry: inv.env.Hurry, ProtocolVersion: pin}
	m, err := manager.New(mopts)
	if err != nil {
		return err
	}
	defer m.Close()
	wctx, cancel := context.WithTimeout(ctx, *wait)
	_ = m.Wait(wctx)
	cancel()
	sv = &served{m: m, hub: hub, pageSize: *pageSize, prefixes: map[string]string{}}
	for _, s := range cfg.Servers {
		sv.prefixes[s.Name] = s.Prefix
	}
	sopts.ServerInfo = func() any {
		return map[string]any{"name": "mcpwire", "title": "mcpwire: the configured MCP servers as one", "version": clientVersion()}
	}
	sopts.Capabilities = func() map[string]any {
		return map[string]any{
			"tools":       map[string]any{"listChanged": true},
			"resources":   map[string]any{"listChanged": true, "subscribe": true},
			"prompts":     map[string]any{"listChanged": true},
			"completions": map[string]any{},
		}
	}
	sopts.Instructions = func() string { return "" }
	sopts.KnownResource = func(string) bool { return true }
	sopts.SessionEnded = sv.release
	sopts.Listened = hub.subs.Listened
	sopts.NewSession = func(s *mcpserver.Session) mcpserver.Handler {
		hub.add(s)
		return sv.mux(s)
	}
	srv := mcpserver.New(sopts)
	if pf.listen != "" {
		return inv.serveListen(ctx, srv, pf.listen, "serve", serveWhat(cfg.Servers))
	}
	err = srv.ServeStdio(ctx, inv.env.Stdin, inv.env.Stdout)
	// The host's session ended with its stdin: its subscriptions too.
	for _, s := range hub.sessions() {
		sv.release(s)
	}
	return err
}

// serveNamed keeps the servers named (all of them when none is).
func (inv *invocation) serveNamed(servers []*config.Server, names []string) ([]*config.Server, error) {
	if len(names) == 0 {
		return servers, nil
	}
	var keep []*config.Server
	for _, name := range names {
		i := slices.IndexFunc(servers, func(s *config.Server) bool { return s.Name == name })
		if i < 0 {
			f := usageErr("no server %q is configured", name)
			f.hints = []string{"see the configured servers with: " + inv.suggest("list")}
			return nil, f
		}
		keep = append(keep, servers[i])
	}
	return keep, nil
}

// serveWhat names what serve serves, for its one line on stderr.
func serveWhat(servers []*config.Server) string {
	names := make([]string, 0, len(servers))
	for _, s := range servers {
		names = append(names, safe.Sanitize(s.Name))
	}
	if len(names) == 0 {
		return "no servers"
	}
	return strings.Join(names, ", ")
}
