package cli

import (
	"context"
	"runtime"
	"runtime/debug"

	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/protocol"
)

// Version is mcpwire's version, sent as clientInfo.version.
const Version = "0.1.0"

func runVersion(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("version")
	fs.BoolVar(&inv.json, "json", false, "print JSON")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("version takes no arguments")
	}
	commit := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				commit = s.Value[:12]
			}
		}
	}
	if inv.json {
		inv.writeJSON(map[string]any{"schema": 1, "version": Version, "commit": commit, "go": runtime.Version(), "protocolVersions": protocol.SupportedVersions()})
		return nil
	}
	inv.printf("mcpwire %s", Version)
	if commit != "" {
		inv.printf(" (%s)", commit)
	}
	inv.printf(" %s %s/%s; MCP %v\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, protocol.SupportedVersions())
	return nil
}

// runServeDemo runs the built-in demo server (hidden: `mcpwire serve-demo`).
func runServeDemo(ctx context.Context, inv *invocation, args []string) error {
	inv.exit = demo.Main(ctx, args, inv.env.Stdin, inv.env.Stdout, inv.env.Stderr)
	return nil
}
