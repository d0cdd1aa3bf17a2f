package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// importServer is one server of `mcpwire import --json`.
type importServer struct {
	Name        string `json:"server"`
	Source      string `json:"source"`      // the client's file
	SourceScope string `json:"sourceScope"` // user, project, local (claude-code) or file
	// Origin is whose text the entry is: "user" (the client's user
	// scope) or "project" (every other scope): an entry of project origin
	// is written with "importedFrom" and reviewed as the project's text
	// wherever it goes.
	Origin    string   `json:"origin"`
	Transport string   `json:"transport"`
	Target    string   `json:"target"`
	Action    string   `json:"action"` // add, added, skip, failed
	Reason    string   `json:"reason"` // why skipped or failed; "" otherwise
	Notes     []string `json:"notes"`
	// Definition is the entry as its review shows it: a project's
	// literal credentials masked (Bear…(21)), the user's own values
	// masked by the redactor.
	Definition config.ImportEntry `json:"definition"`

	entry config.ImportEntry // what is written
}

// importReport is `mcpwire import --json`.
type importReport struct {
	docHeader
	From    string          `json:"from"`
	Files   []string        `json:"files"` // the client's files read
	File    string          `json:"file"`  // mcpwire's file the servers go to
	Scope   string          `json:"scope"`
	Written bool            `json:"written"`
	Servers []*importServer `json:"servers"`
}

func runImport(ctx context.Context, inv *invocation, args []string) error {
	flags := newFlagSet("import")
	var from, scope string
	var write, project bool
	flags.StringVar(&from, "from", "", "the client to import from: "+strings.Join(config.ImportClients(), ", "))
	flags.BoolVar(&write, "write", false, "add the servers (default: only show what would be added)")
	flags.BoolVar(&project, "project", false, "add to ./.mcp.json (default: the home folder's .mcp.json)")
	flags.StringVar(&scope, "scope", "", "user or project: the same as --project when project")
	flags.StringVar(&scope, "s", "", "short for --scope")
	flags.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, hasTail, err := parseArgs(flags, args)
	if err != nil {
		return err
	}
	switch {
	case from == "":
		return usageErr("--from CLIENT is needed: one of %s", strings.Join(config.ImportClients(), ", "))
	case !slices.Contains(config.ImportClients(), from):
		f := usageErr("unknown client %q for --from", from)
		if s := closest(from, config.ImportClients()); s != "" {
			f.hints = append(f.hints, "did you mean --from "+s+"?")
		}
		f.hints = append(f.hints, "the clients: "+strings.Join(config.ImportClients(), ", "))
		return f
	case hasTail || len(pos) > 1:
		return usageErr("import takes at most one FILE")
	}
	switch scope {
	case "", "user", "global":
	case "project":
		project = true
	case "local":
		return usageErr("--scope local is Claude Code's; mcpwire has user (the home folder) and project (./.mcp.json)")
	default:
		return usageErr("--scope takes user or project, not %q", scope)
	}
	userHome, _ := os.UserHomeDir()
	if h := inv.env.Getenv("HOME"); h != "" && runtime.GOOS != "windows" {
		userHome = h
	}
	type source struct{ path, scope, origin string }
	var sources []source
	if len(pos) == 1 {
		p := pos[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(inv.env.Dir, p)
		}
		// A file given by hand is a project's (someone else's text),
		// unless it is the client's own user file.
		origin := config.OriginProject
		user, _ := config.ImportPaths(from, config.ImportLocation{GOOS: runtime.GOOS, UserHome: userHome, Getenv: inv.env.Getenv})
		for _, u := range user {
			if filepath.IsAbs(u) && filepath.Clean(u) == filepath.Clean(p) {
				origin = config.OriginUser
			}
		}
		sources = []source{{p, "file", origin}}
	} else {
		paths, err := config.ImportPaths(from, config.ImportLocation{GOOS: runtime.GOOS, UserHome: userHome, Dir: inv.env.Dir, Getenv: inv.env.Getenv})
		if err != nil {
			return usageErr("%v", err)
		}
		user, _ := config.ImportPaths(from, config.ImportLocation{GOOS: runtime.GOOS, UserHome: userHome, Getenv: inv.env.Getenv})
		for i, p := range paths {
			sc := "project"
			if i < len(user) && p == user[i] {
				sc = "user"
			}
			sources = append(sources, source{p, sc, ""})
		}
	}
	rep := &importReport{docHeader: inv.header(true), From: from, Files: []string{}, Servers: []*importServer{}}
	var looked []string
	byName := map[string]*importServer{}
	for _, src := range sources {
		read := safe.ReadFile
		if src.scope == "project" {
			// A repository's file: no link out of the project folder.
			read = func(p string, k safe.Kind) ([]byte, error) { return safe.ReadFileIn(inv.env.Dir, p, k) }
		}
		data, err := read(src.path, safe.KindImport)
		if errors.Is(err, fs.ErrNotExist) && src.scope != "file" {
			looked = append(looked, src.path)
			continue
		}
		if err != nil {
			return fail(ExitConfig, manager.PhaseConfig, fmt.Errorf("reading %s: %v", src.path, errors.Unwrap(err)))
		}
		rep.Files = append(rep.Files, src.path)
		got, err := config.Import(from, src.path, data, config.ImportOptions{Scope: src.scope, Dir: inv.env.Dir, UserHome: userHome, Origin: src.origin})
		if err != nil {
			return fail(ExitConfig, manager.PhaseConfig, err, "check that the file is "+from+"'s, or give the right one: "+inv.suggest("import", "--from", from)+" FILE")
		}
		for _, im := range got {
			s := &importServer{Name: im.Name, Source: im.Source, SourceScope: im.Scope, Origin: im.Origin, Action: "add", Reason: im.Skip,
				Notes: append([]string{}, im.Notes...), Definition: im.Entry, entry: im.Entry}
			if s.Reason != "" {
				s.Action = "skip"
			}
			s.Transport, s.Target = importedTarget(im.Entry)
			if im.Origin == config.OriginProject {
				// A project's text: shown as its review will show it.
				s.Definition = im.Entry.Reviewed()
				s.Notes = append(s.Notes, "a project's definition ("+im.Scope+" scope of "+from+"): written with importedFrom, reviewed as the project's text, not as yours")
			} else {
				// The user's own file: its literal values are secrets.
				for _, v := range im.Entry.Env {
					inv.addSecrets(literalSecrets(v)...)
				}
				for _, v := range im.Entry.Headers {
					inv.addSecrets(literalSecrets(v)...)
				}
			}
			// A later file (the project's) wins over an earlier one, as
			// in the client.
			if old, ok := byName[s.Name]; ok {
				old.Action, old.Reason = "skip", "replaced by the entry of the same name in "+src.path
			}
			byName[s.Name] = s
			rep.Servers = append(rep.Servers, s)
		}
	}
	if len(rep.Files) == 0 {
		return fail(ExitConfig, manager.PhaseConfig, fmt.Errorf("no %s configuration found (looked in %s)", from, strings.Join(looked, ", ")),
			"give the file: "+inv.suggest("import", "--from", from)+" FILE")
	}
	cfg, home, err := inv.loadConfig()
	if err != nil {
		return err
	}
	rep.File = scopePath(inv, home, project)
	rep.Scope = config.ScopeUser
	if project {
		rep.Scope = config.ScopeProject
	}
	for _, s := range rep.Servers {
		if s.Action != "add" {
			continue
		}
		for _, have := range cfg.Servers {
			if have.Name == s.Name && have.Scope == rep.Scope {
				s.Action, s.Reason = "skip", "a server of that name is already in "+have.Source+"; remove it first ("+inv.suggest("remove", s.Name)+") to import this one"
			}
		}
	}
	if write {
		rep.Written = true
		for _, s := range rep.Servers {
			if s.Action != "add" {
				continue
			}
			if _, err := config.AddServerContext(ctx, rep.File, rep.Scope, s.Name, s.entry); err != nil {
				s.Action, s.Reason = "failed", err.Error()
				rep.OK = false
				continue
			}
			s.Action = "added"
		}
		if !rep.OK {
			inv.exit = ExitConfig
		}
	}
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printImport(rep)
	return nil
}

// literalSecrets are the literal parts of a value from another client's
// file, which may be secrets: the text outside its ${VAR} references, and
// the credential after a scheme word ("Bearer abc" gives abc too). The
// references themselves are shown, so that a person sees what to set.
func literalSecrets(v string) []string {
	var out []string
	for _, part := range literalParts(v) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		scheme, cred, _ := strings.Cut(part, " ")
		isScheme := strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "basic") || strings.EqualFold(scheme, "token")
		switch {
		case isScheme:
			if cred = strings.TrimSpace(cred); cred != "" {
				out = append(out, cred)
			}
		default:
			out = append(out, part)
		}
	}
	return out
}

// literalParts splits v at its ${…} references, which it leaves out.
func literalParts(v string) []string {
	var out []string
	for {
		i := strings.Index(v, "${")
		j := strings.IndexByte(v[max(i, 0):], '}')
		if i < 0 || j < 0 {
			return append(out, v)
		}
		out = append(out, v[:i])
		v = v[i+j+1:]
	}
}

// importedTarget is the transport and target of an imported entry.
func importedTarget(e config.ImportEntry) (transport, target string) {
	if e.Command != "" {
		return config.TypeStdio, strings.Join(append([]string{e.Command}, e.Args...), " ")
	}
	t := e.Type
	if t == "" {
		t = config.TypeHTTP
	}
	return t, safe.RedactURL(e.URL)
}

func (inv *invocation) printImport(rep *importReport) {
	counts := map[string]int{}
	for _, s := range rep.Servers {
		counts[s.Source]++
	}
	var from []string
	for _, f := range rep.Files {
		from = append(from, fmt.Sprintf("%s (%s)", f, plural(counts[f], "server")))
	}
	inv.printf("%s %s\n", inv.bold("from "+rep.From+":"), strings.Join(from, ", "))
	if len(rep.Servers) == 0 {
		inv.printf("no MCP servers in it; nothing to import\n")
		return
	}
	rows := [][]string{{"NAME", "TRANSPORT", "TARGET", "ACTION"}}
	var adding, theirs []string
	for _, s := range rep.Servers {
		action := s.Action
		switch s.Action {
		case "add", "added":
			adding = append(adding, s.Name)
			if s.Origin == config.OriginProject {
				theirs = append(theirs, s.Name)
				action += " (a project's)"
			}
			if s.Definition.Disabled {
				action += " (disabled)"
			}
		default:
			action += ": " + s.Reason
		}
		rows = append(rows, []string{safe.Sanitize(s.Name), s.Transport, oneLine(s.Target, 60), oneLine(action, 120)})
	}
	inv.table(rows)
	noted := false
	for _, s := range rep.Servers {
		for _, n := range s.Notes {
			if !noted {
				inv.printf("\nnotes:\n")
				noted = true
			}
			inv.printf("  %s: %s\n", safe.Sanitize(s.Name), safe.Sanitize(n))
		}
	}
	inv.printf("\n")
	switch {
	case len(adding) == 0:
		inv.printf("nothing to add to %s (%s scope)\n", rep.File, rep.Scope)
	case !rep.Written:
		inv.printf("would add %s to %s (%s scope); nothing was written.\n", plural(len(adding), "server"), rep.File, rep.Scope)
		words := []string{"import", "--from", rep.From}
		if len(rep.Files) == 1 && len(rep.Servers) > 0 && rep.Servers[0].SourceScope == "file" {
			words = append(words, rep.Files[0])
		}
		words = append(words, "--write")
		if rep.Scope == config.ScopeProject {
			words = append(words, "--project")
		}
		inv.printf("to add them: %s\n", inv.suggest(words...))
	default:
		inv.printf("added %s to %s (%s scope); they run only once approved.\n", strings.Join(adding, ", "), rep.File, rep.Scope)
		inv.printf("review each (%s NAME), then: %s NAME\n", inv.suggest("get"), inv.suggest("approve"))
	}
	if len(theirs) > 0 && len(adding) > 0 {
		inv.printf("%s came from a project's file: written with importedFrom, each is reviewed as that project's text wherever it goes, and approved by name only\n",
			safe.Sanitize(strings.Join(theirs, ", ")))
	}
}
