package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// listEntry is one server in `mcpwire list --json`.
type listEntry struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Scope     string `json:"scope"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	Enabled   bool   `json:"enabled"`
	Approval  string `json:"approval"`
	Auth      string `json:"auth"`
	State     string `json:"state"`
	Protocol  string `json:"protocol,omitempty"` // the revision spoken, when connected
	Era       string `json:"era,omitempty"`      // "modern" or "legacy", when connected
	Tools     *int   `json:"tools,omitempty"`
	Error     *struct {
		Phase   string `json:"phase"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func runList(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("list")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document")
	var noConnect bool
	fs.BoolVar(&noConnect, "no-connect", false, "do not connect; show the configuration only")
	startup := fs.Duration("startup-timeout", manager.DefaultStartup, "bound each server's start")
	inv.junitFlag(fs)
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("list takes no arguments")
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	m, err := manager.New(manager.Options{Config: cfg, Home: home, Environ: inv.env.Environ(), StartupTimeout: *startup,
		NeedsLogin: inv.needsLogin(home), HTTPClient: manager.AuthClientFor(home),
		ReapOrphans: inv.env.ReapOrphans, Hurry: inv.env.Hurry})
	if err != nil {
		return err
	}
	inv.atExit(func() { m.Close() }) // after the output
	if !noConnect {
		for _, s := range cfg.Servers {
			if s.AllowHTTP && s.Enabled && s.Expanded != nil {
				inv.warnPlainHTTP(s.Name, s.Expanded.URL)
			}
		}
		stop := inv.spinner(fmt.Sprintf("connecting to %d servers", len(cfg.Servers)))
		_ = m.Wait(ctx)
		stop()
	}
	approvals, _ := config.OpenApprovals(home)
	states := m.States()
	entries := make([]listEntry, len(cfg.Servers))
	for i, s := range cfg.Servers {
		e := listEntry{Name: s.Name, Source: s.Source, Scope: s.Scope, Transport: s.Type, Target: s.Target(),
			Enabled: s.Enabled, Approval: approvals.State(s).String(), Auth: inv.authStatus(home, s)}
		st := states[i]
		e.State = string(st.State)
		if st.State == manager.StateNeedsLogin {
			// The server said so (401), whatever the token file says.
			switch e.Auth {
			case "not needed":
				e.Auth = "needed"
			case "authenticated", "refreshable":
				e.Auth = "rejected"
			}
		}
		if st.State == manager.StateConnected {
			e.Protocol, e.Era = st.ProtocolVersion, string(st.Era)
			n := st.Tools
			e.Tools = &n
		}
		if st.Err != nil && st.State != manager.StateConnected {
			e.Error = &struct {
				Phase   string `json:"phase"`
				Message string `json:"message"`
			}{st.Phase, safe.Sanitize(st.Err.Error())}
		}
		entries[i] = e
	}
	if inv.junit != nil {
		inv.listJUnit(entries)
	}
	if inv.json {
		inv.writeJSON(struct {
			Schema   int         `json:"schema"`
			Servers  []listEntry `json:"servers"`
			Warnings []string    `json:"warnings,omitempty"`
		}{1, entries, cfg.Warnings})
		return nil
	}
	if len(entries) == 0 {
		inv.printf("no servers configured (looked in %s)\n", configPaths(cfg))
		inv.printf("add one: %[1]s NAME -- COMMAND ARGS…   or   %[1]s NAME --url URL\n", inv.suggest("add"))
		return nil
	}
	rows := [][]string{{"NAME", "SCOPE", "TRANSPORT", "TARGET", "APPROVAL", "AUTH", "STATUS"}}
	for _, e := range entries {
		status := e.State
		switch {
		case e.Tools != nil:
			status = inv.green("✓") + " " + safe.Sanitize(e.Protocol) + " (" + e.Era + "), " + strconv.Itoa(*e.Tools) + " tools"
		case e.Error != nil:
			status = inv.red("✗") + " " + e.Error.Phase + ": " + oneLine(e.Error.Message, 80)
		}
		rows = append(rows, []string{safe.Sanitize(e.Name), e.Scope, e.Transport, oneLine(e.Target, 40), e.Approval, e.Auth, status})
	}
	inv.table(rows)
	return nil
}
