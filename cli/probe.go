package cli

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// probeReport is `mcpwire probe --json`.
type probeReport struct {
	docHeader
	Server     string                   `json:"server"`
	Transport  string                   `json:"transport"`
	Target     string                   `json:"target"`
	Protocol   string                   `json:"protocol"`  // what a dual-era client speaks with it; "" when none
	Era        string                   `json:"era"`       // the era of that revision; "" when none
	Eras       string                   `json:"eras"`      // "modern", "legacy", "dual" or "none"
	LegacySSE  bool                     `json:"legacySse"` // an HTTP server answered on HTTP+SSE only
	ServerInfo *protocol.Implementation `json:"serverInfo,omitempty"`
	Revisions  []probeRow               `json:"revisions"`
}

// probeRow is one revision of a probe.
type probeRow struct {
	Protocol     string     `json:"protocol"`
	Era          string     `json:"era"`
	OK           bool       `json:"ok"`
	Capabilities []string   `json:"capabilities"`
	Error        *jsonError `json:"error,omitempty"`
	// Timing is how long the attempt took, in milliseconds, under
	// "attempt": the name and shape every --json document's durations
	// take (timingMs).
	Timing map[string]int64 `json:"timingMs"`
}

// runProbe connects to a server once per MCP revision and says which ones
// it accepts, and its era. It exits 0 when at least one revision works.
func runProbe(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("probe")
	var tf targetFlags
	tf.register(fs)
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if tf.protocol != "" {
		return usageErr("probe tries every revision: --protocol does not apply")
	}
	t, rest, err := inv.resolveTarget(ctx, &tf, pos, tail, hasTail)
	if err != nil {
		return err
	}
	defer t.stop()
	if len(rest) > 0 {
		return usageErr("unexpected arguments: %s", strings.Join(rest, " "))
	}
	opts, err := inv.dialOptions(t, &tf, protocol.Options{ClientName: "mcpwire", ClientVersion: clientVersion()})
	if err != nil {
		return err
	}
	spec := t.spec
	stop := inv.spinner("probing " + spec.Name)
	rep := manager.Probe(ctx, spec, opts, cmp.Or(tf.startup, manager.DefaultStartup))
	stop()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !rep.OK() {
		err := rep.Detected.Err
		if aerr := rep.AuthErr(); aerr != nil {
			err = aerr
		}
		if !inv.json {
			inv.printProbe(t, rep)
		}
		return inv.serverFailure(t, err)
	}
	out := &probeReport{docHeader: inv.header(true), Server: spec.Name, Transport: spec.Transport, Target: spec.Target(),
		Eras: rep.Eras(), LegacySSE: rep.LegacySSE, Revisions: []probeRow{}}
	if d := rep.Detected; d.OK {
		out.Protocol, out.Era = d.Spoken, string(d.Era)
		info := d.ServerInfo
		out.ServerInfo = &info
	}
	for _, r := range rep.Revisions {
		row := probeRow{Protocol: r.Revision, Era: string(protocol.EraOf(r.Revision)), OK: r.OK, Capabilities: nonNil(r.Capabilities), Timing: map[string]int64{"attempt": r.Took.Milliseconds()}}
		if r.Err != nil {
			phase, msg := manager.PhaseInitialize, r.Err.Error()
			var se *manager.ServerError
			if errors.As(r.Err, &se) {
				phase, msg = se.Phase, se.Reason()
			}
			row.Error = &jsonError{Server: spec.Name, Phase: phase, Code: stateCode(manager.StateFailed, phase, r.Err), Message: safe.Sanitize(msg), Hints: []string{}}
		}
		out.Revisions = append(out.Revisions, row)
	}
	if inv.json {
		inv.writeJSON(out)
		return nil
	}
	inv.printProbe(t, rep)
	return nil
}

// printProbe prints a probe for people.
func (inv *invocation) printProbe(t *target, rep *manager.ProbeReport) {
	spec := t.spec
	mark := inv.green("✓")
	if !rep.OK() {
		mark = inv.red("✗")
	}
	inv.printf("%s %s %s\n", mark, inv.bold(safe.Sanitize(spec.Name)), inv.dim(spec.Transport+" "+safe.Sanitize(spec.Target())))
	speaks := map[string]string{
		"dual":   "both eras (dual-era)",
		"modern": "the modern era only (2026-07-28)",
		"legacy": "the legacy era only (initialize)",
		"none":   "no revision mcpwire speaks",
	}[rep.Eras()]
	if d := rep.Detected; d.OK {
		speaks += "; mcpwire speaks " + d.Spoken + " (" + string(d.Era) + " era) with it"
		info := d.ServerInfo
		inv.printf("  %-10s %s\n", "server:", safe.Sanitize(strings.TrimSpace(info.Name+" "+info.Version)))
	}
	inv.printf("  %-10s %s\n", "speaks:", speaks)
	if spec.Transport != "stdio" {
		sse := "no"
		if rep.LegacySSE {
			sse = "yes: the server answers on the 2024-11-05 HTTP+SSE transport"
		}
		inv.printf("  %-10s %s\n", "HTTP+SSE:", sse)
	}
	rows := [][]string{{"REVISION", "ERA", "ACCEPTED", "CAPABILITIES / WHY NOT", "MS"}}
	for _, r := range rep.Revisions {
		var top []string // the capabilities, without their sub-features
		for _, c := range r.Capabilities {
			if !strings.Contains(c, ".") {
				top = append(top, c)
			}
		}
		accepted, detail := inv.green("✓"), strings.Join(top, ", ")
		if !r.OK {
			accepted, detail = inv.red("✗"), "-"
			if r.Err != nil {
				msg := r.Err.Error()
				var se *manager.ServerError
				if errors.As(r.Err, &se) {
					msg = se.Reason()
				}
				detail = oneLine(msg, 100)
			}
		}
		rows = append(rows, []string{r.Revision, string(protocol.EraOf(r.Revision)), accepted, detail, strconv.FormatInt(r.Took.Milliseconds(), 10)})
	}
	inv.printf("\n")
	inv.tableIndented(rows)
}
