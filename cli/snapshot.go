package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// The surface engine's types under the names the printing uses: the
// engine (snapshot, diff, fingerprints) is protocol/surface; cli prints.
type (
	snapshot       = surface.Snapshot
	snapServerInfo = surface.ServerInfo
	change         = surface.Change
)

// The classes of a change.
const (
	classBreaking   = surface.Breaking
	classCompatible = surface.Compatible
)

// readSnapshot reads a snapshot file (or a `snapshot --json` document).
func readSnapshot(name string, data []byte) (*snapshot, error) { return surface.Read(name, data) }

// decodeJSON decodes raw JSON with numbers kept as json.Number.
func decodeJSON(raw []byte) (any, error) { return surface.DecodeJSON(raw) }

func runSnapshot(ctx context.Context, inv *invocation, args []string) error {
	var out string
	r, err := inv.openSession(ctx, "snapshot", args, func(fs *flagSetT) {
		fs.StringVar(&out, "o", "", "write the snapshot to `FILE` (default: stdout)")
		fs.StringVar(&out, "output", "", "write the snapshot to `FILE` (default: stdout)")
	}, noMoreArgs)
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	snap, err := inv.takeSnapshot(ctx, r.t, &r.tf, r.conn, r.decl)
	if err != nil {
		return err
	}
	data, err := snap.Encode()
	if err != nil {
		return fail(ExitServer, "internal", err)
	}
	data = safe.EscapeJSON(inv.redactJSON(data))
	if out == "" || out == "-" {
		_, err := inv.env.Stdout.Write(data)
		inv.wroteJSON = true
		return err
	}
	path := out
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	if err := safe.WriteAtomic(path, data, 0o644); err != nil {
		return fail(ExitConfig, "output", err, "check that the folder exists and can be written")
	}
	counts := snap.Counts()
	if inv.json {
		inv.writeJSON(struct {
			docHeader
			Server string         `json:"server"`
			File   string         `json:"file"`
			Counts map[string]int `json:"counts"`
		}{inv.header(true), snap.Server, out, counts})
		return nil
	}
	inv.printf("wrote the surface of %s to %s: %s, %s, %s, %s\n", safe.Sanitize(snap.Server), out,
		plural(counts["tools"], "tool"), plural(counts["resources"], "resource"),
		plural(counts["resourceTemplates"], "resource template"), plural(counts["prompts"], "prompt"))
	return nil
}

// takeSnapshot lists everything the server offers and normalizes it. A
// list that fails fails the snapshot: a surface with a hole would read
// as removals in a diff.
func (inv *invocation) takeSnapshot(ctx context.Context, t *target, tf *targetFlags, conn *manager.Conn, decl clientDecl) (*snapshot, error) {
	spec := t.spec
	rep := &testReport{Tools: []*protocol.Tool{}}
	stop := inv.spinner("listing " + spec.Name)
	err := inv.listAll(ctx, conn, rep)
	stop()
	if err == nil && len(rep.Warnings) > 0 {
		err = errors.New(rep.Warnings[0])
	}
	if err != nil {
		return nil, inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
	}
	init := *conn.Init()
	init.ProtocolVersion = conn.ProtocolVersion() // the revision spoken, in either era
	snap, err := surface.New(spec.Name, &init, &surface.Listing{Tools: rep.Tools, Resources: rep.Resources,
		ResourceTemplates: rep.ResourceTemplates, Prompts: rep.Prompts})
	if err != nil {
		return nil, fail(ExitServer, manager.PhaseList, fmt.Errorf("server %s: %v", spec.Name, err))
	}
	if snap.Client, err = inv.snapshotClient(tf, conn, decl); err != nil {
		return nil, fail(ExitServer, manager.PhaseList, fmt.Errorf("server %s: %v", spec.Name, err))
	}
	return snap, nil
}

// snapshotClient is what the session declared, for the snapshot.
func (inv *invocation) snapshotClient(tf *targetFlags, conn *manager.Conn, decl clientDecl) (*surface.Client, error) {
	var uris []string
	if len(tf.roots) == 0 && tf.pinned != nil {
		uris = tf.pinned.Roots
	} else if len(tf.roots) > 0 {
		roots, err := rootsFrom(inv.env.Dir, tf.roots)
		if err != nil {
			return nil, err
		}
		for _, r := range roots {
			uris = append(uris, r.URI)
		}
	}
	return surface.NewClient(conn.ProtocolVersion(), conn.ClientCapabilities(), uris, decl.elicit, decl.sample)
}

// plural says "1 tool", "2 tools".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	if strings.HasSuffix(word, "s") || strings.HasSuffix(word, "sh") || strings.HasSuffix(word, "ch") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
