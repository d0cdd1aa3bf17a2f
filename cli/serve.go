package cli

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// runServe serves the manager as one MCP server over stdio: the tools of
// every approved, enabled server (or of the ones named), under the
// manager's names (mcp__server__tool, or the definition's prefix), with
// list_changed when a server joins late, fails or changes its list, and
// progress passed through per call.
func runServe(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("serve")
	startup := fs.Duration("startup-timeout", manager.DefaultStartup, "bound each server's start")
	wait := fs.Duration("wait", 5*time.Second, "before serving, wait at most `DURATION` for the servers to start (later ones are announced with list_changed)")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		var keep []*config.Server
		for _, name := range pos {
			i := slices.IndexFunc(cfg.Servers, func(s *config.Server) bool { return s.Name == name })
			if i < 0 {
				f := usageErr("no server %q is configured", name)
				f.hints = []string{"see the configured servers with: " + inv.suggest("list")}
				return f
			}
			keep = append(keep, cfg.Servers[i])
		}
		cfg.Servers = keep
	}
	pin, err := inv.protocolPin()
	if err != nil {
		return err
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		return fail(ExitConfig, manager.PhaseConfig, err)
	}
	hub := &serveHub{}
	mopts := manager.Options{Config: cfg, Home: h, Environ: inv.env.Environ(), StartupTimeout: *startup,
		NeedsLogin: inv.needsLogin(h), OnChange: func(string) { hub.changed() },
		ReapOrphans: inv.env.ReapOrphans, Hurry: inv.env.Hurry, ProtocolVersion: pin}
	m, err := manager.New(mopts)
	if err != nil {
		return err
	}
	defer m.Close()
	wctx, cancel := context.WithTimeout(ctx, *wait)
	_ = m.Wait(wctx)
	cancel()
	srv := mcpserver.New(mcpserver.Options{
		LogPrefix: "mcpwire serve", Log: safe.NewTextWriter(inv.env.Stderr),
		ServerInfo: func() any {
			return map[string]any{"name": "mcpwire", "title": "mcpwire: the configured MCP servers as one", "version": clientVersion()}
		},
		Capabilities: func() map[string]any { return map[string]any{"tools": map[string]any{"listChanged": true}} },
		Instructions: func() string { return "" },
		NewSession: func(s *mcpserver.Session) mcpserver.Handler {
			hub.add(s)
			return mcpserver.Mux{
				"tools/list": func(ctx context.Context, p mcpserver.Peer, req *mcpserver.Request) (any, error) {
					hub.peer(s, p)
					return serveTools(ctx, m)
				},
				"tools/call": func(ctx context.Context, p mcpserver.Peer, req *mcpserver.Request) (any, error) {
					hub.peer(s, p)
					return serveCall(ctx, m, p, req.Params)
				},
			}
		},
	})
	return srv.ServeStdio(ctx, inv.env.Stdin, inv.env.Stdout)
}

// serveTools is the tools/list of serve: every connected server's tools
// under the manager's names.
func serveTools(ctx context.Context, m *manager.Manager) (any, error) {
	tools, err := m.Tools(ctx)
	if err != nil {
		return nil, mcpserver.Errorf(mcpserver.CodeInternalError, "%v", err)
	}
	out := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		schema := t.RawInputSchema
		if len(schema) == 0 {
			schema = t.InputSchema
		}
		e := map[string]any{"name": t.Name, "inputSchema": schema}
		if t.Title != "" {
			e["title"] = t.Title
		}
		if t.Description != "" {
			e["description"] = t.Description
		}
		out = append(out, e)
	}
	return map[string]any{"tools": out}, nil
}

// serveCall is the tools/call of serve: the manager's call, with the
// server's progress under the host's token.
func serveCall(ctx context.Context, m *manager.Manager, p mcpserver.Peer, params json.RawMessage) (any, error) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := mcpserver.Decode(params, &in); err != nil {
		return nil, err
	}
	opts := &manager.CallOptions{}
	if tok := in.Meta.ProgressToken; len(tok) > 0 && string(tok) != "null" {
		opts.OnProgress = func(pp protocol.ProgressParams) {
			pp.ProgressToken = tok
			_ = p.Notify(context.WithoutCancel(ctx), "notifications/progress", pp)
		}
	}
	var args any
	if len(in.Arguments) > 0 {
		args = in.Arguments
	}
	res, err := m.CallWith(ctx, in.Name, args, opts)
	if err != nil {
		if je := (*protocol.Error)(nil); errors.As(err, &je) {
			return nil, je
		}
		return nil, mcpserver.Errorf(mcpserver.CodeInvalidParams, "%s: %v", in.Name, err)
	}
	if res.Raw != nil {
		return res.Raw, nil
	}
	return nil, mcpserver.Errorf(mcpserver.CodeInternalError, "%s: no result", in.Name)
}

// A serveHub holds the host sessions of serve, to tell them of changes.
type serveHub struct {
	mu    sync.Mutex
	hosts map[*mcpserver.Session]mcpserver.Peer
}

func (h *serveHub) add(s *mcpserver.Session) { h.peer(s, nil) }

func (h *serveHub) peer(s *mcpserver.Session, p mcpserver.Peer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hosts == nil {
		h.hosts = map[*mcpserver.Session]mcpserver.Peer{}
	}
	if p != nil || h.hosts[s] == nil {
		h.hosts[s] = p
	}
}

// changed sends tools/list_changed to every host session.
func (h *serveHub) changed() {
	h.mu.Lock()
	hosts := make(map[*mcpserver.Session]mcpserver.Peer, len(h.hosts))
	for s, p := range h.hosts {
		hosts[s] = p
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for s, p := range hosts {
		s.Broadcast(ctx, "notifications/tools/list_changed", nil)
		if p != nil {
			_ = p.Notify(ctx, "notifications/tools/list_changed", nil)
		}
	}
}
