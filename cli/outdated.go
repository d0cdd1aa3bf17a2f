package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/config/registry"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// outdatedDoc is `mcpwire outdated --json`.
type outdatedDoc struct {
	docHeader
	Servers []outdatedRow `json:"servers"`
}

type outdatedRow struct {
	_ [0]func() // not comparable: no equality function in the binary

	Server        string `json:"server"`
	Source        string `json:"source"`
	Name          string `json:"name"`
	Registry      string `json:"registry"`
	Installed     string `json:"installed"`
	Latest        string `json:"latest"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	Outdated      bool   `json:"outdated"`
	Problem       string `json:"problem"`
}

// installed returns the configured servers that came from a registry,
// by name, with their provenance.
func installed(cfg *config.Config) ([]*config.Server, map[string]registry.Provenance) {
	var out []*config.Server
	provs := map[string]registry.Provenance{}
	for _, s := range cfg.Servers {
		if p, ok := registry.ProvenanceOf(s.Registry); ok {
			out = append(out, s)
			provs[s.Name] = p
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, provs
}

// outdatedOf asks the registry about one installed server.
func outdatedOf(ctx context.Context, s *config.Server, p registry.Provenance) (outdatedRow, *registry.Entry) {
	row := outdatedRow{Server: s.Name, Source: s.Source, Name: p.Name, Registry: p.URL, Installed: p.Version}
	c, err := registry.New(p.URL, nil)
	if err != nil {
		row.Problem = err.Error()
		return row, nil
	}
	if cur, err := c.Get(ctx, p.Name, p.Version); err == nil {
		row.Status, row.StatusMessage = cur.Official.Status, cur.Official.StatusMessage
	} else if errors.Is(err, registry.ErrNotFound) {
		row.Status = "gone"
	} else {
		row.Problem = err.Error()
		return row, nil
	}
	latest, err := c.Get(ctx, p.Name, "latest")
	if err != nil {
		if row.Problem == "" && !errors.Is(err, registry.ErrNotFound) {
			row.Problem = err.Error()
		}
		return row, nil
	}
	row.Latest = latest.Server.Version
	row.Outdated = latest.Server.Version != p.Version && latest.Official.Status != registry.StatusDeleted
	return row, latest
}

func runOutdated(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("outdated")
	_, err := inv.jsonArgs(fs, args, arity{0, 0, false, "outdated takes no argument"})
	if err != nil {
		return err
	}
	cfg, _, err := inv.loadConfig()
	if err != nil {
		return err
	}
	servers, provs := installed(cfg)
	rows := []outdatedRow{}
	for _, s := range servers {
		row, _ := outdatedOf(ctx, s, provs[s.Name])
		rows = append(rows, row)
	}
	if inv.json {
		inv.writeJSON(outdatedDoc{inv.header(true), rows})
		return nil
	}
	if len(rows) == 0 {
		inv.say("no configured server came from a registry (%s install NAME)\n", inv.prog)
		return nil
	}
	for _, r := range rows {
		line := fmt.Sprintf("%s  %s  installed %s", safe.Sanitize(r.Server), safe.Sanitize(r.Name), safe.Sanitize(r.Installed))
		if r.Latest != "" {
			line += ", latest " + safe.Sanitize(r.Latest)
		}
		if r.Outdated {
			line += "  " + inv.bold("outdated")
		}
		inv.printf("%s\n", line)
		switch {
		case r.Problem != "":
			inv.printf("    problem: %s\n", safe.Sanitize(r.Problem))
		case r.Status == registry.StatusDeprecated:
			inv.printf("    warning: deprecated: %s\n", safe.Sanitize(r.StatusMessage))
		case r.Status == registry.StatusDeleted || r.Status == "gone":
			inv.printf("    warning: the registry marks it %s: %s; remove it or install another\n", r.Status, safe.Sanitize(r.StatusMessage))
		}
	}
	return nil
}

func runUpgrade(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("upgrade")
	all := fs.Bool("all", false, "upgrade every server installed from a registry")
	var xf inputFlags
	xf.register(fs)
	yes := fs.Bool("yes", false, "approve what the review shows without asking (for CI)")
	noConnect := fs.Bool("no-connect", false, noConnectHelp)
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *all == (len(pos) == 1) || len(pos) > 1 {
		return usageErr("upgrade takes one NAME, or --all")
	}
	vals, err := xf.values(inv)
	if err != nil {
		return err
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	servers, provs := installed(cfg)
	if !*all {
		s, err := inv.lookup(cfg, pos[0])
		if err != nil {
			return err
		}
		if _, ok := provs[s.Name]; !ok {
			return &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseConfig, err: fmt.Errorf("%s was not installed from a registry (no \"registry\" member)", s.Name)}
		}
		servers = []*config.Server{s}
	}
	results := []installResult{}
	for _, s := range servers {
		r, err := inv.upgradeOne(ctx, home, s, provs[s.Name], vals, *yes, !*noConnect)
		if err != nil {
			return err
		}
		results = append(results, *r)
	}
	inv.reportInstall(results)
	return nil
}

// upgradeOne upgrades s to the registry's latest version, the same way
// it was installed (its remote, or its package type).
func (inv *invocation) upgradeOne(ctx context.Context, home string, s *config.Server, p registry.Provenance, vals registry.Values, yes, connect bool) (*installResult, error) {
	row, latest := outdatedOf(ctx, s, p)
	if latest == nil {
		return nil, &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseConfig, err: fmt.Errorf("%s: %s", p.Name, orText(row.Problem, "the registry has no latest version"))}
	}
	if latest.Official.Status == registry.StatusDeleted {
		return nil, &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseConfig, err: fmt.Errorf("the registry marks %s@%s deleted; not upgraded", p.Name, latest.Server.Version)}
	}
	if !row.Outdated {
		return &installResult{Server: s.Name, Name: p.Name, Version: p.Version, Previous: p.Version, Result: "up to date", Source: s.Source, Scope: s.Scope,
			Via: p.Via, Artifact: p.Artifact, Digest: p.Digest, Secrets: []string{}, Warnings: []string{}, PostInstall: []string{}}, nil
	}
	c, err := registry.New(p.URL, nil)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	job := &installJob{client: c, entry: latest, choice: choiceOf(p.Via), values: keepValues(s, p, vals), local: s.Name, path: s.Source, scope: s.Scope, replace: true, yes: yes, connect: connect}
	r, err := inv.install(ctx, home, job)
	if err != nil {
		return nil, err
	}
	r.Previous = p.Version
	return r, nil
}

// choiceOf is the way an entry was installed, to install it again.
func choiceOf(via string) registry.Choice {
	if via == "remote" {
		return registry.Choice{Remote: true}
	}
	return registry.Choice{Package: via}
}

// keepValues adds to the values given the literal env and headers of the
// installed definition, the --var values install bound (arguments and
// variables, as the provenance recorded them), and the URL variables of a
// remote (recovered from its URL by the template the provenance recorded,
// for an entry installed before "vars"): never a ${VAR} reference, which
// is read again.
func keepValues(s *config.Server, p registry.Provenance, v registry.Values) registry.Values {
	// upgrade --all shares the values given among its servers: each
	// keeps its own in copies.
	v = registry.Values{Env: cloneValues(v.Env), Headers: cloneValues(v.Headers), Vars: cloneValues(v.Vars)}
	for k, vals := range p.BoundVars() {
		if _, given := v.Vars[k]; !given && len(vals) > 0 && !slices.ContainsFunc(vals, isRef) {
			v.Vars[k] = vals
		}
	}
	if p.Via == "remote" {
		for k, val := range registry.URLVars(p.Artifact, s.URL) {
			if _, given := v.Vars[k]; !given && val != "" && !isRef(val) {
				v.Vars[k] = []string{val}
			}
		}
	}
	for k, val := range s.Env {
		if _, given := v.Env[k]; !given && !isRef(val) {
			v.Env[k] = []string{val}
		}
	}
	for k, val := range s.Headers {
		if _, given := v.Headers[k]; !given && !isRef(val) {
			v.Headers[k] = []string{val}
		}
	}
	return v
}

// cloneValues copies m (never nil).
func cloneValues(m map[string][]string) map[string][]string {
	if m == nil {
		return map[string][]string{}
	}
	return maps.Clone(m)
}

func isRef(v string) bool { return len(v) > 3 && v[0] == '$' && v[1] == '{' && v[len(v)-1] == '}' }

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
