package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// loadConfig reads both scopes; warnings go to stderr (and to --json
// documents through the callers).
func (inv *invocation) loadConfig() (*config.Config, string, error) {
	home := inv.env.Home
	if home == "" {
		var err error
		home, err = config.Home(inv.env.Getenv)
		if err != nil {
			return nil, "", fail(ExitConfig, manager.PhaseConfig, err)
		}
	} else if !filepath.IsAbs(home) {
		home = filepath.Join(inv.env.Dir, home)
	}
	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: inv.env.Dir, Getenv: inv.env.Getenv, LookupEnv: inv.env.LookupEnv})
	if err != nil && cfg == nil {
		return nil, "", fail(ExitConfig, manager.PhaseConfig, err, inv.configHint(err))
	}
	// A broken file fails alone; the other file's servers stay usable.
	inv.configErr = err
	for _, s := range cfg.Servers {
		inv.addSecrets(s.Secrets()...)
	}
	for _, f := range cfg.Files {
		if f.Err != nil {
			inv.say("warning: %s (its servers are left out)\n", safe.Sanitize(f.Err.Error()))
		}
	}
	if !inv.json {
		for _, w := range cfg.Warnings {
			inv.say("warning: %s\n", safe.Sanitize(w))
		}
	}
	return cfg, home, nil
}

// configHint says what to do about a server file that failed to load.
func (inv *invocation) configHint(err error) string {
	var re *safe.ReadError
	if errors.As(err, &re) {
		return "replace " + re.Path + " with a regular file of the project (at most " + strconv.FormatInt(re.Kind.Limit()>>20, 10) + " MiB)"
	}
	return "fix the file; " + inv.prog + " never rewrites a file that is not valid JSON"
}

// lookup finds a configured server by name.
func (inv *invocation) lookup(cfg *config.Config, name string) (*config.Server, error) {
	s := cfg.Server(name)
	if s == nil && inv.configErr != nil {
		return nil, fail(ExitConfig, manager.PhaseConfig, inv.configErr, inv.configHint(inv.configErr))
	}
	if s == nil {
		var names []string
		for _, x := range cfg.Servers {
			names = append(names, x.Name)
		}
		hints := []string{"add it with: " + inv.suggest("add", name) + " -- COMMAND ARGS…  (or --url URL)"}
		if len(names) > 0 {
			sort.Strings(names)
			hints = []string{"configured servers: " + strings.Join(names, ", ")}
			if c := closest(name, names); c != "" {
				hints = append([]string{"did you mean " + c + "?"}, hints...)
			}
		}
		if h := inv.parentConfigHint(); h != "" {
			hints = append(hints, h)
		}
		return nil, &failure{code: ExitConfig, phase: manager.PhaseConfig, kind: codeServerNotFound,
			err: fmt.Errorf("no server named %q in %s", name, configPaths(cfg)), hints: hints}
	}
	return s, nil
}

func configPaths(cfg *config.Config) string {
	var ps []string
	for _, f := range cfg.Files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, " or ")
}

// configuredTarget resolves a configured server: it must be valid,
// enabled, approved and its variables set.
func (inv *invocation) configuredTarget(ctx context.Context, name string) (*target, error) {
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return nil, err
	}
	s, err := inv.lookup(cfg, name)
	if err != nil {
		return nil, err
	}
	return inv.targetOf(home, s)
}

// targetOf is the target of the configured server s of home: refused
// when it is invalid, disabled or not approved.
func (inv *invocation) targetOf(home string, s *config.Server) (*target, error) {
	name := s.Name
	ap, digest, err := inv.checkUsable(home, s)
	if err != nil {
		return nil, err
	}
	spec, err := manager.SpecFromConfig(s)
	if err != nil {
		return nil, &failure{code: ExitConfig, server: name, phase: manager.PhaseConfig, err: err}
	}
	defaults, err := ap.Defaults()
	if err != nil {
		inv.say("warning: %s\n", safe.Sanitize(err.Error()))
	}
	if spec, err = manager.WithSandbox(spec, s, defaults, inv.env.Environ()); err != nil {
		return nil, &failure{code: ExitConfig, server: name, phase: manager.PhaseConfig, err: err}
	}
	return &target{spec: spec, server: s, home: home, approvals: ap, digest: digest, stop: func() {}}, nil
}

// checkUsable refuses a server that is invalid, disabled or not approved;
// it returns the approvals of home it read for that, and s's digest.
func (inv *invocation) checkUsable(home string, s *config.Server) (*config.Approvals, string, error) {
	if s.Err != nil {
		hint := "fix the definition in " + s.Source
		var xe *config.ExpandError
		if errors.As(s.Err, &xe) && xe.Var != "" {
			hint = "set " + xe.Var + " in the environment, or give the reference a default in " + s.Source + ": ${" + xe.Var + ":-default}"
		}
		return nil, "", &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseConfig, err: s.Err, hints: []string{hint}}
	}
	if !s.Enabled {
		return nil, "", &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseConfig, err: errors.New("the server is disabled"),
			hints: []string{"enable it with: " + inv.suggest("enable", s.Name)}}
	}
	ap, err := config.OpenApprovals(home)
	if err != nil {
		return nil, "", inv.approvalsUnavailable(s.Name, home, err)
	}
	switch st, digest := ap.StateDigest(s); st {
	case config.Approved:
		return ap, digest, nil
	default:
		return nil, "", &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseApproval,
			err:   fmt.Errorf("not approved (%s): a definition runs only once approved", st),
			hints: []string{"review it with: " + inv.suggest("get", s.Name), "then approve it with: " + inv.suggest("approve", s.Name)}}
	}
}

// approvalsUnavailable is the failure of a command that needs the
// approvals of home when they cannot be read or created: approvals fail
// closed, so nothing that needs one runs (exit 3).
func (inv *invocation) approvalsUnavailable(server, home string, err error) *failure {
	return &failure{code: ExitConfig, server: server, phase: manager.PhaseApproval,
		err: fmt.Errorf("approvals are unavailable, so no definition that needs one runs: %w", err),
		hints: []string{"make " + home + " a folder " + inv.prog + " can write, with a readable " + config.KeyFileName +
			" (32 bytes; delete a damaged one to make a new key, which loses every approval) and a " + config.SettingsFileName + " that is JSON"}}
}

// scopePath is the .mcp.json of the project (the working directory) or
// of the home folder.
func scopePath(inv *invocation, home string, project bool) string {
	if project {
		return filepath.Join(inv.env.Dir, ".mcp.json")
	}
	return filepath.Join(home, ".mcp.json")
}

// configFailure maps a config edit error to exit code 3 with a hint.
func (inv *invocation) configFailure(name string, err error) error {
	f := &failure{code: ExitConfig, server: name, phase: manager.PhaseConfig, err: err}
	switch {
	case errors.Is(err, config.ErrNameInUse):
		f.hints = []string{"pick another name, or remove the old one first: " + inv.suggest("remove", name)}
	case errors.Is(err, config.ErrNotFound):
		f.hints = []string{"see the configured servers with: " + inv.suggest("list")}
	}
	return f
}

func runGet(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("get")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("get takes one NAME")
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	s, err := inv.lookup(cfg, pos[0])
	if err != nil {
		return err
	}
	def, err := config.ReviewJSON(s)
	if err != nil {
		return &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseConfig, err: err}
	}
	ap, _ := config.OpenApprovals(home)
	state := ap.State(s).String()
	problem := ""
	if s.Err != nil {
		problem = s.Err.Error()
	}
	if inv.json {
		inv.writeJSON(getDoc{inv.header(true), s.Name, s.Source, s.Scope, s.Type, s.Target(), s.Enabled, state, s.WorkDir(), problem,
			nonNil(inv.reviewWarnings(s)), rawJSONDocument(def)})
		return nil
	}
	inv.printf("%s  %s\n", inv.bold(safe.Sanitize(s.Name)), inv.dim(fmt.Sprintf("%s:%d (%s scope)", safe.Sanitize(s.Source), s.Line, s.Scope)))
	inv.printf("  transport: %s\n  target:    %s\n  enabled:   %v\n  approval:  %s\n", s.Type, safe.Sanitize(s.Target()), s.Enabled, state)
	if problem != "" {
		inv.printf("  problem:   %s\n", safe.Sanitize(problem))
	}
	inv.review(inv.printf, s, def, ap)
	return nil
}

// reviewWarnings are the warnings of a definition's review, in words:
// what it loads or sends (config.ReviewWarnings), and secrets of the
// user's own file too short to be masked in output.
func (inv *invocation) reviewWarnings(s *config.Server) []string {
	out := config.ReviewWarnings(s)
	for _, f := range s.ShortSecrets() {
		out = append(out, fmt.Sprintf("%s is shorter than %d characters: %s cannot mask it in output (use a longer value, or a ${VAR} reference)", f, safe.MinSecretLen, inv.prog))
	}
	return out
}

// review prints what a person approves: the definition as written
// (${VAR} unexpanded, literal values in full but the secrets of the
// user's own file), the folder a stdio server runs in and the sandbox
// it runs in (under the home's defaults of ap), and warnings.
func (inv *invocation) review(out func(string, ...any), s *config.Server, def []byte, ap *config.Approvals) {
	out("%s\n", inv.jsonForPeople(def))
	if s.Type == config.TypeStdio {
		dir := s.WorkDir()
		if dir == "" {
			dir = "the working directory of the program that starts it"
		}
		out("  runs in:   %s\n", safe.Sanitize(dir))
		var d config.Defaults
		if ap != nil {
			d, _ = ap.Defaults() // a wrong one stands for the strictest
		}
		if sj := inv.sandboxOf(s, d); sj != nil {
			out("  sandbox:   %s\n", sandboxLine(sj))
		} else {
			out("  sandbox:   none (it runs with all of your rights)\n")
		}
	}
	for _, w := range inv.reviewWarnings(s) {
		out("  warning:   %s\n", safe.Sanitize(w))
	}
}

// getDoc is `mcpwire get --json`.
type getDoc struct {
	docHeader
	Server    string `json:"server"`
	Source    string `json:"source"`
	Scope     string `json:"scope"`
	Transport string `json:"transport"`
	Target    string `json:"target"`
	Enabled   bool   `json:"enabled"`
	Approval  string `json:"approval"`
	WorkDir   string `json:"workDir"` // where a stdio server runs; "" for HTTP, or the starter's folder
	// Problem says why the definition cannot run (a wrong field, an
	// unset variable); "" when it can.
	Problem    string          `json:"problem"`
	Warnings   []string        `json:"warnings"`
	Definition rawJSONDocument `json:"definition"`
}

// rawJSONDocument embeds JSON bytes as is.
type rawJSONDocument []byte

func (r rawJSONDocument) MarshalJSON() ([]byte, error) { return r, nil }

// findServer finds the server named by the one word of pos.
func (inv *invocation) findServer(pos []string) (s *config.Server, home string, err error) {
	if len(pos) != 1 {
		return nil, "", usageErr("%s takes one NAME", inv.cmd.name)
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return nil, "", err
	}
	s, err = inv.lookup(cfg, pos[0])
	return s, home, err
}

func runApprove(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("approve")
	all := fs.Bool("all", false, "approve every enabled definition of your own file (the home folder's .mcp.json) that is not approved yet (revoked ones excepted), each reviewed on stderr: for CI")
	project := fs.Bool("project", false, "with --all: the definitions of the project file (./.mcp.json) instead; on a terminal it asks once, after the review")
	yes := fs.Bool("yes", false, "with --all --project: approve without asking (for CI)")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *all && len(pos) > 0:
		return usageErr("approve takes one NAME, or --all")
	case *all:
		return inv.approveAll(ctx, *project, *yes)
	case *project:
		return usageErr("--project goes with --all")
	case *yes:
		return usageErr("--yes goes with --all --project")
	}
	return inv.approval(ctx, pos, true)
}

// approveAll approves every enabled definition of one file that is not
// approved yet: the user's own (the home folder's .mcp.json), or with
// project the project's, printing the review of each on stderr, as
// `approve NAME` does. A disabled definition is left unapproved (removing
// "disabled" later must not run it unreviewed); revoked ones are left
// revoked (a revoke was a decision; approve one by name to undo it). With
// project, on a terminal and without yes, it asks once, after the
// reviews. It fails (exit 3) when any could not be approved, or the file
// could not be read.
func (inv *invocation) approveAll(ctx context.Context, project, yes bool) error {
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	ap, err := config.OpenApprovals(home)
	if err != nil {
		return inv.approvalsUnavailable("", home, err)
	}
	scope := config.ScopeUser
	if project {
		scope = config.ScopeProject
	}
	entries := []configResult{}
	failed := 0
	for _, f := range cfg.Files {
		if f.Scope == scope && f.Err != nil {
			entries = append(entries, configResult{Source: f.Path, Scope: scope, Result: "failed", Reason: safe.Sanitize(f.Err.Error()), Warnings: []string{}})
			failed++
		}
	}
	var pending []int // entries reviewed, to approve
	for _, s := range cfg.Servers {
		if s.Scope != scope {
			continue
		}
		e := configResult{Server: s.Name, Source: s.Source, Scope: s.Scope, Warnings: []string{}}
		switch st := ap.State(s); {
		case st == config.Approved && s.Enabled:
			e.Result = "already approved"
			switch repinned, err := inv.reviewSurface(ap, s); {
			case err != nil:
				e.Result, e.Reason = "failed", safe.Sanitize(err.Error())
				failed++
			case repinned:
				e.Result = "surface approved"
			}
		case st == config.Approved:
			e.Result = "already approved"
		case st == config.Revoked:
			e.Result, e.Reason = "skipped", "revoked; approve it by name to run it again: "+inv.suggest("approve", s.Name)
		case !s.Enabled:
			e.Result, e.Reason = "skipped", "disabled; enable it, then approve it by name: "+inv.suggest("approve", s.Name)
		case s.ImportedFrom != "" && !project:
			// A project's text in the user's file: not the user's own, so
			// never approved wholesale with it.
			e.Result, e.Reason = "skipped", "imported from a project's file ("+safe.Sanitize(s.ImportedFrom)+"); review it, then approve it by name: "+inv.suggest("approve", s.Name)
		default:
			def, err := config.ReviewJSON(s)
			if err == nil {
				err = inv.wouldRun(s)
			}
			if err != nil {
				e.Result, e.Reason = "failed", safe.Sanitize(err.Error())
				failed++
				break
			}
			inv.eprintf("approving %s from %s (%s scope):\n", safe.Sanitize(s.Name), safe.Sanitize(s.Source), s.Scope)
			inv.review(inv.eprintf, s, def, ap)
			pending = append(pending, len(entries))
		}
		entries = append(entries, e)
	}
	if len(pending) > 0 && project && !yes && inv.env.StdinIsTerminal {
		ok, err := inv.confirm(ctx, fmt.Sprintf("approve the %d definition(s) above, from %s? [y/N] ", len(pending), safe.Sanitize(entries[pending[0]].Source)))
		if err != nil {
			return err
		}
		if !ok {
			for _, i := range pending {
				entries[i].Result, entries[i].Reason = "skipped", "not confirmed"
			}
			failed += len(pending)
			pending = nil
		}
	}
	for _, i := range pending {
		e := &entries[i]
		s := cfg.Server(e.Server)
		if err := ap.ApproveContext(ctx, s); err != nil {
			e.Result, e.Reason = "failed", safe.Sanitize(err.Error())
			failed++
			continue
		}
		e.Result = "approved"
		e.Warnings = nonNil(inv.reviewWarnings(s))
	}
	inv.approveAllReport(cfg, entries, failed)
	return nil
}

// approveAllReport prints what approveAll did and sets the exit code.
func (inv *invocation) approveAllReport(cfg *config.Config, entries []configResult, failed int) {
	if inv.json {
		inv.writeJSON(configDoc{inv.header(failed == 0), entries})
	} else {
		for _, e := range entries {
			line := fmt.Sprintf("%s %s (%s)", e.Result, safe.Sanitize(e.Server), safe.Sanitize(e.Source))
			if e.Server == "" {
				line = fmt.Sprintf("%s %s", e.Result, safe.Sanitize(e.Source))
			}
			if e.Reason != "" {
				line += ": " + e.Reason
			}
			inv.printf("%s\n", line)
		}
		if len(entries) == 0 {
			inv.printf("no definitions to approve (looked in %s)\n", configPaths(cfg))
		}
	}
	if failed > 0 {
		inv.exit = ExitConfig
		if !inv.json {
			inv.say("error: %d definition(s) could not be approved\n", failed)
		}
	}
}

// confirm asks question once on stderr and reads the answer: yes or y
// (any case) is true; anything else, or the end of the input, false.
func (inv *invocation) confirm(ctx context.Context, question string) (bool, error) {
	in := inv.openPrompt()
	defer in.close()
	inv.eprintf("%s", question)
	line, _ := in.readLine(ctx)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

func runRevoke(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("revoke")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	return inv.approval(ctx, pos, false)
}

func (inv *invocation) approval(ctx context.Context, args []string, approve bool) error {
	s, home, err := inv.findServer(args) // runApprove and runRevoke parsed the flags
	if err != nil {
		return err
	}
	ap, err := config.OpenApprovals(home)
	if err != nil {
		f := inv.approvalsUnavailable(s.Name, home, err)
		f.hints = append(f.hints, inv.prog+" never rewrites a file that is not valid JSON")
		return f
	}
	if !approve {
		if err := ap.RevokeContext(ctx, s); err != nil {
			return &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseApproval, err: err}
		}
		if inv.json {
			inv.writeJSON(configDoc{inv.header(true), []configResult{{Server: s.Name, Source: s.Source, Scope: s.Scope, Result: "revoked", Warnings: []string{}}}})
			return nil
		}
		inv.printf("revoked %s (%s)\n", s.Name, s.Source)
		return nil
	}
	if ap.State(s) == config.Approved {
		// The definition is approved: what is left to review is the
		// tool surface, when it changed since.
		repinned, err := inv.reviewSurface(ap, s)
		var pe *config.PinError
		if errors.As(err, &pe) && pe.Path != "" {
			// A pin file that cannot be read or trusted holds the tools
			// for good: approving again sets it aside, and the next
			// connection pins what the server serves then.
			aside, aerr := ap.SetAsidePin(s)
			if aerr == nil {
				inv.eprintf("%v: set aside as %s; the next connection pins the surface anew\n", err, aside)
				return inv.approved(s, "surface approved", "approved %s: its surface is pinned at the next connection\n")
			}
			err = aerr
		}
		if err != nil {
			return &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseApproval, err: err,
				hints: []string{"connect it again (" + inv.suggest("test", s.Name) + "), then approve it again"}}
		}
		if repinned {
			return inv.approved(s, "surface approved", "approved the tool surface of %s as shown\n")
		}
	}
	def, err := config.ReviewJSON(s)
	if err != nil {
		return &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseApproval, err: err}
	}
	inv.eprintf("approving %s from %s (%s scope):\n", safe.Sanitize(s.Name), safe.Sanitize(s.Source), s.Scope)
	inv.review(inv.eprintf, s, def, ap)
	if err := inv.wouldRun(s); err != nil {
		return &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseApproval, err: err,
			hints: []string{"the approval was left as it was (" + ap.State(s).String() + "); set the variable, or fix the definition, and approve again"}}
	}
	if err := ap.ApproveContext(ctx, s); err != nil {
		f := &failure{code: ExitConfig, server: s.Name, phase: manager.PhaseApproval, err: err}
		var se *config.StaleError
		if errors.As(err, &se) {
			f.hints = []string{"the file changed while " + inv.prog + " read it; review it again with: " + inv.suggest("get", s.Name)}
		}
		return f
	}
	return inv.approved(s, "approved", "approved %s\n")
}

// approved reports an approval: result in --json, else line (with the
// server's name).
func (inv *invocation) approved(s *config.Server, result, line string) error {
	if inv.json {
		inv.writeJSON(configDoc{inv.header(true), []configResult{{Server: s.Name, Source: s.Source, Scope: s.Scope, Result: result, Warnings: nonNil(inv.reviewWarnings(s))}}})
		return nil
	}
	inv.printf(line, safe.Sanitize(s.Name))
	return nil
}

// wouldRun expands s as it would start (Load expanded an enabled one; a
// disabled one is expanded here) and returns why it would not run: an
// unset variable, a URL that breaks the rules once expanded. approve
// refuses such a definition, leaving its approval as it was.
func (inv *invocation) wouldRun(s *config.Server) error {
	var xe *config.ExpandError
	switch {
	case errors.As(s.Err, &xe):
		return fmt.Errorf("it would not run: %w", s.Err)
	case s.Err != nil || s.Expanded != nil:
		return nil // an invalid definition: Approve says why
	}
	lookup := inv.env.LookupEnv
	if lookup == nil {
		lookup = config.LookupFromGetenv(inv.env.Getenv)
	}
	if _, err := s.ExpandLookup(lookup); err != nil {
		return fmt.Errorf("it would not run: %w", err)
	}
	return nil
}

// parentConfigHint names the nearest .mcp.json of a folder above the
// working one, which is not read (only the working folder's is): a
// person who ran the command from a subfolder of the project meets it.
// "" when there is none.
func (inv *invocation) parentConfigHint() string {
	dir := inv.env.Dir
	if dir == "" {
		return ""
	}
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
		p := filepath.Join(dir, config.FileName)
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			if home, err := config.Home(inv.env.Getenv); err == nil && filepath.Join(home, config.FileName) == p {
				continue // the home folder's, read already
			}
			if inv.env.Home != "" && filepath.Join(inv.env.Home, config.FileName) == p {
				continue
			}
			return safe.Sanitize(p) + " (a parent folder's) is not read: only the working folder's " + config.FileName + " is; run " + inv.prog + " from " + safe.Sanitize(dir)
		}
	}
}
