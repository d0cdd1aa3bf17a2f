package cli

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/protocol"
)

// Version is mcpwire's version, sent as clientInfo.version, when the
// build is not a release (see [releaseVersion]).
const Version = "0.1.0"

// License is the SPDX identifier of mcpwire's licence (the LICENSE file).
const License = "Apache-2.0"

// The stamp of a release build, set by scripts/release.sh with -ldflags
// -X; empty in every other build (go build, go install). Nothing writes
// them at run time.
var (
	releaseVersion string // $VERSION of the release: "v1.2.3"
	releaseCommit  string // the commit built
	releaseDate    string // the commit's time (RFC 3339, UTC), the build date of a reproducible build
)

// clientVersion is what mcpwire sends as clientInfo.version: the
// release's version, else Version.
func clientVersion() string {
	if releaseVersion != "" {
		return releaseVersion
	}
	return Version
}

// versionReport is `mcpwire version --json`.
type versionReport struct {
	docHeader
	Version string `json:"version"` // mcpwire's own, sent as clientInfo.version
	License string `json:"license"` // SPDX: "Apache-2.0"
	// BuildDate is a release's build date (its commit's time); "" in
	// other builds.
	BuildDate string `json:"buildDate"`
	// Module and ModuleVersion come from the build: the module path, and
	// its version ("v1.2.3" from go install …@v1.2.3, "(devel)" from a
	// checkout).
	Module        string `json:"module"`
	ModuleVersion string `json:"moduleVersion"`
	// Revision, RevisionTime and Modified are the VCS stamp of a build
	// from a checkout: the commit, its time, and whether the tree had
	// changes; empty (and false) when the build had none.
	Revision     string   `json:"revision"`
	RevisionTime string   `json:"revisionTime"`
	Modified     bool     `json:"modified"`
	Go           string   `json:"go"`
	Platform     string   `json:"platform"`
	Protocols    []string `json:"protocols"` // the revisions mcpwire speaks, newest first
}

// buildVersion reads the build's module and VCS stamp.
func buildVersion() *versionReport {
	rep := &versionReport{docHeader: docHeader{Schema: 1, Command: "version", OK: true}, Version: clientVersion(),
		License: License, BuildDate: releaseDate, Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Protocols: protocol.SupportedVersions()}
	rep.Revision, rep.RevisionTime = releaseCommit, releaseDate
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return rep
	}
	rep.Go = info.GoVersion
	rep.Module, rep.ModuleVersion = info.Main.Path, info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if releaseCommit == "" {
				rep.Revision = s.Value
			}
		case "vcs.time":
			if releaseCommit == "" {
				rep.RevisionTime = s.Value
			}
		case "vcs.modified":
			rep.Modified = s.Value == "true"
		}
	}
	return rep
}

func runVersion(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("version")
	_, err := inv.jsonArgs(fs, args, arity{0, 0, false, "version takes no arguments"})
	if err != nil {
		return err
	}
	rep := buildVersion()
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printf("mcpwire %s\n", rep.Version)
	if rep.Module != "" {
		inv.printf("  module:    %s %s\n", rep.Module, rep.ModuleVersion)
	}
	if rep.Revision != "" {
		rev := rep.Revision
		if rep.RevisionTime != "" {
			rev += " (" + rep.RevisionTime + ")"
		}
		if rep.Modified {
			rev += ", with changes not committed"
		}
		inv.printf("  revision:  %s\n", rev)
	}
	if rep.BuildDate != "" {
		inv.printf("  built:     %s\n", rep.BuildDate)
	}
	inv.printf("  license:   %s\n", rep.License)
	inv.printf("  go:        %s %s\n", rep.Go, rep.Platform)
	inv.printf("  protocols: %s\n", strings.Join(rep.Protocols, ", "))
	return nil
}

// runServeDemo runs the built-in demo server (hidden: `mcpwire serve-demo`).
func runServeDemo(ctx context.Context, inv *invocation, args []string) error {
	inv.exit = demo.Main(ctx, args, inv.env.Stdin, inv.env.Stdout, inv.env.Stderr)
	return nil
}
