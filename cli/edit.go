package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// configResult is one server a configuration command acted on, in the
// --json documents of add, add-json, remove, enable, disable, approve and
// revoke.
type configResult struct {
	Server string `json:"server"`
	Source string `json:"source"` // the .mcp.json file
	Scope  string `json:"scope"`  // user or project
	// Result is what happened: added, removed, enabled, disabled,
	// approved, already approved, revoked, skipped or failed.
	Result   string   `json:"result"`
	Reason   string   `json:"reason"`   // why skipped or failed; "" otherwise
	Warnings []string `json:"warnings"` // the review's warnings of an added or approved definition
}

// configDoc is the --json document of those commands.
type configDoc struct {
	docHeader
	Servers []configResult `json:"servers"`
}

// scopeFlags are --scope/-s and --project: which file a command edits.
type scopeFlags struct {
	_ [0]func() // not comparable: no equality function in the binary

	scope   string
	project bool
}

func (sf *scopeFlags) register(fs *flagSetT, verb string) {
	fs.StringVar(&sf.scope, "scope", "", "`user` (the home folder's .mcp.json, the default) or project (./.mcp.json) to "+verb)
	fs.StringVar(&sf.scope, "s", "", "short for --scope")
	fs.BoolVar(&sf.project, "project", false, "the same as --scope project")
}

// resolve says which scope was asked for: user or project.
func (sf *scopeFlags) resolve(inv *invocation) (string, error) {
	switch sf.scope {
	case "":
	case "user", "global":
		if sf.project {
			return "", usageErr("--scope %s and --project contradict each other", sf.scope)
		}
		return config.ScopeUser, nil
	case "project":
		return config.ScopeProject, nil
	case "local":
		f := usageErr("--scope local is Claude Code's (private to you, in this project); %s has user and project", inv.prog)
		f.hints = []string{"for yourself in every project: --scope user; shared with the project: --scope project (./.mcp.json)"}
		return "", f
	default:
		return "", usageErr("--scope takes user or project, not %q", sf.scope)
	}
	if sf.project {
		return config.ScopeProject, nil
	}
	return config.ScopeUser, nil
}

// addFlags are the flags of add; the definition's own parts.
type addFlags struct {
	scopeFlags
	env, headers listFlag
	url, typ     string
	bearer       string
	timeout      float64
	replace      bool
}

func runAdd(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("add")
	var af addFlags
	af.register(fs, "add to")
	fs.StringVar(&af.url, "url", "", "the server's `URL` (or give it after NAME)")
	fs.StringVar(&af.typ, "transport", "", "`stdio`, http (the default with a URL) or sse (the 2024-11-05 HTTP+SSE transport)")
	fs.StringVar(&af.typ, "t", "", "short for --transport")
	fs.Var(&af.env, "env", "`KEY=VALUE` for a stdio server's environment (repeatable)")
	fs.Var(&af.env, "e", "short for --env")
	fs.Var(&af.headers, "header", "an HTTP header `'Name: value'` (repeatable)")
	fs.Var(&af.headers, "H", "short for --header")
	fs.Float64Var(&af.timeout, "timeout", 0, "`seconds` per request (default 30, at most 300)")
	fs.StringVar(&af.bearer, "bearer-token-env-var", "", "an HTTP server's token: the `VAR` whose value is sent as 'Authorization: Bearer …' (the value stays out of the file)")
	fs.BoolVar(&af.replace, "replace", false, "replace the definition of NAME, which the file has already (approved again as written)")
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		var f *failure
		if errors.As(err, &f) && strings.HasPrefix(f.err.Error(), "unknown flag") {
			f.hints = append(f.hints, "a server's command and its own flags go after --: "+inv.suggest("add", "NAME", "--", "COMMAND")+" ARGS…")
		}
		return err
	}
	if len(pos) == 0 {
		return usageErr("add takes a NAME, then a URL or -- COMMAND ARGS…")
	}
	name := pos[0]
	entry := config.Entry{Timeout: af.timeout}
	rest := pos[1:]
	switch {
	case len(rest) > 0 && isURL(rest[0]) && len(rest) == 1 && af.url == "" && !hasTail:
		af.url = rest[0] // claude mcp add --transport http NAME URL
	case len(rest) > 0 && !isURL(rest[0]) && af.url == "" && !hasTail:
		tail, hasTail = rest, true // claude mcp add NAME COMMAND ARGS (with no flag among ARGS)
	case len(rest) > 0:
		return usageErr("add takes one NAME, then a URL or -- COMMAND ARGS… (got %s)", strings.Join(pos, " "))
	}
	switch af.typ {
	case "", config.TypeStdio, config.TypeHTTP, config.TypeSSE:
	case "streamable-http", "streamableHttp":
		af.typ = config.TypeHTTP
	default:
		return usageErr("--transport takes stdio, http or sse, not %q", af.typ)
	}
	switch {
	case af.url != "" && hasTail:
		return usageErr("give a URL or -- COMMAND ARGS…, not both")
	case af.url == "" && !hasTail:
		f := usageErr("no URL and no command: give add NAME URL, or add NAME -- COMMAND ARGS…")
		if af.typ == config.TypeStdio || af.typ == "" {
			f.hints = []string{"a stdio server: " + inv.suggest("add", name, "--", "npx", "-y", "PACKAGE")}
		}
		return f
	case hasTail && len(tail) == 0:
		return usageErr("no command after --")
	case af.url != "":
		if af.typ == config.TypeStdio {
			return usageErr("--transport stdio runs a command; a URL needs http or sse")
		}
		if !isURL(af.url) {
			return usageErr("the URL must start with http:// or https://, not %q", af.url)
		}
		entry.Type, entry.URL = config.TypeHTTP, af.url
		if af.typ != "" {
			entry.Type = af.typ
		}
		if len(af.env) > 0 {
			return usageErr("--env is for stdio servers; an HTTP server takes --header")
		}
		entry.BearerTokenEnvVar = af.bearer
	default:
		if af.typ == config.TypeHTTP || af.typ == config.TypeSSE {
			return usageErr("--transport %s needs a URL, not a command", af.typ)
		}
		entry.Command, entry.Args = tail[0], tail[1:]
		if len(af.headers) > 0 {
			return usageErr("--header is for HTTP servers; a stdio server takes --env")
		}
		if af.bearer != "" {
			return usageErr("--bearer-token-env-var is for HTTP servers; a stdio server takes --env KEY=${VAR}")
		}
	}
	for _, kv := range af.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErr("--env wants KEY=VALUE, got %q", strings.SplitN(kv, "=", 2)[0])
		}
		if entry.Env == nil {
			entry.Env = map[string]string{}
		}
		entry.Env[k] = v
		inv.addSecrets(v)
	}
	for _, h := range af.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return usageErr("--header wants 'Name: value'")
		}
		if entry.Headers == nil {
			entry.Headers = map[string]string{}
		}
		entry.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		inv.addSecrets(config.SecretForms(v)...)
	}
	scope, err := af.resolve(inv)
	if err != nil {
		return err
	}
	return inv.addAndApprove(ctx, name, scope, entry, af.replace)
}

func runAddJSON(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("add-json")
	var sf scopeFlags
	sf.register(fs, "add to")
	replace := fs.Bool("replace", false, "replace the definition of NAME, which the file has already (approved again as written)")
	pos, err := inv.jsonArgs(fs, args, arity{2, 2, true, "add-json takes a NAME and the definition as one JSON object (quote it)"})
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(pos[1]))
	var def map[string]json.RawMessage
	if err := dec.Decode(&def); err != nil || def == nil {
		return usageErr("the definition is not a JSON object: %v", errOrNull(err))
	}
	if dec.More() {
		return usageErr("the definition has text after its JSON object")
	}
	for k, v := range def {
		if k == "env" || k == "headers" {
			var m map[string]string
			if json.Unmarshal(v, &m) == nil {
				for _, x := range m {
					inv.addSecrets(x)
				}
			}
		}
	}
	scope, err := sf.resolve(inv)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(pos[1])); err != nil {
		return usageErr("the definition is not JSON: %v", err)
	}
	return inv.addAndApprove(ctx, pos[0], scope, json.RawMessage(buf.Bytes()), *replace)
}

// addAndApprove writes a new definition to the scope's file (with
// replace, over the one of that name) and approves it: the user typed it.
func (inv *invocation) addAndApprove(ctx context.Context, name, scope string, entry any, replace bool) error {
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	path := scopePath(inv, home, scope == config.ScopeProject)
	if other := cfg.Server(name); other != nil && other.Source != path && !inv.json {
		inv.say("warning: %s is also defined in %s (%s scope); the project entry wins\n", name, safe.Sanitize(other.Source), other.Scope)
	}
	put, result := config.AddServerContext, "added"
	if replace {
		put, result = config.ReplaceServerContext, "replaced"
	}
	s, err := put(ctx, path, scope, name, entry)
	if ctx.Err() != nil {
		return err // interrupted waiting for the lock: nothing written
	}
	if err != nil {
		f := inv.configFailure(name, err).(*failure)
		if errors.Is(err, config.ErrNameInUse) {
			f.hints = append(f.hints, "or replace its definition: "+inv.suggest("add", "--replace", name)+" …")
		}
		return f
	}
	ap, err := config.OpenApprovals(home)
	if err != nil {
		return inv.approvalsUnavailable(name, home, err)
	}
	if err := ap.ApproveContext(ctx, s); err != nil {
		if ctx.Err() != nil && !replace {
			// Interrupted waiting for settings.json's lock: take the
			// entry out again, so that an interrupted add writes nothing.
			config.RemoveServer(path, name)
			return err
		}
		return &failure{code: ExitConfig, server: name, phase: manager.PhaseApproval, err: err}
	}
	res := configResult{Server: name, Source: s.Source, Scope: scope, Result: result, Warnings: nonNil(inv.reviewWarnings(s))}
	if inv.json {
		inv.writeJSON(configDoc{inv.header(true), []configResult{res}})
		return nil
	}
	verb := "added %s to"
	if replace {
		verb = "replaced %s in"
	}
	inv.printf(verb+" %s (%s scope) and approved it\n", safe.Sanitize(name), safe.Sanitize(s.Source), scope)
	for _, w := range res.Warnings {
		inv.say("warning: %s\n", safe.Sanitize(w))
	}
	inv.printf("try it: %s\n", inv.suggest("test", name))
	return nil
}

func runRemove(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("remove")
	var sf scopeFlags
	sf.register(fs, "remove from")
	pos, err := inv.jsonArgs(fs, args, arity{1, 1, false, "remove takes one NAME"})
	if err != nil {
		return err
	}
	scope, err := sf.resolve(inv)
	if err != nil {
		return err
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	path := scopePath(inv, home, scope == config.ScopeProject)
	if err := config.RemoveServerContext(ctx, path, pos[0]); err != nil {
		f := inv.configFailure(pos[0], err).(*failure)
		if s := cfg.Server(pos[0]); s != nil && errors.Is(err, config.ErrNotFound) && s.Scope != scope {
			f.hints = []string{"it is in the " + s.Scope + " scope: " + inv.suggest("remove", "--scope", s.Scope, pos[0])}
		}
		return f
	}
	if inv.json {
		inv.writeJSON(configDoc{inv.header(true), []configResult{{Server: pos[0], Source: path, Scope: scope, Result: "removed", Warnings: []string{}}}})
		return nil
	}
	inv.printf("removed %s from %s\n", safe.Sanitize(pos[0]), safe.Sanitize(path))
	return nil
}

// runRename is `rename OLD NEW`: the definition keeps every byte but its
// name. Its approval follows it when the old definition was approved (the
// digest covers the name, so the new name is approved anew); otherwise
// the new name still needs one, as the old did.
func runRename(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("rename")
	var sf scopeFlags
	sf.register(fs, "rename in")
	pos, err := inv.jsonArgs(fs, args, arity{2, 2, false, "rename takes OLD and NEW"})
	if err != nil {
		return err
	}
	old, name := pos[0], pos[1]
	scope, err := sf.resolve(inv)
	if err != nil {
		return err
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	path := scopePath(inv, home, scope == config.ScopeProject)
	ap, err := config.OpenApprovals(home)
	if err != nil {
		return inv.approvalsUnavailable(old, home, err)
	}
	was := config.NeverApproved
	for _, s := range cfg.Servers {
		if s.Name == old && s.Source == path {
			was = ap.State(s)
		}
	}
	s, err := config.RenameServerContext(ctx, path, scope, old, name)
	if err != nil {
		f := inv.configFailure(old, err).(*failure)
		if o := cfg.Server(old); o != nil && errors.Is(err, config.ErrNotFound) && o.Scope != scope {
			f.hints = []string{"it is in the " + o.Scope + " scope: " + inv.suggest("rename", "--scope", o.Scope, old, name)}
		}
		return f
	}
	approval := "not approved (" + was.String() + "): review it with " + inv.suggest("get", name) + ", then " + inv.suggest("approve", name)
	if was == config.Approved {
		if err := ap.Approve(s); err != nil {
			return &failure{code: ExitConfig, server: name, phase: manager.PhaseApproval, err: err}
		}
		approval = "still approved"
	}
	if inv.json {
		inv.writeJSON(configDoc{inv.header(true), []configResult{{Server: name, Source: path, Scope: scope, Result: "renamed",
			Reason: "from " + old + "; " + approval, Warnings: []string{}}}})
		return nil
	}
	inv.printf("renamed %s to %s in %s; %s\n", safe.Sanitize(old), safe.Sanitize(name), safe.Sanitize(path), approval)
	return nil
}

func runEnable(ctx context.Context, inv *invocation, args []string) error {
	return inv.setEnabled(ctx, args, true)
}

func runDisable(ctx context.Context, inv *invocation, args []string) error {
	return inv.setEnabled(ctx, args, false)
}

func (inv *invocation) setEnabled(ctx context.Context, args []string, on bool) error {
	fs := newFlagSet(inv.cmd.name)
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, _, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	s, _, err := inv.findServer(pos)
	if err != nil {
		return err
	}
	if err := config.SetEnabledContext(ctx, s.Source, s.Name, on); err != nil {
		return inv.configFailure(s.Name, err)
	}
	result := inv.cmd.name + "d"
	if inv.json {
		inv.writeJSON(configDoc{inv.header(true), []configResult{{Server: s.Name, Source: s.Source, Scope: s.Scope, Result: result, Warnings: []string{}}}})
		return nil
	}
	inv.printf("%s %s in %s\n", result, safe.Sanitize(s.Name), safe.Sanitize(s.Source))
	return nil
}

// nonNil is list, or an empty list for nil: JSON gets [], not null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
