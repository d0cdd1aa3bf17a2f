package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// A diffSide is one side of `mcpwire diff`: a snapshot file or a live
// server, snapshotted on the spot.
type diffSide struct {
	_ [0]func() // not comparable: no equality function in the binary

	Source string `json:"source"` // as given: the file, the name, the URL, "--demo", "-- COMMAND…"
	Kind   string `json:"kind"`   // "file" or "live"
	Server string `json:"server"`
	// ServerInfo is the server's identity from the snapshot.
	ServerInfo snapServerInfo `json:"serverInfo"`
	snap       *snapshot
	took       time.Duration // to connect and list a live side
}

// diffReport is `mcpwire diff --json`.
type diffReport struct {
	docHeader
	Old        *diffSide `json:"old"`
	New        *diffSide `json:"new"`
	FailOn     string    `json:"failOn"` // "breaking", "any" or "" (never)
	Breaking   int       `json:"breaking"`
	Compatible int       `json:"compatible"`
	Accepted   int       `json:"accepted"`
	Changes    []change  `json:"changes"`
}

func runDiff(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("diff")
	var tf targetFlags
	tf.register(fs)
	var failOn string
	var markdown bool
	fs.StringVar(&failOn, "fail-on", "", "exit 1 when there are `breaking|any` changes (default: never)")
	fs.BoolVar(&markdown, "markdown", false, "print Markdown, for a pull-request comment")
	var format string
	fs.StringVar(&format, "format", "", "print `text|markdown|github|json`: github writes GitHub Actions annotations (::error, ::notice)")
	var acceptFile string
	fs.StringVar(&acceptFile, "accept", "", "known changes that do not fail the job: `FILE` of lines KIND NAME (tool echo, prompt greet, …)")
	inv.junitFlag(fs)
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch format {
	case "", "text":
	case "markdown":
		markdown = true
	case "json":
		tf.json = true
	case "github":
		if markdown || tf.json {
			return usageErr("give one of --format github, --json, --markdown")
		}
	default:
		return usageErr("--format takes text, markdown, github or json, not %q", format)
	}
	inv.json = tf.json
	switch failOn {
	case "", "breaking", "any":
	default:
		return usageErr("--fail-on takes breaking or any, not %q", failOn)
	}
	if markdown && inv.json {
		return usageErr("give --json or --markdown, not both")
	}
	// The sides in the order given: positionals, then --demo, then the
	// command after --.
	var sides []sideArg
	for _, p := range pos {
		sides = append(sides, sideArg{word: p})
	}
	if tf.demo.mode != "" {
		sides = append(sides, sideArg{demo: tf.demo.mode})
	}
	if hasTail {
		sides = append(sides, sideArg{tail: tail, hasTail: true})
	}
	if len(sides) != 2 {
		return usageErr("diff takes two sides, OLD and NEW: snapshot files or live TARGETs (got %d)", len(sides))
	}
	var accept []acceptRule
	if acceptFile != "" {
		if accept, err = readAccept(inv.env.Dir, acceptFile); err != nil {
			return err
		}
	}
	rep := &diffReport{docHeader: inv.header(true), FailOn: failOn, Changes: []change{}}
	// Files first: a live side declares what a snapshot file's client
	// declared, so that the server offers it the same surface.
	got := make([]*diffSide, len(sides))
	for pass := 0; pass < 2; pass++ {
		for i, sa := range sides {
			if got[i] != nil || (pass == 0 && !sa.maybeFile()) {
				continue
			}
			stf := tf
			stf.demo = demoFlag{mode: sa.demo}
			stf.pinned = pinnedClient(got)
			side, err := inv.diffSide(ctx, &stf, sa.word, sa.tail, sa.hasTail, pass == 0)
			if err != nil {
				return err
			}
			got[i] = side
		}
	}
	rep.Old, rep.New = got[0], got[1]
	if a, b := rep.Old.snap.Client, rep.New.snap.Client; a != nil && b != nil && !a.Same(b) {
		inv.say("warning: the two sides were taken with different client declarations (revision, capabilities or roots): a change may come from the client, not the server\n")
	}
	changes, err := surface.Diff(rep.Old.snap, rep.New.snap)
	if err != nil {
		return fail(ExitUsage, phaseUsage, err)
	}
	rep.Changes = nonNil(changes)
	for i := range rep.Changes {
		c := &rep.Changes[i]
		switch {
		case accepted(accept, c):
			c.Accepted = true
			rep.Accepted++
		case c.Class == classBreaking:
			rep.Breaking++
		default:
			rep.Compatible++
		}
	}
	tripped := (failOn == "breaking" && rep.Breaking > 0) || (failOn == "any" && rep.Breaking+rep.Compatible > 0)
	rep.OK = !tripped
	if tripped {
		inv.exit = ExitServer
	}
	if inv.junit != nil {
		inv.diffJUnit(rep)
	}
	switch {
	case inv.json:
		inv.writeJSON(rep)
	case markdown:
		inv.printf("%s", diffMarkdown(rep))
	case format == "github":
		inv.printf("%s", diffGitHub(rep))
	default:
		inv.printDiff(rep)
	}
	if tripped && !inv.json && format != "github" {
		inv.say("error: --fail-on %s: %s\n", failOn, changeSummary(rep))
	}
	return nil
}

// A sideArg is one side as given: a word (a file, a name, a URL), --demo,
// or the command after --.
type sideArg struct {
	word, demo string
	tail       []string
	hasTail    bool
}

// maybeFile says whether the side may be a snapshot file.
func (sa sideArg) maybeFile() bool {
	return sa.word != "" && sa.demo == "" && !sa.hasTail && !isURL(sa.word)
}

// pinnedClient is the client declared by the first snapshot file loaded
// that recorded one.
func pinnedClient(sides []*diffSide) *surface.Client {
	for _, s := range sides {
		if s != nil && s.Kind == "file" && s.snap.Client != nil {
			return s.snap.Client
		}
	}
	return nil
}

// diffSide loads one side: a snapshot file, or a live server.
// With filesOnly, a side that is not a file is left for later (nil).
func (inv *invocation) diffSide(ctx context.Context, tf *targetFlags, word string, tail []string, hasTail, filesOnly bool) (*diffSide, error) {
	switch {
	case tf.demo.mode == "http":
		word = "--demo=http"
	case tf.demo.mode != "":
		word = "--demo"
	case hasTail:
		word = "-- " + strings.Join(tail, " ")
	case !isURL(word):
		path := word
		if !filepath.IsAbs(path) {
			path = filepath.Join(inv.env.Dir, path)
		}
		data, err := safe.ReadFile(path, safe.KindSnapshot)
		switch {
		case err == nil:
			snap, err := readSnapshot(word, data)
			if err != nil {
				return nil, fail(ExitUsage, phaseUsage, err)
			}
			return &diffSide{Source: word, Kind: "file", Server: snap.Server, ServerInfo: snap.ServerInfo, snap: snap}, nil
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fail(ExitUsage, phaseUsage, fmt.Errorf("reading %s: %v", word, errors.Unwrap(err)))
		case strings.HasSuffix(word, ".json") || strings.ContainsAny(word, `/\`):
			return nil, fail(ExitUsage, phaseUsage, fmt.Errorf("no snapshot file %s", word),
				"make one with: "+inv.suggest("snapshot")+" TARGET -o "+word)
		}
	}
	if filesOnly {
		return nil, nil
	}
	start := time.Now()
	var pos []string
	if word != "" && !hasTail && tf.demo.mode == "" {
		pos = []string{word}
	}
	t, _, err := inv.resolveTarget(ctx, tf, pos, tail, hasTail)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	conn, err := inv.connect(ctx, t, tf, protocol.Options{})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	decl := clientDecl{elicit: "none", sample: "none"}
	if tf.pinned != nil && tf.pinned.DeclaresElicitation() {
		decl.elicit = "decline"
	}
	snap, err := inv.takeSnapshot(ctx, t, tf, conn, decl)
	if err != nil {
		return nil, err
	}
	return &diffSide{Source: word, Kind: "live", Server: snap.Server, ServerInfo: snap.ServerInfo, snap: snap, took: time.Since(start)}, nil
}

// changeSummary says "2 breaking changes, 1 compatible change".
func changeSummary(rep *diffReport) string {
	if len(rep.Changes) == 0 {
		return "no changes"
	}
	s := plural(rep.Breaking, "breaking change") + ", " + plural(rep.Compatible, "compatible change")
	if rep.Accepted > 0 {
		s += ", " + plural(rep.Accepted, "accepted change")
	}
	return s
}

// sideName names a side for people: its source, and the server's
// identity when the source does not say it.
func sideName(s *diffSide) string {
	id := s.ServerInfo.Name
	if s.ServerInfo.Version != "" {
		id += " " + s.ServerInfo.Version
	}
	return fmt.Sprintf("%s (%s)", s.Source, id)
}

// changeLine is one change in one line: "tool echo: argument text: …".
func changeLine(c change) string {
	what := c.Item
	if c.Item == "resourceTemplate" {
		what = "resource template"
	}
	return what + " " + c.Name + ": " + c.Message
}

func (inv *invocation) printDiff(rep *diffReport) {
	inv.printf("%s %s → %s\n", inv.bold("diff"), safe.Sanitize(sideName(rep.Old)), safe.Sanitize(sideName(rep.New)))
	if len(rep.Changes) == 0 {
		inv.printf("no changes\n")
		return
	}
	section := func(class, title, mark string) {
		var lines []string
		for _, c := range rep.Changes {
			switch {
			case class == "accepted" && c.Accepted:
				lines = append(lines, acceptedLine(c))
			case c.Class == class && !c.Accepted:
				lines = append(lines, changeLine(c))
			}
		}
		if len(lines) == 0 {
			return
		}
		inv.printf("\n%s (%d)\n", inv.bold(title), len(lines))
		for _, l := range lines {
			inv.printf("  %s %s\n", mark, oneLine(l, 300))
		}
	}
	section(classBreaking, "Breaking", inv.red("✗"))
	section(classCompatible, "Compatible", inv.green("+"))
	section("accepted", "Accepted (--accept)", "~")
	inv.printf("\n%s\n", changeSummary(rep))
}

// diffMarkdown renders the diff for a pull-request comment. Every string
// that is not mcpwire's own words (a side's source and server, an item's
// name, a change's message, which quotes the server) goes through the
// Markdown escaper of its place: safe.MarkdownCode in a code span of a
// cell, safe.MarkdownText elsewhere; so no server text opens a comment
// that hides the rows after it, HTML, a link or an image
// (TestEscaperMarkdownWriters holds this function to that).
func diffMarkdown(rep *diffReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### MCP server surface: %s\n\n", changeSummary(rep))
	fmt.Fprintf(&b, "%s → %s\n\n", safe.MarkdownText(sideName(rep.Old)), safe.MarkdownText(sideName(rep.New)))
	if len(rep.Changes) == 0 {
		b.WriteString("No changes.\n")
		return b.String()
	}
	b.WriteString("| | item | change |\n|---|---|---|\n")
	for _, c := range rep.Changes {
		class := "compatible"
		switch {
		case c.Accepted && c.Class == classBreaking:
			class = "accepted breaking"
		case c.Accepted:
			class = "accepted compatible"
		case c.Class == classBreaking:
			class = "**breaking**"
		}
		what := c.Item
		if c.Item == "resourceTemplate" {
			what = "resource template"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s |\n", class, safe.MarkdownText(what), safe.MarkdownCode(c.Name), safe.MarkdownText(c.Message))
	}
	if rep.FailOn != "" {
		verdict := "passes"
		if !rep.OK {
			verdict = "fails"
		}
		fmt.Fprintf(&b, "\n`--fail-on %s` %s.\n", safe.MarkdownText(rep.FailOn), verdict)
	}
	return b.String()
}

// diffGitHub renders the diff as GitHub Actions workflow commands: an
// error for each change --fail-on counts (each breaking one by default),
// a notice for every other, and a last line with the summary; each
// anchored to the old side's file when it is one. Server text goes
// through safe.GitHubProperty in a property and safe.GitHubData in a
// message, so none ends the line or adds a property.
func diffGitHub(rep *diffReport) string {
	var b strings.Builder
	file := ""
	if rep.Old.Kind == "file" {
		file = ",file=" + safe.GitHubProperty(filepath.ToSlash(rep.Old.Source))
	}
	for _, c := range rep.Changes {
		level, title := "notice", "MCP "+c.Class+" change"
		switch {
		case c.Accepted:
			title = "MCP " + c.Class + " change (accepted)"
		case c.Class == classBreaking || rep.FailOn == "any":
			level = "error"
		}
		fmt.Fprintf(&b, "::%s title=%s%s::%s\n", level, safe.GitHubProperty(title), file, safe.GitHubData(changeLine(c)))
	}
	level := "notice"
	if !rep.OK {
		level = "error"
	}
	fmt.Fprintf(&b, "::%s title=MCP diff%s::%s\n", level, file, safe.GitHubData(sideName(rep.Old)+" → "+sideName(rep.New)+": "+changeSummary(rep)))
	return b.String()
}

// diffJUnit adds one test case per change that --fail-on counts (each
// breaking one by default, every one with --fail-on any), failed, so that
// the failures are the text's count ("7 breaking changes", 7 failures);
// and one passing case per other item compared (tools, prompts,
// resources, templates, the server), which holds its compatible and
// accepted changes.
func (inv *invocation) diffJUnit(rep *diffReport) {
	suite := inv.junit.suite("diff " + rep.Old.Source + " → " + rep.New.Source)
	type item struct{ kind, name string }
	var order []item
	changes := map[item][]change{}
	seen := map[item]bool{}
	addItem := func(it item) {
		if !seen[it] {
			seen[it] = true
			order = append(order, it)
		}
	}
	addItem(item{"server", rep.New.ServerInfo.Name})
	for _, s := range []*snapshot{rep.Old.snap, rep.New.snap} {
		for _, t := range s.Tools {
			addItem(item{"tool", t.Name})
		}
		for _, p := range s.Prompts {
			addItem(item{"prompt", p.Name})
		}
		for _, r := range s.Resources {
			addItem(item{"resource", r.URI})
		}
		for _, t := range s.ResourceTemplates {
			addItem(item{"resourceTemplate", t.URITemplate})
		}
	}
	for _, c := range rep.Changes {
		it := item{c.Item, c.Name}
		if c.Item == "server" {
			it.name = rep.New.ServerInfo.Name
		}
		addItem(it)
		changes[it] = append(changes[it], c)
	}
	for _, it := range order {
		var other []string
		failed := false
		for _, c := range changes[it] {
			line := c.Class + ": " + c.Message
			switch {
			case c.Accepted:
				other = append(other, "accepted "+line)
			case c.Class == classBreaking || rep.FailOn == "any":
				failed = true
				name := it.kind + " " + it.name
				if c.Path != "" {
					name += " " + c.Path
				}
				suite.fail("diff."+it.kind, name+" "+c.Change, 0, fmt.Sprintf("%s %s: %s", it.kind, it.name, line), line)
			default:
				other = append(other, line)
			}
		}
		if !failed {
			var took time.Duration
			if it.kind == "server" {
				took = rep.Old.took + rep.New.took // the time to take the live sides
			}
			suite.pass("diff."+it.kind, it.kind+" "+it.name, took, strings.Join(other, "\n"))
		}
	}
}
