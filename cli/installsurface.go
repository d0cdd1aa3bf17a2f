package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/config/registry"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// lockEntry locks the project entry install just wrote and approved in
// mcp.lock beside its file; with job.connect it then connects the server
// once, so that its tool surface is pinned as at any first connection
// after an approval, and locks that surface's fingerprint too. A server
// that cannot be reached is still locked, without a surface: res says
// why, and the next sync after a connection locks it.
func (inv *invocation) lockEntry(ctx context.Context, home string, job *installJob, prov registry.Provenance, res *installResult) error {
	path := registry.LockPath(job.path)
	l := registry.LockedOf(prov, job.entry.Digest)
	kept, err := updateLock(ctx, path, job.local, l)
	if err != nil {
		return &failure{code: ExitConfig, server: job.local, phase: manager.PhaseConfig, err: err}
	}
	res.Tools = kept
	if !job.connect {
		if kept == "" {
			res.ToolsNote, res.retry = "not connected (--no-connect)", true
		}
		return nil
	}
	fp, why, retry := inv.pinSurface(ctx, home, job)
	if fp == "" {
		if kept == "" {
			res.ToolsNote, res.retry = why, retry
		}
		return nil
	}
	l.Tools = fp
	if _, err := updateLock(ctx, path, job.local, l); err != nil {
		return &failure{code: ExitConfig, server: job.local, phase: manager.PhaseConfig, err: err}
	}
	res.Tools = fp
	return nil
}

// pinSurface connects the entry job wrote, the way test does (through
// the manager, its surface checked and pinned), and returns the
// fingerprint of the surface pinned; else why there is none, and
// whether a later connection may pin one.
func (inv *invocation) pinSurface(ctx context.Context, home string, job *installJob) (fp, why string, retry bool) {
	s, err := inv.writtenServer(home, job)
	if err != nil {
		return "", "could not connect: " + err.Error(), true
	}
	t, err := inv.targetOf(home, s)
	if err != nil {
		return "", "could not connect: " + failureText(err), true
	}
	defer t.stop()
	conn, err := inv.connect(ctx, t, &targetFlags{noSession: true}, protocol.Options{})
	if err != nil {
		return "", "could not connect: " + failureText(err), true
	}
	conn.Close()
	switch {
	case t.surface == nil:
		return "", "its pin policy is off: no tool surface is pinned", false
	case t.surface.Err != nil:
		return "", "its tool surface could not be pinned: " + t.surface.Err.Error(), true
	}
	if fp = toolsFingerprint(t.approvals, s); fp == "" {
		return "", "no tool surface was pinned", true
	}
	return fp, "", false
}

// writtenServer is the entry job wrote, as the configuration loads it
// (its ${VAR} references expanded, its secrets registered for masking).
func (inv *invocation) writtenServer(home string, job *installJob) (*config.Server, error) {
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: inv.env.Dir, Getenv: inv.env.Getenv, LookupEnv: inv.env.LookupEnv})
	if cfg == nil {
		return nil, err
	}
	for _, s := range cfg.Servers {
		if s.Name == job.local && s.Scope == job.scope {
			inv.addSecrets(s.Secrets()...)
			return s, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s is not in %s", job.local, job.path)
}

// failureText is err in one line: a failure's reason and its hints.
func failureText(err error) string {
	var f *failure
	if !errors.As(err, &f) || f.err == nil {
		return err.Error()
	}
	text := f.err.Error()
	if len(f.hints) > 0 {
		text += " (" + strings.Join(f.hints, "; ") + ")"
	}
	return text
}
