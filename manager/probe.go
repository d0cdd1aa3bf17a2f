// This file holds Probe, a service of one server at a time beside the
// Manager (which never calls it): `mcpwire probe` connects once as a
// dual-era client, then once per supported revision pinned, and says
// which eras and revisions the server accepts.

package manager

import (
	"context"
	"errors"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// A ProbeReport says which MCP revisions a server accepts: what a
// dual-era client detects, and each revision asked for on its own.
type ProbeReport struct {
	// Detected is the connection a dual-era client makes (no pin, no era
	// cache): the era and revision mcpwire speaks with this server.
	Detected ProbeRow
	// Revisions are the revisions of protocol.SupportedVersions, newest
	// first, each pinned in a connection of its own.
	Revisions []ProbeRow
	// LegacySSE says that an HTTP server answered only on the 2024-11-05
	// HTTP+SSE transport (in any of the connections).
	LegacySSE bool
}

// A ProbeRow is one connection of a probe.
type ProbeRow struct {
	Revision string       // asked for ("" for the detection)
	OK       bool         // the server accepted it
	Era      protocol.Era // of the revision spoken (OK only)
	Spoken   string       // the revision spoken (OK only)
	// ServerInfo and Capabilities are what the server said (OK only).
	ServerInfo   protocol.Implementation
	Capabilities []string
	Err          error         // why the revision was refused (a *ServerError)
	Took         time.Duration // how long the connection took to start
}

// Eras returns the eras the server speaks, as "modern", "legacy",
// "dual" (both) or "none".
func (r *ProbeReport) Eras() string {
	var modern, legacy bool
	for _, row := range r.Revisions {
		if row.OK {
			modern = modern || row.Era == protocol.EraModern
			legacy = legacy || row.Era == protocol.EraLegacy
		}
	}
	switch {
	case modern && legacy:
		return "dual"
	case modern:
		return string(protocol.EraModern)
	case legacy:
		return string(protocol.EraLegacy)
	}
	return "none"
}

// OK reports whether at least one revision works.
func (r *ProbeReport) OK() bool {
	for _, row := range r.Revisions {
		if row.OK {
			return true
		}
	}
	return r.Detected.OK
}

// AuthErr returns the first failure that says a login is needed, or nil.
func (r *ProbeReport) AuthErr() error {
	for _, row := range append([]ProbeRow{r.Detected}, r.Revisions...) {
		var se *ServerError
		if errors.As(row.Err, &se) && se.Phase == PhaseAuth {
			return row.Err
		}
	}
	return nil
}

// Probe connects to spec's server once as a dual-era client, then once
// per revision of protocol.SupportedVersions with that revision pinned
// (a fresh process for each, over stdio), and reports what each
// connection started as. Each connection is bounded by each (the startup
// budget of one); ctx bounds the whole probe. opts is used as Dial uses
// it, but for its era cache, which the probe neither reads nor writes.
func Probe(ctx context.Context, spec *Spec, opts *DialOptions, each time.Duration) *ProbeReport {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	o.EraCache = nil
	o.Protocol.Hint = nil
	rep := &ProbeReport{}
	one := func(revision string) ProbeRow {
		s := *spec
		s.ProtocolVersion = revision
		po := o
		po.Protocol.ProtocolVersion = revision
		cctx, cancel := context.WithTimeout(ctx, each)
		defer cancel()
		start := time.Now()
		conn, err := Dial(cctx, &s, &po)
		row := ProbeRow{Revision: revision, Took: time.Since(start)}
		if err != nil {
			row.Err = err
			return row
		}
		defer conn.Close()
		if spoken := conn.ProtocolVersion(); revision != "" && spoken != revision {
			// A pin accepts an older legacy answer; the probe asks
			// whether the server speaks this revision itself.
			row.Err = &protocol.VersionError{Asked: revision, Answered: spoken, Pinned: true}
			return row
		}
		init := conn.Init()
		row.OK, row.Era, row.Spoken = true, conn.Era(), conn.ProtocolVersion()
		row.ServerInfo, row.Capabilities = conn.ServerInfo(), init.Capabilities.Names()
		rep.LegacySSE = rep.LegacySSE || conn.Transport() == "sse"
		return row
	}
	rep.Detected = one("")
	for _, v := range protocol.SupportedVersions() {
		if ctx.Err() != nil {
			break
		}
		rep.Revisions = append(rep.Revisions, one(v))
	}
	return rep
}
