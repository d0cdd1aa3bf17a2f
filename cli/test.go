package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// testReport is `mcpwire test --json`.
type testReport struct {
	docHeader
	Server            string                       `json:"server"`
	Transport         string                       `json:"transport"` // stdio, http, or sse (HTTP+SSE, asked for or fallen back to)
	Target            string                       `json:"target"`
	ServerInfo        protocol.Implementation      `json:"serverInfo"`
	Protocol          string                       `json:"protocol"` // the revision spoken
	Era               string                       `json:"era"`      // "modern" or "legacy"
	Capabilities      protocol.ServerCapabilities  `json:"capabilities"`
	Instructions      string                       `json:"instructions"`
	Tools             []*protocol.Tool             `json:"tools"`
	Resources         []*protocol.Resource         `json:"resources"`
	ResourceTemplates []*protocol.ResourceTemplate `json:"resourceTemplates"`
	Prompts           []*protocol.Prompt           `json:"prompts"`
	Warnings          []string                     `json:"warnings"`
	Timing            map[string]int64             `json:"timingMs"`
	// UIResources are the ui:// resources the tools declare (MCP Apps),
	// by tool name.
	UIResources map[string]string `json:"uiResources"`
	// Surface is how a configured server's tools compare with the
	// surface pinned at its approval.
	Surface *surfaceJSON `json:"surface,omitempty"`
	// Sandbox is how a stdio server runs contained (null: unconfined).
	Sandbox *sandboxJSON `json:"sandbox"`
	// took is how long each list took, by method, for JUnit.
	took map[string]time.Duration
}

func runTest(ctx context.Context, inv *invocation, args []string) error {
	r, err := inv.openSession(ctx, "test", args, inv.junitFlag, noMoreArgs)
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	t, conn := r.t, r.conn

	init := conn.Init()
	rep := &testReport{
		docHeader: inv.header(true), Server: t.spec.Name, Transport: conn.Transport(), Target: t.spec.Target(),
		ServerInfo: init.ServerInfo, Protocol: conn.ProtocolVersion(), Era: string(conn.Era()), Capabilities: init.Capabilities,
		Instructions: init.Instructions, Tools: []*protocol.Tool{},
		Timing: map[string]int64{"spawn": conn.Spawn.Milliseconds(), "initialize": conn.Initialize.Milliseconds()},
	}
	start := time.Now()
	stop := inv.spinner("listing")
	err = inv.listAll(ctx, conn, rep)
	stop()
	rep.Timing["list"] = time.Since(start).Milliseconds()
	if err != nil {
		return inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
	}
	rep.Resources, rep.ResourceTemplates = nonNil(rep.Resources), nonNil(rep.ResourceTemplates)
	rep.Prompts, rep.Warnings = nonNil(rep.Prompts), nonNil(rep.Warnings)
	rep.UIResources = map[string]string{}
	for _, tool := range rep.Tools {
		if ui := tool.UIResource(); ui != "" {
			rep.UIResources[tool.Name] = ui
		}
	}
	rep.Surface = newSurfaceJSON(t.surface, t.listed)
	rep.Sandbox = newSandboxJSON(t.spec)
	if inv.junit != nil {
		inv.testJUnit(rep)
	}
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printTest(rep)
	return nil
}

// listAll lists tools, and resources, templates and prompts when the
// server offers them. A failure of the optional lists is a warning.
func (inv *invocation) listAll(ctx context.Context, conn *manager.Conn, rep *testReport) error {
	caps := conn.Init().Capabilities
	if rep.took == nil {
		rep.took = map[string]time.Duration{}
	}
	start := time.Now()
	lap := func(method string) {
		rep.took[method] = time.Since(start)
		start = time.Now()
	}
	if caps.Tools != nil {
		tools, err := conn.ListTools(ctx)
		lap("tools/list")
		if err != nil {
			return err
		}
		rep.Tools = tools
	}
	optional := func(what string, err error) {
		var ce *protocol.CapabilityError
		if err != nil && !errors.As(err, &ce) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %v", what, err))
		}
	}
	if caps.Resources != nil {
		var err error
		rep.Resources, err = conn.ListResources(ctx)
		lap("resources/list")
		optional("resources/list", err)
		rep.ResourceTemplates, err = conn.ListResourceTemplates(ctx)
		lap("resources/templates/list")
		optional("resources/templates/list", err)
	}
	if caps.Prompts != nil {
		var err error
		rep.Prompts, err = conn.ListPrompts(ctx)
		lap("prompts/list")
		optional("prompts/list", err)
	}
	return nil
}

func (inv *invocation) printTest(rep *testReport) {
	info := rep.ServerInfo
	name := safe.Sanitize(info.Name)
	if info.Title != "" && info.Title != info.Name {
		name += " (" + safe.Sanitize(info.Title) + ")"
	}
	inv.printf("%s %s %s\n", inv.green("✓"), inv.bold(safe.Sanitize(rep.Server)), inv.dim(rep.Transport+" "+safe.Sanitize(rep.Target)))
	rows := [][]string{
		{"server", name + " " + safe.Sanitize(info.Version)},
		{"protocol", rep.Protocol + " (" + rep.Era + " era)"},
		{"capabilities", strings.Join(rep.Capabilities.Names(), ", ")},
	}
	if rep.Sandbox != nil {
		rows = append(rows, []string{"sandbox", sandboxLine(rep.Sandbox)})
	}
	for _, r := range rows {
		inv.printf("  %-13s %s\n", r[0]+":", r[1])
	}
	if rep.Instructions != "" {
		inv.printf("  instructions (from the server, not from %s):\n", inv.prog)
		for _, line := range strings.Split(strings.TrimRight(safe.SanitizeText(rep.Instructions), "\n"), "\n") {
			inv.printf("    | %s\n", line)
		}
	}
	inv.printf("\n%s (%d)\n", inv.bold("Tools"), len(rep.Tools))
	if len(rep.Tools) > 0 {
		table := [][]string{{"NAME", "TITLE", "DESCRIPTION"}}
		for _, t := range rep.Tools {
			title := ""
			if d := t.DisplayName(); d != t.Name {
				title = d
			}
			name := safe.Sanitize(t.Name)
			if rep.Surface != nil && slices.Contains(rep.Surface.Quarantined, t.Name) {
				name += " " + inv.red("(quarantined)")
			}
			if ui := t.UIResource(); ui != "" {
				name += " " + inv.dim("(ui: "+safe.Sanitize(ui)+")")
			}
			table = append(table, []string{name, cellText(title), cellText(t.Description)})
		}
		inv.tableIndented(table)
	}
	if s := rep.Surface; s != nil {
		inv.printf("  %-13s %s\n", "surface:", surfaceLine(s))
	}
	if len(rep.Resources) > 0 {
		inv.printf("\n%s (%d)\n", inv.bold("Resources"), len(rep.Resources))
		table := [][]string{{"URI", "NAME", "TYPE"}}
		for _, r := range rep.Resources {
			table = append(table, []string{safe.Sanitize(r.URI), cellText(r.Name), safe.Sanitize(r.MimeType)})
		}
		inv.tableIndented(table)
	}
	if len(rep.ResourceTemplates) > 0 {
		inv.printf("\n%s (%d)\n", inv.bold("Resource templates"), len(rep.ResourceTemplates))
		table := [][]string{{"TEMPLATE", "NAME", "DESCRIPTION"}}
		for _, r := range rep.ResourceTemplates {
			table = append(table, []string{safe.Sanitize(r.URITemplate), cellText(r.Name), cellText(r.Description)})
		}
		inv.tableIndented(table)
	}
	if len(rep.Prompts) > 0 {
		inv.printf("\n%s (%d)\n", inv.bold("Prompts"), len(rep.Prompts))
		table := [][]string{{"NAME", "ARGUMENTS", "DESCRIPTION"}}
		for _, p := range rep.Prompts {
			var as []string
			for _, a := range p.Arguments {
				n := safe.Sanitize(a.Name)
				if !a.Required {
					n += "?"
				}
				as = append(as, n)
			}
			table = append(table, []string{safe.Sanitize(p.Name), strings.Join(as, " "), cellText(p.Description)})
		}
		inv.tableIndented(table)
	}
	for _, w := range rep.Warnings {
		inv.say("warning: %s\n", safe.Sanitize(w))
	}
	inv.printf("\n%s\n", inv.dim(fmt.Sprintf("spawn %d ms, initialize %d ms, list %d ms", rep.Timing["spawn"], rep.Timing["initialize"], rep.Timing["list"])))
}

// tableIndented prints a table two spaces in.
func (inv *invocation) tableIndented(rows [][]string) {
	for i := range rows {
		rows[i][0] = "  " + rows[i][0]
	}
	inv.table(rows)
}

// oneLine joins the lines of s, sanitizes it and cuts it to n runes.
func oneLine(s string, n int) string {
	s = safe.Sanitize(strings.Join(strings.Fields(s), " "))
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// surfaceLine says in one line how the tools compare with the surface
// pinned at the approval.
func surfaceLine(s *surfaceJSON) string {
	var parts []string
	switch {
	case s.Error != "":
		parts = append(parts, "cannot be checked: "+s.Error)
	case !s.Pinned:
		parts = append(parts, "pinned now (the first connection since the approval)")
	case len(s.Changed) == 0 && len(s.Added) == 0 && len(s.Removed) == 0 && !s.InstructionsChanged:
		parts = append(parts, "as approved")
	}
	list := func(what string, names []string) {
		if len(names) > 0 {
			san := make([]string, len(names))
			for i, n := range names {
				san[i] = safe.Sanitize(n)
			}
			parts = append(parts, what+" "+strings.Join(san, ", "))
		}
	}
	list("quarantined", s.Quarantined)
	list("changed", s.Changed)
	list("new", s.Added)
	list("removed", s.Removed)
	if s.InstructionsChanged {
		parts = append(parts, "instructions changed")
	}
	return strings.Join(parts, "; ") + " (pin: " + s.Pin + ", newTools: " + s.NewTools + ")"
}
