package cli

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/config/registry"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// registryFlag is --registry: the base URL of an MCP Registry; else the
// home's defaults.registry; else the official one.
type registryFlag struct{ url string }

func (rf *registryFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&rf.url, "registry", "", "the MCP Registry's base `URL` (default: the home's defaults.registry, else "+registry.DefaultURL+")")
}

// registryURL resolves the registry to ask.
func (inv *invocation) registryURL(rf *registryFlag, home string) string {
	if rf.url != "" {
		return rf.url
	}
	if ap, err := config.OpenApprovals(home); err == nil {
		if d, err := ap.Defaults(); err == nil && d.Registry != "" {
			return d.Registry
		}
	}
	return registry.DefaultURL
}

// registryClient returns a client of u, or a usage failure for a URL
// that breaks the rules.
func (inv *invocation) registryClient(u string) (*registry.Client, error) {
	c, err := registry.New(u, nil)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return c, nil
}

// registryFailure is a failure to reach or read a registry.
func registryFailure(name string, err error) *failure {
	f := &failure{code: ExitConfig, server: name, phase: manager.PhaseConfig, err: err}
	var se *registry.StatusError
	var de *registry.DocumentError
	switch {
	case errors.Is(err, registry.ErrNotFound):
		f.hints = []string{"search the registry for the exact name: mcpwire search WORD"}
	case errors.As(err, &se), errors.As(err, &de):
	default:
		f.code, f.phase = ExitServer, manager.PhaseConnect
		f.hints = []string{"check the network, HTTPS_PROXY and NO_PROXY, or give another registry with --registry URL"}
	}
	return f
}

// bundles is the home's store of MCPB bundles.
func bundles(home string) *registry.Bundles {
	return &registry.Bundles{Dir: filepath.Join(home, "mcp-bundles")}
}

// searchDoc is `mcpwire search --json`.
type searchDoc struct {
	docHeader
	Registry string         `json:"registry"`
	Servers  []searchServer `json:"servers"`
	Skipped  int            `json:"skipped"`
}

type searchServer struct {
	Name          string   `json:"name"`
	Title         string   `json:"title"`
	Description   string   `json:"description"`
	Version       string   `json:"version"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage"`
	Packages      []string `json:"packages"`
	Remotes       []string `json:"remotes"`
}

func searchRow(e *registry.Entry) searchServer {
	s := searchServer{Name: e.Server.Name, Title: e.Server.Title, Description: e.Server.Description, Version: e.Server.Version,
		Status: e.Official.Status, StatusMessage: e.Official.StatusMessage, Packages: []string{}, Remotes: []string{}}
	for _, p := range e.Server.Packages {
		if !slices.Contains(s.Packages, p.RegistryType) {
			s.Packages = append(s.Packages, p.RegistryType)
		}
	}
	for _, r := range e.Server.Remotes {
		if !slices.Contains(s.Remotes, r.Type) {
			s.Remotes = append(s.Remotes, r.Type)
		}
	}
	return s
}

func runSearch(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("search")
	var rf registryFlag
	rf.register(fs)
	pos, err := inv.jsonArgs(fs, args, arity{0, 1, false, "search takes one TERM (a part of the names sought)"})
	if err != nil {
		return err
	}
	_, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	c, err := inv.registryClient(inv.registryURL(&rf, home))
	if err != nil {
		return err
	}
	term := ""
	if len(pos) == 1 {
		term = pos[0]
	}
	entries, skipped, err := c.Search(ctx, term)
	if err != nil && len(entries) == 0 {
		return registryFailure("", err)
	}
	rows := make([]searchServer, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, searchRow(e))
	}
	if inv.json {
		inv.writeJSON(searchDoc{inv.header(true), c.URL(), rows, skipped})
		return nil
	}
	if err != nil {
		inv.say("warning: %s\n", safe.Sanitize(err.Error()))
	}
	if len(rows) == 0 {
		inv.say("no server in %s has %q in its name\n", safe.Sanitize(c.URL()), safe.Sanitize(term))
		return nil
	}
	for _, r := range rows {
		via := append(append([]string{}, r.Packages...), r.Remotes...)
		status := ""
		if r.Status != registry.StatusActive {
			status = " [" + r.Status + "]"
		}
		inv.printf("%s %s%s  (%s)\n", inv.bold(safe.Sanitize(r.Name)), safe.Sanitize(r.Version), status, safe.Sanitize(strings.Join(via, ", ")))
		text := r.Description
		if r.Title != "" {
			text = r.Title + ": " + text
		}
		inv.printf("    %s\n", safe.Sanitize(text))
	}
	if skipped > 0 {
		inv.say("%d entries were not usable documents and are left out\n", skipped)
	}
	inv.printf("install one: %s\n", inv.suggest("install", "NAME"))
	return nil
}

// inputFlags are the values given for a server's declared inputs.
type inputFlags struct {
	env, headers, vars listFlag
}

func (xf *inputFlags) register(fs *flag.FlagSet) {
	fs.Var(&xf.env, "env", "an environment variable the server declares, `KEY=VALUE` (repeatable)")
	fs.Var(&xf.env, "e", "short for --env")
	fs.Var(&xf.headers, "header", "a header the server declares, `'Name: value'` (repeatable)")
	fs.Var(&xf.headers, "H", "short for --header")
	fs.Var(&xf.vars, "var", "a URL variable, argument or other input, `NAME=VALUE` (repeatable: a repeated argument takes each)")
}

// values reads the flags into registry.Values.
func (xf *inputFlags) values(inv *invocation) (registry.Values, error) {
	v := registry.Values{Env: map[string][]string{}, Headers: map[string][]string{}, Vars: map[string][]string{}}
	for _, kv := range xf.env {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return v, usageErr("--env wants KEY=VALUE")
		}
		v.Env[k] = append(v.Env[k], val)
		inv.addSecrets(val)
	}
	for _, h := range xf.headers {
		k, val, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return v, usageErr("--header wants 'Name: value'")
		}
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		v.Headers[k] = append(v.Headers[k], val)
		inv.addSecrets(config.SecretForms(val)...)
	}
	for _, kv := range xf.vars {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return v, usageErr("--var wants NAME=VALUE")
		}
		v.Vars[k] = append(v.Vars[k], val)
	}
	return v, nil
}

// localName is the entry's name in .mcp.json: --as, else the part of the
// registry name after its slash, made a valid name.
func localName(as, name string) (string, error) {
	if as != "" {
		return as, config.ValidName(as)
	}
	_, n, _ := strings.Cut(name, "/")
	var b strings.Builder
	for _, r := range n {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := strings.TrimLeft(b.String(), "-.")
	if len(out) > 64 {
		out = out[:64]
	}
	if err := config.ValidName(out); err != nil {
		return "", usageErr("no local name can be made of %q: give one with --as NAME", name)
	}
	return out, nil
}

// splitNameVersion splits NAME[@VERSION].
func splitNameVersion(arg string) (string, string) {
	if i := strings.LastIndexByte(arg, '@'); i > 0 {
		return arg[:i], arg[i+1:]
	}
	return arg, "latest"
}
