package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/config/registry"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// installDoc is `mcpwire install --json` and `upgrade --json`.
type installDoc struct {
	docHeader
	Servers []installResult `json:"servers"`
}

// installResult is one entry installed (or left as it was).
type installResult struct {
	Server      string   `json:"server"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Previous    string   `json:"previous"`
	Result      string   `json:"result"`
	Source      string   `json:"source"`
	Scope       string   `json:"scope"`
	Via         string   `json:"via"`
	Artifact    string   `json:"artifact"`
	Digest      string   `json:"digest"`
	Secrets     []string `json:"secrets"`
	Warnings    []string `json:"warnings"`
	PostInstall []string `json:"postInstall"`
	// Tools is the fingerprint of the tool surface locked in mcp.lock
	// ("" when none is); ToolsNote says why none is, for a project's
	// entry, and retry that a later sync may lock one.
	Tools     string `json:"tools"`
	ToolsNote string `json:"toolsNote"`
	retry     bool
}

// installJob is one definition to plan, review, write and approve.
type installJob struct {
	client  *registry.Client
	entry   *registry.Entry
	choice  registry.Choice
	values  registry.Values
	local   string
	path    string // the .mcp.json written
	scope   string
	replace bool
	yes     bool
	// connect starts the server once after its approval, to lock its
	// tool surface (install and upgrade, unless --no-connect).
	connect bool
	// expect, in sync, is the lock's entry the plan must match.
	expect *registry.Locked
	// have, in sync, is the entry .mcp.json already holds: approved as
	// it is when the plan gives the same definition; else replaced when
	// overwrite (this home never approved it), else left as it is.
	have      *config.Server
	overwrite bool
}

func runInstall(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("install")
	var sf scopeFlags
	sf.register(fs, "install into")
	var rf registryFlag
	rf.register(fs)
	var xf inputFlags
	xf.register(fs)
	remote := fs.Bool("remote", false, "use the server's remote (streamable HTTP first), not a package")
	pkg := fs.String("package", "", "use its package of `TYPE`: npm, pypi, nuget, oci or mcpb")
	as := fs.String("as", "", "the entry's `NAME` in .mcp.json (default: the part of the registry name after its slash)")
	yes := fs.Bool("yes", false, "approve what the review shows without asking (for CI)")
	noConnect := fs.Bool("no-connect", false, noConnectHelp)
	pos, err := inv.jsonArgs(fs, args, arity{1, 1, true, "install takes one NAME[@VERSION] of the registry (mcpwire search finds it)"})
	if err != nil {
		return err
	}
	if *remote && *pkg != "" {
		return usageErr("--remote and --package exclude each other")
	}
	scope, err := sf.resolve(inv)
	if err != nil {
		return err
	}
	vals, err := xf.values(inv)
	if err != nil {
		return err
	}
	name, version := splitNameVersion(pos[0])
	local, err := localName(*as, name)
	if err != nil {
		return err
	}
	_, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	c, err := inv.registryClient(inv.registryURL(&rf, home))
	if err != nil {
		return err
	}
	e, err := c.Get(ctx, name, version)
	if err != nil {
		return registryFailure(local, err)
	}
	job := &installJob{client: c, entry: e, choice: registry.Choice{Remote: *remote, Package: *pkg}, values: vals,
		local: local, path: scopePath(inv, home, scope == config.ScopeProject), scope: scope, yes: *yes, connect: !*noConnect}
	res, err := inv.install(ctx, home, job)
	if err != nil {
		return err
	}
	inv.reportInstall([]installResult{*res})
	return nil
}

// plan makes the job's plan, prompting on a terminal for what is
// missing; without one it fails naming each missing input.
func (inv *invocation) plan(ctx context.Context, home string, job *installJob) (*registry.Plan, error) {
	store := bundles(home)
	opts := registry.Options{Choice: job.choice, Values: job.values, Bundle: func(u, sum string) (string, *registry.Manifest, error) {
		return store.Fetch(ctx, u, sum)
	}}
	for round := 0; ; round++ {
		p, err := registry.MakePlan(job.entry, job.client.URL(), opts)
		if err != nil {
			return nil, &failure{code: ExitConfig, server: job.local, phase: manager.PhaseConfig, err: err}
		}
		if len(p.Missing) == 0 {
			return p, nil
		}
		if !inv.env.StdinIsTerminal || inv.json || round > 0 {
			f := &failure{code: ExitUsage, server: job.local, phase: manager.PhaseConfig,
				err: fmt.Errorf("%s needs %d input(s) that have no value", job.entry.Server.Name, len(p.Missing))}
			for _, m := range p.Missing {
				h := m.Flag()
				if m.Description != "" {
					h += "  (" + m.Description + ")"
				}
				if len(m.Choices) > 0 {
					h += "  one of: " + strings.Join(m.Choices, ", ")
				}
				f.hints = append(f.hints, h)
			}
			return nil, f
		}
		if err := inv.askInputs(ctx, p.Missing, &opts.Values); err != nil {
			return nil, err
		}
	}
}

// askInputs prompts for each missing input on the terminal.
func (inv *invocation) askInputs(ctx context.Context, missing []registry.Missing, v *registry.Values) error {
	in := inv.openPrompt()
	defer in.close()
	for _, m := range missing {
		q := m.Kind + " " + m.Name
		if m.Description != "" {
			q += " (" + m.Description + ")"
		}
		if len(m.Choices) > 0 {
			q += " [" + strings.Join(m.Choices, "|") + "]"
		}
		inv.eprintf("%s: ", safe.Sanitize(q))
		line, err := in.readLine(ctx)
		if err != nil {
			return err
		}
		val := strings.TrimSpace(line)
		switch m.Kind {
		case "env":
			v.Env[m.Name] = append(v.Env[m.Name], val)
		case "header":
			v.Headers[m.Name] = append(v.Headers[m.Name], val)
		default:
			v.Vars[m.Name] = append(v.Vars[m.Name], val)
		}
	}
	return nil
}

// install plans job, shows the review, and writes and approves what the
// user confirms (or --yes); a project's mcp.lock is updated.
func (inv *invocation) install(ctx context.Context, home string, job *installJob) (*installResult, error) {
	p, err := inv.plan(ctx, home, job)
	if err != nil {
		return nil, err
	}
	prov := p.Provenance
	if x := job.expect; x != nil && (prov.Artifact != x.Artifact || prov.Digest != x.Digest || prov.Via != x.Via) {
		return nil, &failure{code: ExitConfig, server: job.local, phase: manager.PhaseConfig,
			err: fmt.Errorf("%s@%s resolves to %s (%s), the lock says %s (%s)", prov.Name, prov.Version, prov.Artifact, prov.Digest, x.Artifact, x.Digest)}
	}
	def, err := json.Marshal(p.Entry)
	if err != nil {
		return nil, err
	}
	keep := job.have != nil && sameDefinition(job.have.Raw, def)
	if job.have != nil && !keep && !job.overwrite {
		// Edited since this home approved it: the user's to review.
		return &installResult{Server: job.local, Name: prov.Name, Version: prov.Version, Result: "in sync"}, nil
	}
	inv.eprintf("%s %s@%s from %s as %s (%s scope, %s):\n", verbOf(job, keep), safe.Sanitize(prov.Name), safe.Sanitize(prov.Version),
		safe.Sanitize(job.client.URL()), safe.Sanitize(job.local), job.scope, safe.Sanitize(job.path))
	inv.eprintf("%s\n", inv.jsonForPeople(def))
	desc := job.entry.Server.Description
	inv.eprintf("  registry says (untrusted): %s\n", safe.Sanitize(desc))
	for _, w := range p.Warnings {
		inv.eprintf("  warning:   %s\n", safe.Sanitize(w))
	}
	for _, v := range p.Secrets {
		inv.eprintf("  secret:    set %s in the environment (written as ${%s})\n", safe.Sanitize(v), safe.Sanitize(v))
	}
	inv.showPostInstall(p.PostInstall)
	if !job.yes {
		if !inv.env.StdinIsTerminal || inv.json {
			return nil, &failure{code: ExitConfig, server: job.local, phase: manager.PhaseApproval,
				err:   fmt.Errorf("nothing written: the definition needs your approval"),
				hints: []string{"review it above, then run again with --yes"}}
		}
		ok, err := inv.confirm(ctx, fmt.Sprintf("write and approve %s? [y/N] ", safe.Sanitize(job.local)))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &failure{code: ExitConfig, server: job.local, phase: manager.PhaseApproval, err: fmt.Errorf("not approved: nothing written")}
		}
	}
	s, result, err := inv.putEntry(ctx, job, p, keep)
	if err != nil {
		return nil, err
	}
	ap, err := config.OpenApprovals(home)
	if err != nil {
		return nil, inv.approvalsUnavailable(job.local, home, err)
	}
	if err := ap.ApproveContext(ctx, s); err != nil {
		return nil, &failure{code: ExitConfig, server: job.local, phase: manager.PhaseApproval, err: err}
	}
	res := &installResult{Server: job.local, Name: prov.Name, Version: prov.Version, Result: result, Source: s.Source, Scope: job.scope,
		Via: prov.Via, Artifact: prov.Artifact, Digest: prov.Digest, Secrets: nonNil(p.Secrets), Warnings: nonNil(p.Warnings), PostInstall: nonNil(p.PostInstall)}
	if job.scope == config.ScopeProject && job.expect == nil {
		if err := inv.lockEntry(ctx, home, job, prov, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// noConnectHelp is the help of install's and upgrade's --no-connect.
const noConnectHelp = "do not start the server after its approval to lock its tool surface in mcp.lock (a project's entry); the next sync after it has connected locks it"

// putEntry writes the plan's definition into job's file (a new entry,
// or one replaced); keep leaves job.have as it is. It returns the entry
// to approve and the result's word.
func (inv *invocation) putEntry(ctx context.Context, job *installJob, p *registry.Plan, keep bool) (*config.Server, string, error) {
	if keep {
		return job.have, "approved", nil
	}
	put, result := config.AddServerContext, "installed"
	switch {
	case job.have != nil:
		put = config.ReplaceServerContext
	case job.replace:
		put, result = config.ReplaceServerContext, "upgraded"
	}
	s, err := put(ctx, job.path, job.scope, job.local, p.Entry)
	if err != nil {
		f := inv.configFailure(job.local, err).(*failure)
		if !job.replace && job.have == nil {
			f.hints = append(f.hints, "or install it under another name: --as NAME")
		}
		return nil, "", f
	}
	return s, result, nil
}

// sameDefinition reports whether an entry as written (raw) and a
// planned definition (def) are the same JSON value.
func sameDefinition(raw, def []byte) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal(def, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func verbOf(job *installJob, keep bool) string {
	switch {
	case keep:
		return "approving"
	case job.replace:
		return "upgrading to"
	}
	return "installing"
}

// showPostInstall lists the publisher's post-install steps: to do by
// hand, never run.
func (inv *invocation) showPostInstall(steps []string) {
	if len(steps) == 0 {
		return
	}
	inv.eprintf("  the publisher asks you to do by hand (%s runs none of it):\n", inv.prog)
	for i, s := range steps {
		inv.eprintf("    %d. %s\n", i+1, safe.Sanitize(s))
	}
}

// reportInstall prints what was installed.
func (inv *invocation) reportInstall(rs []installResult) {
	if inv.json {
		inv.writeJSON(installDoc{inv.header(true), rs})
		return
	}
	for _, r := range rs {
		switch r.Result {
		case "up to date":
			inv.printf("%s is up to date (%s)\n", safe.Sanitize(r.Server), safe.Sanitize(r.Version))
			continue
		case "upgraded":
			inv.printf("upgraded %s from %s to %s (%s) and approved it\n", safe.Sanitize(r.Server), safe.Sanitize(r.Previous), safe.Sanitize(r.Version), safe.Sanitize(r.Artifact))
		default:
			inv.printf("installed %s %s as %s in %s (%s scope) and approved it\n", safe.Sanitize(r.Name), safe.Sanitize(r.Version), safe.Sanitize(r.Server), safe.Sanitize(r.Source), r.Scope)
		}
		if r.Scope == config.ScopeProject {
			inv.printLocked(r)
		}
		inv.printf("try it: %s\n", inv.suggest("test", r.Server))
	}
}

// printLocked says that r is locked, and whether with its tool surface.
func (inv *invocation) printLocked(r installResult) {
	lock := safe.Sanitize(registry.LockPath(r.Source))
	switch {
	case r.Tools != "":
		inv.printf("locked %s %s in %s with its tool surface %s\n", safe.Sanitize(r.Server), safe.Sanitize(r.Version), lock, safe.Sanitize(r.Tools))
	case r.retry:
		inv.printf("locked %s %s in %s without its tool surface: %s\n", safe.Sanitize(r.Server), safe.Sanitize(r.Version), lock, safe.Sanitize(r.ToolsNote))
		inv.printf("  the next %s locks the surface once the server has connected (%s)\n", inv.suggest("sync"), inv.suggest("test", r.Server))
	default:
		inv.printf("locked %s %s in %s (%s)\n", safe.Sanitize(r.Server), safe.Sanitize(r.Version), lock, safe.Sanitize(r.ToolsNote))
	}
}

// updateLock sets one entry of the lock file at path, under its lock;
// an entry without tools keeps the ones locked for the same version and
// artifact. It returns the tools locked.
func updateLock(ctx context.Context, path, local string, l registry.Locked) (string, error) {
	fl, err := safe.LockContext(ctx, path)
	if err != nil {
		return "", err
	}
	defer fl.Unlock()
	lock, err := registry.ReadLock(path)
	if err != nil {
		return "", err
	}
	if old, ok := lock.Servers[local]; ok && l.Tools == "" && old.Version == l.Version && old.Artifact == l.Artifact {
		l.Tools = old.Tools
	}
	lock.Servers[local] = l
	return l.Tools, lock.Write(path)
}

// toolsFingerprint is the SHA-256 of the tool surface pinned for s ("" when
// none is pinned yet).
func toolsFingerprint(ap *config.Approvals, s *config.Server) string {
	raw, err := ap.LoadPin(s)
	if err != nil || len(raw) == 0 {
		return ""
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// projectFile is the project's .mcp.json.
func projectFile(inv *invocation) string { return filepath.Join(inv.env.Dir, ".mcp.json") }
