package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// readDoc is `mcpwire read --json`.
type readDoc struct {
	docHeader
	Server   string                      `json:"server"`
	URI      string                      `json:"uri"`
	Contents []protocol.ResourceContents `json:"contents"`
	Out      string                      `json:"out"` // the file --out wrote; "" without it
}

// promptDoc is `mcpwire prompt --json`.
type promptDoc struct {
	docHeader
	Server      string                   `json:"server"`
	Prompt      string                   `json:"prompt"`
	Description string                   `json:"description"`
	Messages    []protocol.PromptMessage `json:"messages"`
}

// completeDoc is `mcpwire complete --json`.
type completeDoc struct {
	docHeader
	Server  string   `json:"server"`
	Values  []string `json:"values"`
	Total   *int64   `json:"total"` // null when the server did not say
	HasMore bool     `json:"hasMore"`
}

func runRead(ctx context.Context, inv *invocation, args []string) error {
	var out string
	var force bool
	r, err := inv.openSession(ctx, "read", args, func(fs *flagSetT) {
		fs.StringVar(&out, "out", "", "write the contents (text or binary) to FILE, atomically; never through a symbolic link")
		fs.BoolVar(&force, "force", false, "with --out: replace FILE when it exists")
	}, func(rest []string) error {
		if err := nArgs(1, "read takes one URI")(rest); err != nil {
			return err
		}
		if out != "" && !filepath.IsAbs(out) {
			out = filepath.Join(inv.env.Dir, out)
		}
		// Refuse before anything is asked of the server.
		if _, err := os.Lstat(out); out != "" && !force && err == nil {
			return usageErr("--out %s: the file exists; give --force to replace it", out)
		}
		return nil
	})
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	t, conn, uri := r.t, r.conn, r.rest[0]
	res, err := conn.ReadResource(ctx, uri)
	if err != nil {
		return inv.serverFailure(t, conn.Explain(manager.PhaseCall, err))
	}
	if out != "" {
		var data []byte
		for i := range res.Contents {
			b, err := res.Contents[i].Bytes()
			if err != nil {
				return fail(ExitServer, manager.PhaseCall, err)
			}
			data = append(data, b...)
		}
		// Whole or not at all, and never through a symbolic link: without
		// --force nothing may be at out (a link included); with it, what is
		// there is replaced, never followed.
		write := safe.WriteNew
		if force {
			write = safe.WriteAtomic
		}
		if err := write(out, data, 0o644); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return usageErr("--out %s: the file exists; give --force to replace it", out)
			}
			return fail(ExitServer, manager.PhaseCall, err)
		}
	}
	if inv.json {
		inv.writeJSON(readDoc{inv.header(true), t.spec.Name, uri, nonNil(res.Contents), out})
		return nil
	}
	if out != "" {
		inv.eprintf("wrote %d item(s) of %s to %s\n", len(res.Contents), safe.Sanitize(uri), out)
		return nil
	}
	for i := range res.Contents {
		inv.printf("%s\n", strings.TrimRight(describeResource(&res.Contents[i], len(res.Contents) > 1), "\n"))
	}
	return nil
}

func runPrompt(ctx context.Context, inv *invocation, args []string) error {
	r, err := inv.openSession(ctx, "prompt", args, nil, func(rest []string) error {
		if len(rest) == 0 {
			return usageErr("prompt takes a NAME after the TARGET")
		}
		return nil
	})
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	t, conn, name := r.t, r.conn, r.rest[0]
	// Refuse a missing required argument before sending anything.
	prompts, err := conn.ListPrompts(ctx)
	if err != nil {
		return inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
	}
	var found *protocol.Prompt
	for _, p := range prompts {
		if p.Name == name {
			found = p
		}
	}
	if found == nil {
		f := fail(ExitUsage, phaseUsage, fmt.Errorf("%s has no prompt %q", t.spec.Name, name))
		f.server, f.kind = t.spec.Name, codePromptNotFound
		return f
	}
	pargs, err := manager.PromptArgs(found, r.rest[1:])
	if err != nil {
		return usageErr("%v", err)
	}
	if err := manager.CheckPromptArgs(found, pargs); err != nil {
		var pe *manager.PromptArgumentsError
		errors.As(err, &pe)
		f := usageErr("%v", err)
		var missing []string
		for _, m := range pe.Missing {
			missing = append(missing, m+"="+strings.ToUpper(m))
		}
		f.hints = []string{"give them in order, or as NAME=VALUE: " + inv.targetLine(t, &r.tf, "prompt", name, missing...)}
		return f
	}
	res, err := conn.GetPrompt(ctx, name, pargs)
	if err != nil {
		return inv.serverFailure(t, conn.Explain(manager.PhaseCall, err))
	}
	if inv.json {
		inv.writeJSON(promptDoc{inv.header(true), t.spec.Name, name, res.Description, nonNil(res.Messages)})
		return nil
	}
	if res.Description != "" {
		inv.printf("%s\n\n", inv.dim(oneLine(res.Description, 200)))
	}
	for i := range res.Messages {
		m := &res.Messages[i]
		inv.printf("%s:\n%s\n\n", inv.bold(safe.Sanitize(m.Role)), strings.TrimRight(describeContent(&m.Content), "\n"))
	}
	return nil
}

func runComplete(ctx context.Context, inv *invocation, args []string) error {
	var promptName, resourceURI string
	var ctxArgs listFlag
	var cargs map[string]string
	r, err := inv.openSession(ctx, "complete", args, func(fs *flagSetT) {
		fs.StringVar(&promptName, "prompt", "", "complete an argument of this prompt")
		fs.StringVar(&resourceURI, "resource", "", "complete a variable of this resource template")
		fs.Var(&ctxArgs, "context", "k=v of an argument already given (repeatable)")
	}, func(rest []string) (err error) {
		if (promptName == "") == (resourceURI == "") {
			return usageErr("give --prompt NAME or --resource URI")
		}
		if len(rest) != 2 {
			return usageErr("complete takes ARG VALUE after the TARGET")
		}
		cargs, err = kvPairs(ctxArgs, "--context")
		return err
	})
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	t, conn, rest := r.t, r.conn, r.rest
	ref := protocol.PromptRef(promptName)
	if resourceURI != "" {
		ref = protocol.ResourceRef(resourceURI)
	}
	res, err := conn.Complete(ctx, ref, rest[0], rest[1], cargs)
	if err != nil {
		return inv.serverFailure(t, conn.Explain(manager.PhaseCall, err))
	}
	if inv.json {
		inv.writeJSON(completeDoc{inv.header(true), t.spec.Name, nonNil(res.Completion.Values), res.Completion.Total, res.Completion.HasMore})
		return nil
	}
	for _, v := range res.Completion.Values {
		inv.printf("%s\n", safe.Sanitize(v))
	}
	if res.Completion.HasMore {
		inv.eprintf("(more values exist)\n")
	}
	return nil
}
