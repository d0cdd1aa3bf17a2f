package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/config/registry"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// syncDoc is `mcpwire sync --json`.
type syncDoc struct {
	docHeader
	Lock    string     `json:"lock"`
	Frozen  bool       `json:"frozen"`
	Servers []syncLine `json:"servers"`
}

type syncLine struct {
	_ [0]func() // not comparable: no equality function in the binary

	Server  string `json:"server"`
	Name    string `json:"name"`
	Version string `json:"version"`
	// Result: "in sync", "installed", "approved" (in this home, as the
	// file has it), "locked" (the lock follows the file), "drift".
	Result string `json:"result"`
	Drift  string `json:"drift"`
}

func runSync(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("sync")
	frozen := fs.Bool("frozen", false, "install exactly what mcp.lock says and fail (exit 3) on any drift; never write the lock")
	yes := fs.Bool("yes", false, "approve what the review shows without asking (for CI)")
	_, err := inv.jsonArgs(fs, args, arity{0, 0, false, "sync takes no argument: it reads ./mcp.lock"})
	if err != nil {
		return err
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	path := projectFile(inv)
	lockPath := registry.LockPath(path)
	lock, err := registry.ReadLock(lockPath)
	if err != nil {
		return &failure{code: ExitConfig, phase: manager.PhaseConfig, err: err}
	}
	ap, err := config.OpenApprovals(home)
	if err != nil {
		return inv.approvalsUnavailable("", home, err)
	}
	project := map[string]*config.Server{}
	for _, s := range cfg.Servers {
		if s.Scope == config.ScopeProject {
			project[s.Name] = s
		}
	}
	var lines []syncLine
	changed := false
	updates := map[string]registry.Locked{} // written over the lock as it is then
	for _, name := range lock.Names() {
		l := lock.Servers[name]
		line, err := inv.syncOne(ctx, home, ap, name, l, project[name], *frozen, *yes)
		if err != nil {
			return err
		}
		if line.Result == "locked" {
			s := project[name]
			p, _ := registry.ProvenanceOf(s.Registry)
			nl := registry.LockedOf(p, l.Document)
			nl.Tools = toolsFingerprint(ap, s)
			updates[name] = nl
			changed = true
		}
		lines = append(lines, line)
	}
	for name, s := range project {
		if _, locked := lock.Servers[name]; locked {
			continue
		}
		p, ok := registry.ProvenanceOf(s.Registry)
		if !ok {
			continue
		}
		line := syncLine{Server: name, Name: p.Name, Version: p.Version, Result: "locked"}
		if *frozen {
			line.Result, line.Drift = "drift", "installed from the registry but not in mcp.lock"
		} else {
			nl := registry.LockedOf(p, p.Digest)
			if c, err := registry.New(p.URL, nil); err == nil {
				if e, err := c.Get(ctx, p.Name, p.Version); err == nil {
					nl.Document = e.Digest
				}
			}
			nl.Tools = toolsFingerprint(ap, s)
			updates[name] = nl
			changed = true
		}
		lines = append(lines, line)
	}
	return inv.syncReport(ctx, updates, lockPath, lines, *frozen, changed, *yes)
}

// syncOne compares one lock entry with the registry and the project's
// file; an entry the file lacks is installed exactly as locked.
func (inv *invocation) syncOne(ctx context.Context, home string, ap *config.Approvals, name string, l registry.Locked, s *config.Server, frozen, yes bool) (syncLine, error) {
	line := syncLine{Server: name, Name: l.Name, Version: l.Version, Result: "in sync"}
	relock := false
	drift := func(f string, a ...any) (syncLine, error) {
		line.Result, line.Drift = "drift", fmt.Sprintf(f, a...)
		return line, nil
	}
	if s != nil {
		p, ok := registry.ProvenanceOf(s.Registry)
		switch {
		case !ok:
			return drift("the .mcp.json entry has no registry provenance")
		case p.Name != l.Name || p.Version != l.Version || p.Artifact != l.Artifact || p.Digest != l.Digest:
			if frozen {
				return drift(".mcp.json has %s@%s (%s), the lock %s@%s (%s)", p.Name, p.Version, p.Artifact, l.Name, l.Version, l.Artifact)
			}
			line.Version, line.Result = p.Version, "locked"
			return line, nil
		}
		switch fp := toolsFingerprint(ap, s); {
		case l.Tools != "" && fp != "" && fp != l.Tools && frozen:
			return drift("its pinned tool surface is %s, the lock says %s", fp, l.Tools)
		case fp != "" && fp != l.Tools && !frozen:
			relock = true // the surface pinned since, or re-approved
		}
	}
	c, err := registry.New(l.Registry, nil)
	if err != nil {
		return drift("%v", err)
	}
	e, err := c.Get(ctx, l.Name, l.Version)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return drift("%s@%s is gone from %s", l.Name, l.Version, l.Registry)
	case err != nil:
		return line, registryFailure(name, err)
	case e.Official.Status == registry.StatusDeleted:
		return drift("the registry marks %s@%s deleted%s", l.Name, l.Version, suffix(e.Official.StatusMessage))
	case e.Digest != l.Document:
		return drift("the registry's document of %s@%s changed since it was locked", l.Name, l.Version)
	}
	if e.Official.Status == registry.StatusDeprecated && !inv.json {
		inv.say("warning: %s: the registry marks %s@%s deprecated%s\n", safe.Sanitize(name), safe.Sanitize(l.Name), safe.Sanitize(l.Version), safe.Sanitize(suffix(e.Official.StatusMessage)))
	}
	vals := registry.Values{Env: map[string][]string{}, Headers: map[string][]string{}, Vars: map[string][]string{}}
	overwrite := false
	if s != nil {
		// Approved here: nothing to do. Never approved in this home (a
		// clone on another machine), or changed since: the entry as it
		// is is approved when the locked registry document gives the
		// same definition; else, never approved here, what the lock says
		// is installed over it (an MCPB bundle unpacked in this home); a
		// hand edit approved before is left for the user to review. A
		// revoked entry stays revoked.
		st := ap.State(s)
		switch st {
		case config.Approved, config.Revoked:
			if relock {
				line.Result = "locked"
			}
			return line, nil
		}
		overwrite = st == config.NeverApproved
		p, _ := registry.ProvenanceOf(s.Registry)
		vals = keepValues(s, p, vals)
	}
	job := &installJob{client: c, entry: e, choice: choiceOf(l.Via), values: vals,
		local: name, path: projectFile(inv), scope: config.ScopeProject, yes: yes, expect: &l, have: s, overwrite: overwrite}
	res, err := inv.install(ctx, home, job)
	if err != nil {
		var f *failure
		if frozen && errors.As(err, &f) && f.phase == manager.PhaseConfig {
			return drift("%v", f.err)
		}
		return line, err
	}
	if line.Result = res.Result; line.Result == "in sync" && relock {
		line.Result = "locked"
	}
	return line, nil
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// syncReport prints the lines; frozen, any drift fails (exit 3) naming
// each; otherwise a changed lock is written after the review.
func (inv *invocation) syncReport(ctx context.Context, updates map[string]registry.Locked, lockPath string, lines []syncLine, frozen, changed, yes bool) error {
	var drifts []string
	for _, l := range lines {
		if l.Result == "drift" {
			drifts = append(drifts, l.Server+": "+l.Drift)
		}
	}
	if len(drifts) > 0 {
		f := &failure{code: ExitConfig, phase: manager.PhaseConfig, err: fmt.Errorf("%s drifted from %s", plural(len(drifts), "entry"), lockPath), hints: drifts}
		if !frozen {
			f.hints = append(f.hints, "reinstall or remove each, then sync again")
		}
		if inv.json {
			inv.writeJSON(syncDoc{inv.header(false), lockPath, frozen, nonNilLines(lines)})
			return &failure{code: ExitConfig, phase: manager.PhaseConfig, err: f.err, hints: f.hints, kind: codeConfigInvalid}
		}
		inv.syncLines(lines)
		return f
	}
	if changed {
		if !inv.json {
			inv.syncLines(lines)
		}
		if !yes && (!inv.env.StdinIsTerminal || inv.json) {
			return &failure{code: ExitConfig, phase: manager.PhaseApproval, err: fmt.Errorf("%s not written: the changes above need your approval", lockPath), hints: []string{"run again with --yes"}}
		}
		if !yes {
			ok, err := inv.confirm(ctx, "write "+safe.Sanitize(lockPath)+"? [y/N] ")
			if err != nil || !ok {
				return &failure{code: ExitConfig, phase: manager.PhaseApproval, err: fmt.Errorf("%s not written", lockPath)}
			}
		}
		if err := writeLockLocked(ctx, updates, lockPath); err != nil {
			return &failure{code: ExitConfig, phase: manager.PhaseConfig, err: err}
		}
	}
	if inv.json {
		inv.writeJSON(syncDoc{inv.header(true), lockPath, frozen, nonNilLines(lines)})
		return nil
	}
	if !changed {
		inv.syncLines(lines)
	}
	inv.printf("%s: %s in sync\n", safe.Sanitize(lockPath), plural(len(lines), "entry"))
	return nil
}

func (inv *invocation) syncLines(lines []syncLine) {
	for _, l := range lines {
		text := strings.TrimSpace(l.Result + "  " + safe.Sanitize(l.Drift))
		inv.printf("%s  %s@%s  %s\n", safe.Sanitize(l.Server), safe.Sanitize(l.Name), safe.Sanitize(l.Version), text)
	}
}

func nonNilLines(l []syncLine) []syncLine {
	if l == nil {
		return []syncLine{}
	}
	return l
}

// writeLockLocked sets the entries of updates in the lock file, under its
// file lock: read again there, so that an install that locked another
// entry while sync was reviewing is kept.
func writeLockLocked(ctx context.Context, updates map[string]registry.Locked, path string) error {
	fl, err := safe.LockContext(ctx, path)
	if err != nil {
		return err
	}
	defer fl.Unlock()
	lock, err := registry.ReadLock(path)
	if err != nil {
		return err
	}
	for name, l := range updates {
		lock.Servers[name] = l
	}
	return lock.Write(path)
}
