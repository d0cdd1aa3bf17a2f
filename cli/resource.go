package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mcpwire/manager"
	"mcpwire/protocol"
)

// sessionCommand is the common start of read, prompt and complete: flags,
// target, positionals, connection.
func (inv *invocation) sessionCommand(ctx context.Context, name string, args []string, extra func(*flagSetT)) (*target, *manager.Conn, []string, error) {
	fs := newFlagSet(name)
	var tf targetFlags
	var xf interactionFlags
	tf.register(fs)
	xf.register(fs)
	if extra != nil {
		extra(fs)
	}
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return nil, nil, nil, err
	}
	t, rest, err := inv.resolveTarget(ctx, &tf, pos, tail, hasTail)
	if err != nil {
		return nil, nil, nil, err
	}
	popts, err := inv.interactions(&xf, inv.newEvents(xf.events))
	if err != nil {
		t.stop()
		return nil, nil, nil, err
	}
	conn, err := inv.connect(ctx, t, &tf, popts)
	if err != nil {
		t.stop()
		return nil, nil, nil, err
	}
	return t, conn, rest, nil
}

func runRead(ctx context.Context, inv *invocation, args []string) error {
	var out string
	t, conn, rest, err := inv.sessionCommand(ctx, "read", args, func(fs *flagSetT) {
		fs.StringVar(&out, "out", "", "write the contents (text or binary) to FILE")
	})
	if err != nil {
		return err
	}
	defer t.stop()
	defer conn.Close()
	if len(rest) != 1 {
		return usageErr("read takes one URI after the TARGET")
	}
	uri := rest[0]
	res, err := conn.ReadResource(ctx, uri)
	if err != nil {
		return inv.serverFailure(t.spec, conn.Explain(manager.PhaseCall, err))
	}
	if out != "" {
		if !filepath.IsAbs(out) {
			out = filepath.Join(inv.env.Dir, out)
		}
		var data []byte
		for i := range res.Contents {
			b, err := res.Contents[i].Bytes()
			if err != nil {
				return fail(ExitServer, phaseCall, err)
			}
			data = append(data, b...)
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return fail(ExitServer, phaseCall, fmt.Errorf("writing %s: %v", out, err))
		}
	}
	if inv.json {
		inv.writeJSON(struct {
			Schema   int                         `json:"schema"`
			OK       bool                        `json:"ok"`
			Server   string                      `json:"server"`
			URI      string                      `json:"uri"`
			Contents []protocol.ResourceContents `json:"contents"`
			Out      string                      `json:"out,omitempty"`
		}{1, true, t.spec.Name, uri, res.Contents, out})
		return nil
	}
	if out != "" {
		inv.eprintf("wrote %d item(s) of %s to %s\n", len(res.Contents), clean(uri), out)
		return nil
	}
	for i := range res.Contents {
		inv.printf("%s\n", strings.TrimRight(describeResource(&res.Contents[i], len(res.Contents) > 1), "\n"))
	}
	return nil
}

func runPrompt(ctx context.Context, inv *invocation, args []string) error {
	t, conn, rest, err := inv.sessionCommand(ctx, "prompt", args, nil)
	if err != nil {
		return err
	}
	defer t.stop()
	defer conn.Close()
	if len(rest) == 0 {
		return usageErr("prompt takes a NAME after the TARGET")
	}
	name := rest[0]
	pargs := map[string]string{}
	for _, w := range rest[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return usageErr("prompt argument %q is not k=v", w)
		}
		pargs[k] = v
	}
	// Refuse a missing required argument before sending anything.
	prompts, err := conn.ListPrompts(ctx)
	if err != nil {
		return inv.serverFailure(t.spec, conn.Explain(manager.PhaseList, err))
	}
	var found *protocol.Prompt
	for _, p := range prompts {
		if p.Name == name {
			found = p
		}
	}
	if found == nil {
		return fail(ExitUsage, phaseUsage, fmt.Errorf("%s has no prompt %q", t.spec.Name, name))
	}
	for _, a := range found.Arguments {
		if _, ok := pargs[a.Name]; a.Required && !ok {
			return usageErr("prompt %s needs the argument %s (give %s=VALUE)", name, a.Name, a.Name)
		}
	}
	res, err := conn.GetPrompt(ctx, name, pargs)
	if err != nil {
		return inv.serverFailure(t.spec, conn.Explain(manager.PhaseCall, err))
	}
	if inv.json {
		inv.writeJSON(struct {
			Schema int                       `json:"schema"`
			OK     bool                      `json:"ok"`
			Server string                    `json:"server"`
			Prompt string                    `json:"prompt"`
			Result *protocol.GetPromptResult `json:"result"`
		}{1, true, t.spec.Name, name, res})
		return nil
	}
	if res.Description != "" {
		inv.printf("%s\n\n", inv.dim(oneLine(res.Description, 200)))
	}
	for i := range res.Messages {
		m := &res.Messages[i]
		inv.printf("%s:\n%s\n\n", inv.bold(clean(m.Role)), strings.TrimRight(describeContent(&m.Content), "\n"))
	}
	return nil
}

func runComplete(ctx context.Context, inv *invocation, args []string) error {
	var promptName, resourceURI string
	var ctxArgs listFlag
	t, conn, rest, err := inv.sessionCommand(ctx, "complete", args, func(fs *flagSetT) {
		fs.StringVar(&promptName, "prompt", "", "complete an argument of this prompt")
		fs.StringVar(&resourceURI, "resource", "", "complete a variable of this resource template")
		fs.Var(&ctxArgs, "context", "k=v of an argument already given (repeatable)")
	})
	if err != nil {
		return err
	}
	defer t.stop()
	defer conn.Close()
	if (promptName == "") == (resourceURI == "") {
		return usageErr("give --prompt NAME or --resource URI")
	}
	if len(rest) != 2 {
		return usageErr("complete takes ARG VALUE after the TARGET")
	}
	ref := protocol.PromptRef(promptName)
	if resourceURI != "" {
		ref = protocol.ResourceRef(resourceURI)
	}
	cargs := map[string]string{}
	for _, kv := range ctxArgs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usageErr("--context wants k=v")
		}
		cargs[k] = v
	}
	res, err := conn.Complete(ctx, ref, rest[0], rest[1], cargs)
	if err != nil {
		return inv.serverFailure(t.spec, conn.Explain(manager.PhaseCall, err))
	}
	if inv.json {
		inv.writeJSON(struct {
			Schema     int                 `json:"schema"`
			OK         bool                `json:"ok"`
			Server     string              `json:"server"`
			Completion protocol.Completion `json:"completion"`
		}{1, true, t.spec.Name, res.Completion})
		return nil
	}
	for _, v := range res.Completion.Values {
		inv.printf("%s\n", clean(v))
	}
	if res.Completion.HasMore {
		inv.eprintf("(more values exist)\n")
	}
	return nil
}
