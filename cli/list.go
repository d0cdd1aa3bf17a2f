package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// listEntry is one server of `mcpwire list --json`.
type listEntry struct {
	_ [0]func() // not comparable: no equality function in the binary

	Server    string `json:"server"`
	Source    string `json:"source"`
	Scope     string `json:"scope"`
	Transport string `json:"transport"` // stdio, http or sse (also when an http server fell back to HTTP+SSE)
	Target    string `json:"target"`
	Enabled   bool   `json:"enabled"`
	Approval  string `json:"approval"`
	// Auth is the login state: none (stdio), not needed, needed,
	// authenticated, refreshable, expired, rejected, invalid or not
	// authenticated.
	Auth      string     `json:"auth"`
	State     string     `json:"state"`
	Protocol  string     `json:"protocol"`  // the revision spoken; "" unless connected
	Era       string     `json:"era"`       // modern or legacy; "" unless connected
	ToolCount int        `json:"toolCount"` // 0 unless connected (or cached)
	Error     *jsonError `json:"error,omitempty"`
	// Surface is how a connected server's tools compare with the
	// surface pinned at its approval.
	Surface *surfaceJSON `json:"surface,omitempty"`
	// Sandbox is how a stdio server runs contained (null: unconfined).
	Sandbox *sandboxJSON `json:"sandbox"`
	// Cached, with --cached or --offline, says the entry comes from the
	// home's list cache, and how old it is.
	Cached *cachedInfo `json:"cached,omitempty"`
	// took is how long the connection took to start, for JUnit.
	took time.Duration
}

// cachedInfo is how old a list cache entry is.
type cachedInfo struct {
	_ [0]func() // not comparable: no equality function in the binary

	SavedAt string `json:"savedAt"` // RFC 3339
	AgeMs   int64  `json:"ageMs"`
}

// listDoc is `mcpwire list --json`.
type listDoc struct {
	docHeader
	Servers []listEntry `json:"servers"`
	// Failed, NeedApproval and NeedLogin count the enabled servers that
	// failed (to start, or whose definition is wrong), that are not
	// approved and that need a login: list --strict exits 1, 3 or 4 on
	// them, in that order.
	Failed       int      `json:"failed"`
	NeedApproval int      `json:"needApproval"`
	NeedLogin    int      `json:"needLogin"`
	Warnings     []string `json:"warnings"`
}

func runList(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("list")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document")
	var noConnect, strict bool
	fs.BoolVar(&strict, "strict", false, "exit 1 when an enabled server failed, else 3 when one is not approved, else 4 when one needs a login (default: exit 0 when list ran)")
	fs.BoolVar(&noConnect, "no-connect", false, "do not connect; show the configuration only")
	var cached, offline bool
	fs.BoolVar(&cached, "cached", false, "answer from the home's list cache where it has the server (with its age); connect only the others")
	fs.BoolVar(&offline, "offline", false, "never connect: the list cache's entries, and nothing for the servers it lacks")
	startup := fs.Duration("startup-timeout", manager.DefaultStartup, "bound each server's start")
	noSession := fs.Bool("no-session", false, "start every server, even those a session (connect) keeps")
	record := fs.String("record", "", "record every message of every server's session to `FILE` (JSON Lines, secrets redacted, 0600), for mcpwire replay --server NAME")
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
	pin, err := inv.protocolPin()
	if err != nil {
		return err
	}
	h, err := manager.OpenHome(home)
	if err != nil {
		return fail(ExitConfig, manager.PhaseConfig, err)
	}
	progress := inv.newListProgress(len(cfg.Servers))
	defer progress.stop()
	onChange, onNotice := progress.options()
	mopts := manager.Options{Config: cfg, Home: h, Environ: inv.env.Environ(), StartupTimeout: *startup,
		NeedsLogin: inv.needsLogin(h), OnChange: onChange, OnNotice: onNotice,
		ReapOrphans: inv.env.ReapOrphans, Hurry: inv.env.Hurry, ProtocolVersion: pin}
	if *record != "" {
		mopts.Record = inv.recordTo(*record) // sessions of its own: a connect session's messages are not ours to see
	} else if !*noSession {
		mopts.Via = inv.managerVia(home, *startup)
	}
	m, err := manager.New(mopts)
	if err != nil {
		return err
	}
	progress.use(m)
	inv.atExit(func() { m.Close() }) // after the output
	var fromCache []*manager.CachedList
	base := map[string]manager.ServerState{}
	if cached || offline {
		// Nothing has started: the cache answers for the servers it has;
		// with --cached a Manager of the others only connects them.
		fromCache = m.CachedLists()
		for _, st := range m.States() {
			if st.State != manager.StateIdle {
				base[st.Name] = st // disabled, not approved, a wrong definition
			}
		}
		rest := *cfg
		rest.Servers = nil
		for i, s := range cfg.Servers {
			if fromCache[i] == nil && !offline {
				rest.Servers = append(rest.Servers, s)
			}
		}
		mopts.Config = &rest
		other, err := manager.New(mopts)
		if err != nil {
			return err
		}
		m.Close()
		m = other
		progress.use(other)
		inv.atExit(func() { other.Close() })
		noConnect = noConnect || len(rest.Servers) == 0
	}
	if !noConnect {
		for _, s := range cfg.Servers {
			if s.AllowHTTP && s.Enabled && s.Expanded != nil {
				inv.warnPlainHTTP(s.Name, s.Expanded.URL)
			}
		}
		stop := inv.spinner(fmt.Sprintf("connecting to %d servers", len(cfg.Servers)))
		_ = m.Wait(ctx)
		stop()
		progress.finish(m.States()) // those whose callback is still on its way
	}
	approvals, _ := h.Approvals()
	var defaults config.Defaults
	if approvals != nil {
		defaults, _ = approvals.Defaults() // its error is the Manager's warning
	}
	states := map[string]manager.ServerState{}
	for _, st := range m.States() {
		states[st.Name] = st
	}
	entries := make([]listEntry, len(cfg.Servers))
	doc := &listDoc{Warnings: nonNil(cfg.Warnings)}
	now := time.Now()
	for i, s := range cfg.Servers {
		e := listEntry{Server: s.Name, Source: s.Source, Scope: s.Scope, Transport: s.Type, Target: s.Target(),
			Enabled: s.Enabled, Approval: approvals.State(s).String(), Sandbox: inv.sandboxOf(s, defaults)}
		auth := inv.authState(h, s)
		st, ok := states[s.Name]
		switch {
		case fromCache != nil && fromCache[i] != nil:
			c := fromCache[i]
			st = manager.ServerState{Name: s.Name, State: stateCached, ProtocolVersion: c.Protocol, Era: c.Era, Tools: len(c.Tools)}
			e.Cached = &cachedInfo{SavedAt: c.Saved.UTC().Format(time.RFC3339), AgeMs: max(now.Sub(c.Saved).Milliseconds(), 0)}
		case !ok && base[s.Name].State != "":
			st = base[s.Name]
		case !ok:
			st = manager.ServerState{Name: s.Name, State: stateNotCached}
		}
		e.State = string(st.State)
		switch {
		case auth == manager.AuthNotApplicable:
			e.Auth = "none"
		case st.State == manager.StateNeedsLogin && auth == manager.AuthNotNeeded:
			e.Auth = "needed" // the server said so (401), whatever the token file says
		case st.State == manager.StateNeedsLogin && auth.Usable():
			e.Auth = "rejected"
		default:
			e.Auth = auth.String()
		}
		if st.State == manager.StateConnected || st.State == stateCached {
			e.Protocol, e.Era, e.ToolCount = st.ProtocolVersion, string(st.Era), st.Tools
			e.took = st.Startup
			if c := st.Surface; c != nil {
				e.Surface = newSurfaceJSON(c, append(slices.Clone(c.Changed), c.Added...))
				e.ToolCount -= len(e.Surface.Quarantined)
			}
			if st.Transport != "" {
				e.Transport = st.Transport
			}
		}
		if st.Err != nil && st.State != manager.StateConnected {
			e.Error = &jsonError{Server: s.Name, Phase: st.Phase, Code: stateCode(st.State, st.Phase, st.Err), Message: safe.Sanitize(st.Err.Error()), Hints: []string{}}
			if st.State == manager.StateNeedsLogin {
				e.Error.Hints = append(e.Error.Hints, "log in: "+inv.suggest("login", s.Name))
			}
		}
		switch {
		case !s.Enabled || noConnect && !offline || st.State == stateCached || st.State == stateNotCached:
		case st.State == manager.StateNeedsLogin:
			doc.NeedLogin++
		case st.State == manager.StateNeedsApproval && s.Err == nil:
			doc.NeedApproval++
		case st.State == manager.StateFailed || st.State == manager.StateNeedsApproval || s.Err != nil:
			doc.Failed++
		}
		entries[i] = e
	}
	doc.Servers = entries
	if strict {
		switch {
		case doc.Failed > 0:
			inv.exit = ExitServer
		case doc.NeedApproval > 0:
			inv.exit = ExitConfig
		case doc.NeedLogin > 0:
			inv.exit = ExitAuth
		}
	}
	doc.docHeader = inv.header(inv.exit == ExitOK)
	if inv.junit != nil {
		inv.listJUnit(entries)
	}
	defer inv.listFailures(cfg.Servers, entries, noConnect && !offline, progress)
	if inv.json {
		inv.writeJSON(doc)
		return nil
	}
	if len(entries) == 0 {
		inv.printf("no servers configured (looked in %s)\n", configPaths(cfg))
		inv.printf("add one: %[1]s NAME -- COMMAND ARGS…   or   %[1]s NAME --url URL\n", inv.suggest("add"))
		if h := inv.parentConfigHint(); h != "" {
			inv.say("hint: %s\n", h)
		}
		return nil
	}
	rows := [][]string{{"NAME", "SCOPE", "TRANSPORT", "TARGET", "APPROVAL", "AUTH", "STATUS"}}
	connected, fromCacheN := 0, 0
	for _, e := range entries {
		status := e.State
		switch {
		case e.State == string(manager.StateConnected):
			connected++
			status = inv.green("✓") + " " + safe.Sanitize(e.Protocol) + " (" + e.Era + "), " + plural(e.ToolCount, "tool")
			if sj := e.Surface; sj != nil && (len(sj.Quarantined) > 0 || sj.Error != "" || sj.InstructionsChanged || len(sj.Changed) > 0) {
				status += ", " + inv.red("surface changed since approval: "+cellText(surfaceLine(sj)))
			}
		case e.Cached != nil:
			fromCacheN++
			status = "cached " + age(time.Duration(e.Cached.AgeMs)*time.Millisecond) + " ago: " + safe.Sanitize(e.Protocol) + " (" + e.Era + "), " + plural(e.ToolCount, "tool")
		case e.Error != nil:
			status = inv.red("✗") + " " + e.Error.Phase + ": " + cellText(e.Error.Message)
		}
		auth := e.Auth
		if auth == "none" {
			auth = "-"
		}
		transport := e.Transport
		if e.Sandbox != nil {
			transport += " sandboxed"
		}
		rows = append(rows, []string{safe.Sanitize(e.Server), e.Scope, transport, cellText(e.Target), e.Approval, auth, status})
	}
	inv.table(rows)
	summary := plural(len(entries), "server")
	switch {
	case offline:
		summary += fmt.Sprintf(": %d from the list cache (not connected: --offline)", fromCacheN)
	case noConnect && !cached:
		summary += " (not connected: --no-connect)"
	default:
		parts := []string{fmt.Sprintf("%d connected", connected)}
		if cached {
			parts = append(parts, fmt.Sprintf("%d from the list cache", fromCacheN))
		}
		if doc.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%d failed", doc.Failed))
		}
		if doc.NeedApproval > 0 {
			verb := "need"
			if doc.NeedApproval == 1 {
				verb = "needs"
			}
			parts = append(parts, fmt.Sprintf("%d %s approval", doc.NeedApproval, verb))
		}
		if doc.NeedLogin > 0 {
			verb := "need"
			if doc.NeedLogin == 1 {
				verb = "needs"
			}
			parts = append(parts, fmt.Sprintf("%d %s a login", doc.NeedLogin, verb))
		}
		summary += ": " + strings.Join(parts, ", ")
		if (doc.Failed > 0 || doc.NeedApproval > 0 || doc.NeedLogin > 0) && !strict {
			summary += " (" + inv.suggest("list", "--strict") + " exits non-zero on them)"
		}
	}
	inv.printf("%s\n", summary)
	return nil
}

// listFailures writes each enabled server's failure on stderr too, one
// "error:" line each (magi-code's rule: a caller that keeps only stderr,
// or only looks at it, still sees what failed), after the table or the
// document.
func (inv *invocation) listFailures(defs []*config.Server, entries []listEntry, noConnect bool, progress *listProgress) {
	for i, e := range entries {
		if e.Error == nil || !defs[i].Enabled || noConnect && defs[i].Err == nil || progress.saidError(e.Server) {
			continue
		}
		inv.say("error: %s: %s: %s\n", safe.Sanitize(e.Server), e.Error.Phase, cellText(e.Error.Message))
	}
}

// The states list gives servers answered from the list cache, and those
// --offline has nothing for.
const (
	stateCached    manager.State = "cached"
	stateNotCached manager.State = "not cached"
)

// age says how long d is, for people: 45s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// cellText is a value for a table cell: one line, sanitized, cut only
// when absurdly long (the table fits it to a terminal).
func cellText(s string) string { return oneLine(s, 500) }
