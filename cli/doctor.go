package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// doctorReport is one server's diagnosis in `mcpwire doctor --json`.
type doctorReport struct {
	Server    string        `json:"server"`
	Transport string        `json:"transport"`
	Target    string        `json:"target"`
	OK        bool          `json:"ok"`
	Checks    []doctorCheck `json:"checks"`
}

// doctorCheck is one phase of a diagnosis.
type doctorCheck struct {
	_ [0]func() // not comparable: no equality function in the binary

	Phase  string `json:"phase"`
	Status string `json:"status"` // ok, warn, fail, skip
	Detail string `json:"detail"`
	Hint   string `json:"hint"` // what to do; "" when nothing
	took   time.Duration
}

// doctorDoc is `mcpwire doctor --json`.
type doctorDoc struct {
	docHeader
	Servers []*doctorReport `json:"servers"`
	// Sandbox says what this machine can enforce of a server's sandbox.
	Sandbox string `json:"sandbox"`
}

// exitCode is what a server's diagnosis means as an exit code: 3 when its
// definition or approval is the problem, 4 when a login is needed or
// failed, 1 when the server itself failed, 0 when all is well.
func (r *doctorReport) exitCode() int {
	code := ExitOK
	for _, c := range r.Checks {
		if c.Status != manager.CheckFail {
			continue
		}
		switch c.Phase {
		case "definition":
			return ExitConfig // nothing else could run
		case "login", "oauth", manager.PhaseAuth:
			code = ExitAuth
		default:
			if code == ExitOK {
				code = ExitServer
			}
		}
	}
	return code
}

// worseExit combines the exit codes of several servers: a failed server
// (1) over a needed login (4) over a configuration problem (3).
func worseExit(a, b int) int {
	rank := map[int]int{ExitOK: 0, ExitConfig: 1, ExitAuth: 2, ExitServer: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

func runDoctor(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("doctor")
	var tf targetFlags
	tf.register(fs)
	inv.junitFlag(fs)
	failOn := "fail"
	fs.StringVar(&failOn, "fail-on", "fail", "exit 1 on a check that is `fail|warn` or worse (warn: a warning fails the job too)")
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if failOn != "fail" && failOn != "warn" {
		return usageErr("--fail-on takes fail or warn, not %q", failOn)
	}
	inv.json = tf.json
	var reports []*doctorReport
	if len(pos) == 0 && !hasTail && tf.demo.mode == "" {
		reports, err = inv.doctorAll(ctx, &tf)
	} else {
		var r *doctorReport
		r, err = inv.doctorOne(ctx, &tf, pos, tail, hasTail)
		reports = []*doctorReport{r}
	}
	if err != nil {
		return err
	}
	allOK := true
	warnings := 0
	for _, r := range reports {
		allOK = allOK && r.OK
		inv.exit = worseExit(inv.exit, r.exitCode())
		for _, c := range r.Checks {
			if c.Status == manager.CheckWarn {
				warnings++
			}
		}
	}
	if failOn == "warn" && warnings > 0 {
		allOK = false
		inv.exit = worseExit(inv.exit, ExitServer)
		defer inv.say("error: --fail-on warn: %s\n", plural(warnings, "warning"))
	}
	if inv.junit != nil {
		inv.doctorJUnit(reports, failOn == "warn")
	}
	if inv.json {
		inv.writeJSON(doctorDoc{inv.header(allOK), reports, manager.SandboxSupport()})
		return nil
	}
	for i, r := range reports {
		if i > 0 {
			inv.printf("\n")
		}
		inv.printDoctor(r)
	}
	inv.printf("\nsandbox: %s\n", manager.SandboxSupport())
	return nil
}

// doctorOne diagnoses one TARGET, configured or ad hoc.
func (inv *invocation) doctorOne(ctx context.Context, tf *targetFlags, pos, tail []string, hasTail bool) (*doctorReport, error) {
	if len(pos) > 0 && !hasTail && tf.demo.mode == "" && !isURL(pos[0]) {
		cfg, home, err := inv.loadConfig()
		if err != nil {
			return nil, err
		}
		s, err := inv.lookup(cfg, pos[0])
		if err != nil {
			return nil, err
		}
		return inv.doctorConfigured(ctx, tf, home, s, true), nil
	}
	t, rest, err := inv.resolveTarget(ctx, tf, pos, tail, hasTail)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	if len(rest) > 0 {
		return nil, usageErr("doctor takes one TARGET")
	}
	home, _ := config.Home(inv.env.Getenv)
	if inv.env.Home != "" {
		home = inv.env.Home
	}
	return inv.diagnose(ctx, tf, t.spec, nil, home, nil, true), nil
}

// doctorAll diagnoses every configured server, in parallel, under one
// spinner that says how many are done; in a pipe (a CI log, stderr not a
// terminal) each server's line goes to stderr as it finishes, before the
// reports at the end.
func (inv *invocation) doctorAll(ctx context.Context, tf *targetFlags) ([]*doctorReport, error) {
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return nil, err
	}
	if len(cfg.Servers) == 0 {
		return nil, fail(ExitConfig, manager.PhaseConfig, fmt.Errorf("no servers configured in %s", configPaths(cfg)), "give a TARGET, or add a server: "+inv.suggest("add")+" NAME -- COMMAND ARGS…")
	}
	n := len(cfg.Servers)
	out := make([]*doctorReport, n)
	finished := make(chan int, n)
	stop := inv.spinner(fmt.Sprintf("checking %d servers", n))
	defer stop()
	var wg sync.WaitGroup
	for i, s := range cfg.Servers {
		wg.Go(func() {
			out[i] = inv.doctorConfigured(ctx, tf, home, s, false)
			finished <- i
		})
	}
	pipe := !inv.json && !inv.env.StderrIsTerminal
	for done := 1; done <= n; done++ {
		r := out[<-finished]
		inv.progress.Store(fmt.Sprintf("%d of %d done", done, n))
		if pipe {
			inv.say("%s\n", r.line())
		}
	}
	wg.Wait()
	stop()
	inv.progress.Store("")
	return out, nil
}

// line is a report in one line, for a CI log: the server and ok, or the
// first failed (else warned) check with its detail.
func (r *doctorReport) line() string {
	name := safe.Sanitize(r.Server)
	for _, status := range []string{manager.CheckFail, manager.CheckWarn} {
		for _, c := range r.Checks {
			if c.Status == status {
				return fmt.Sprintf("%s: %s: %s: %s", name, status, c.Phase, oneLine(c.Detail, 200))
			}
		}
	}
	return name + ": ok"
}

// doctorConfigured checks the definition (valid, approved, variables
// set) and, when it can run, the server; spin: under a spinner of its
// own.
func (inv *invocation) doctorConfigured(ctx context.Context, tf *targetFlags, home string, s *config.Server, spin bool) *doctorReport {
	def := &manager.Check{Status: manager.CheckOK, Detail: fmt.Sprintf("%s:%d (%s scope)", s.Source, s.Line, s.Scope)}
	var ee *config.ExpandError
	switch {
	case errors.As(s.Err, &ee):
		def.Status, def.Detail, def.Hint = manager.CheckFail, ee.Error(), "set the variable, or give a default: ${VAR:-default}"
	case s.Err != nil:
		def.Status, def.Detail, def.Hint = manager.CheckFail, s.Err.Error(), "fix the definition in "+s.Source
	case !s.Enabled:
		def.Status, def.Detail, def.Hint = manager.CheckFail, "disabled", "enable it with: "+inv.suggest("enable", s.Name)
	default:
		ap, err := config.OpenApprovals(home)
		if st := ap.State(s); err != nil {
			f := inv.approvalsUnavailable(s.Name, home, err)
			def.Status, def.Detail, def.Hint = manager.CheckFail, f.err.Error(), f.hints[0]
		} else if st != config.Approved {
			def.Status, def.Detail, def.Hint = manager.CheckFail, "not approved ("+st.String()+")", "review it ("+inv.suggest("get", s.Name)+"), then: "+inv.suggest("approve", s.Name)
		}
	}
	if short := s.ShortSecrets(); len(short) > 0 && def.Status == manager.CheckOK {
		def.Status = manager.CheckWarn
		def.Detail += "; " + strings.Join(short, ", ") + fmt.Sprintf(" shorter than %d characters: %s cannot mask it in output", safe.MinSecretLen, inv.prog)
		def.Hint = "use a longer value, or a ${VAR} reference"
	}
	spec := &manager.Spec{Name: s.Name, Transport: s.Type, Command: s.Command, Args: s.Args, URL: s.URL}
	if def.Status == manager.CheckOK || def.Status == manager.CheckWarn {
		if sp, err := manager.SpecFromConfig(s); err == nil {
			spec, err = inv.sandboxed(sp, s, home)
			if err != nil { // a default's sandbox path: never run it looser
				def.Status, def.Detail, def.Hint = manager.CheckFail, err.Error(), "set the variable, or give a default: ${VAR:-default}"
			}
		}
	}
	return inv.diagnose(ctx, tf, spec, def, home, s, spin)
}

// sandboxed is spec in the sandbox that s runs in under the home's
// defaults, as every command that runs it: doctor must not run a
// sandboxed server unconfined. A defaults object that cannot be read
// stands for the strictest sandbox (config.Approvals.Defaults).
func (inv *invocation) sandboxed(spec *manager.Spec, s *config.Server, home string) (*manager.Spec, error) {
	var d config.Defaults
	if ap, err := config.OpenApprovals(home); err == nil {
		d, _ = ap.Defaults()
	}
	return manager.WithSandbox(spec, s, d, inv.env.Environ())
}

// diagnose runs the checks of one server within the startup budget;
// spin: under a spinner of its own.
func (inv *invocation) diagnose(ctx context.Context, tf *targetFlags, spec *manager.Spec, def *manager.Check, home string, s *config.Server, spin bool) *doctorReport {
	if spec.AllowHTTP {
		inv.warnPlainHTTP(spec.Name, spec.URL)
	}
	for _, v := range spec.Env {
		inv.addSecrets(v)
	}
	for _, v := range spec.Header {
		inv.addSecrets(v)
	}
	dctx, cancel := context.WithTimeout(ctx, cmp.Or(tf.startup, manager.DefaultStartup))
	defer cancel()
	opts := &manager.DoctorOptions{Definition: def, Dial: manager.DialOptions{Environ: inv.env.Environ()}, Server: s,
		LoginCommand: inv.suggest("login", loginWords(spec, def != nil))}
	if h := openHome(home); h != nil {
		// A logged-in server is checked with its token (never shown).
		opts.Home = h
		inv.tokenSecrets(h, spec.Name)
	}
	stop := func() {}
	if spin {
		stop = inv.spinner("checking " + spec.Name)
	}
	checks := manager.Doctor(dctx, spec, opts)
	stop()
	r := &doctorReport{Server: spec.Name, Transport: spec.Transport, Target: spec.Target(), OK: true, Checks: []doctorCheck{}}
	for _, c := range checks {
		r.Checks = append(r.Checks, doctorCheck{Phase: c.Phase, Status: c.Status, Detail: c.Detail, Hint: c.Hint, took: c.Took})
	}
	for _, c := range checks {
		if c.Status == manager.CheckFail {
			r.OK = false
		}
	}
	return r
}

func (inv *invocation) printDoctor(r *doctorReport) {
	inv.printf("%s %s\n", inv.bold(safe.Sanitize(r.Server)), inv.dim(r.Transport+" "+safe.Sanitize(r.Target)))
	for _, c := range r.Checks {
		mark := map[string]string{manager.CheckOK: inv.green("✓"), manager.CheckWarn: inv.paint("33", "!"), manager.CheckFail: inv.red("✗"), manager.CheckSkip: inv.dim("-")}[c.Status]
		inv.printf("  %s %-11s %s\n", mark, c.Phase, oneLine(c.Detail, 200))
		if c.Hint != "" {
			inv.printf("    %s %s\n", inv.dim("hint:"), oneLine(c.Hint, 200))
		}
	}
}

func isURL(s string) bool {
	return len(s) > 7 && (s[:7] == "http://" || (len(s) > 8 && s[:8] == "https://"))
}
