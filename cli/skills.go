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

// skillsDoc is `mcpwire skills --json`.
type skillsDoc struct {
	docHeader
	Server string       `json:"server"`
	Skills []skillBrief `json:"skills"`
}

// skillBrief is one skill of a listing: nothing of it was read.
type skillBrief struct {
	Name        string     `json:"name"`
	URI         string     `json:"uri"`
	Description string     `json:"description"`
	Frontmatter any        `json:"frontmatter"`
	Dynamic     bool       `json:"dynamic"` // its files are listed on demand
	Files       []fileInfo `json:"files"`   // [] when dynamic
}

// fileInfo is one file of a skill.
type fileInfo struct {
	_ [0]func() // not comparable: no equality function in the binary

	URI    string `json:"uri"`
	Path   string `json:"path"`   // inside the skill's folder
	Size   int64  `json:"size"`   // bytes
	Digest string `json:"digest"` // "sha256:…"; "" for a dynamic skill's file
}

// skillDoc is `mcpwire skill --json`.
type skillDoc struct {
	docHeader
	Server string     `json:"server"`
	Name   string     `json:"name"`
	URI    string     `json:"uri"`
	Files  []fileInfo `json:"files"`
	Out    string     `json:"out"` // the folder --out wrote the skill to; "" without it
}

// skillsOf checks that the server offers skills and lists them.
func (inv *invocation) skillsOf(ctx context.Context, t *target, conn *manager.Conn) ([]*protocol.SkillEntry, error) {
	if ok, _ := conn.SkillsOffered(); !ok {
		f := fail(ExitServer, manager.PhaseList, fmt.Errorf("%s does not offer skills (no %s extension in its capabilities)", t.spec.Name, protocol.ExtSkills))
		f.server = t.spec.Name
		return nil, f
	}
	skills, err := conn.ListSkills(ctx)
	if err != nil {
		return nil, inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
	}
	return skills, nil
}

func runSkills(ctx context.Context, inv *invocation, args []string) error {
	r, err := inv.openSession(ctx, "skills", args, nil, noMoreArgs)
	if err != nil {
		return err
	}
	inv.atExit(r.close)
	skills, err := inv.skillsOf(ctx, r.t, r.conn)
	if err != nil {
		return err
	}
	doc := &skillsDoc{docHeader: inv.header(true), Server: r.t.spec.Name, Skills: []skillBrief{}}
	for _, e := range skills {
		b := skillBrief{Name: e.Name(), URI: e.URI, Description: e.Description(), Dynamic: e.Dynamic, Files: []fileInfo{}}
		if fm, err := decodeJSON(e.Frontmatter); err == nil {
			b.Frontmatter = fm
		}
		for _, f := range e.Files {
			b.Files = append(b.Files, fileInfo{URI: f.URI, Path: strings.TrimPrefix(f.URI, strings.TrimSuffix(e.URI, "SKILL.md")), Size: f.Size, Digest: f.Digest})
		}
		doc.Skills = append(doc.Skills, b)
	}
	if inv.json {
		inv.writeJSON(doc)
		return nil
	}
	if len(doc.Skills) == 0 {
		inv.printf("%s offers no skills\n", safe.Sanitize(r.t.spec.Name))
		return nil
	}
	rows := [][]string{{"NAME", "FILES", "DESCRIPTION"}}
	for _, b := range doc.Skills {
		files := fmt.Sprint(len(b.Files))
		if b.Dynamic {
			files = "dynamic"
		}
		rows = append(rows, []string{safe.Sanitize(b.Name), files, oneLine(b.Description, 100)})
	}
	inv.table(rows)
	return nil
}

func runSkill(ctx context.Context, inv *invocation, args []string) error {
	var out string
	var force bool
	r, err := inv.openSession(ctx, "skill", args, func(fs *flagSetT) {
		fs.StringVar(&out, "out", "", "write the verified files to DIR/NAME/…; never through a symbolic link, never over a file")
		fs.BoolVar(&force, "force", false, "with --out: replace files that exist")
	}, nArgs(1, "the skill's NAME"))
	if err != nil {
		return err
	}
	inv.atExit(r.close)
	t, conn, name := r.t, r.conn, r.rest[0]
	skills, err := inv.skillsOf(ctx, t, conn)
	if err != nil {
		return err
	}
	var entry *protocol.SkillEntry
	var names []string
	for _, e := range skills {
		names = append(names, e.Name())
		if e.Name() == name || e.URI == name {
			entry = e
			break
		}
	}
	if entry == nil {
		f := usageErr("%s has no skill %q", t.spec.Name, name)
		f.server = t.spec.Name
		if c := closest(name, names); c != "" {
			f.hints = append(f.hints, "did you mean "+c+"?")
		}
		f.hints = append(f.hints, "list them with: "+inv.suggest("skills")+" "+targetWords(t, &r.tf))
		return f
	}
	sk, err := conn.LoadSkill(ctx, entry)
	if err != nil {
		return inv.serverFailure(t, conn.Explain(manager.PhaseCall, err))
	}
	doc := &skillDoc{docHeader: inv.header(true), Server: t.spec.Name, Name: entry.Name(), URI: entry.URI, Files: []fileInfo{}}
	digests := map[string]string{}
	for _, f := range entry.Files {
		digests[f.URI] = f.Digest
	}
	for _, f := range sk.Files {
		doc.Files = append(doc.Files, fileInfo{URI: f.URI, Path: f.Path, Size: int64(len(f.Data)), Digest: digests[f.URI]})
	}
	if out != "" {
		if !filepath.IsAbs(out) {
			out = filepath.Join(inv.env.Dir, out)
		}
		dir := filepath.Join(out, entry.Name())
		if err := writeSkill(dir, sk.Files, force); err != nil {
			return err
		}
		doc.Out = dir
	}
	switch {
	case inv.json:
		inv.writeJSON(doc)
	case out != "":
		inv.eprintf("wrote %d verified file(s) of %s to %s\n", len(sk.Files), safe.Sanitize(entry.Name()), doc.Out)
	default:
		inv.writeLine(safe.SanitizeText(string(sk.Files[0].Data)))
		for _, f := range sk.Files[1:] {
			inv.eprintf("also: %s (%d bytes, verified; --out DIR writes it)\n", safe.Sanitize(f.Path), len(f.Data))
		}
	}
	return nil
}

// writeSkill writes a skill's files under dir: every folder it makes or
// goes through under dir's parent must be a real folder (never a symbolic
// link), and without force no file may exist yet; all is checked before
// anything is written.
func writeSkill(dir string, files []protocol.SkillContent, force bool) error {
	root := filepath.Dir(dir)
	var targets []string
	for _, f := range files {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if rel, err := filepath.Rel(dir, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fail(ExitServer, manager.PhaseCall, fmt.Errorf("the skill's file %s lies outside %s", safe.Sanitize(f.Path), dir))
		}
		if err := realFolders(root, filepath.Dir(target)); err != nil {
			return err
		}
		if _, err := os.Lstat(target); err == nil && !force {
			return usageErr("--out: %s exists; give --force to replace it", target)
		}
		targets = append(targets, target)
	}
	write := safe.WriteNew
	if force {
		write = safe.WriteAtomic // replaces a link at the file, never follows it
	}
	for i, f := range files {
		if err := os.MkdirAll(filepath.Dir(targets[i]), 0o755); err != nil {
			return fail(ExitServer, manager.PhaseCall, err)
		}
		if err := write(targets[i], f.Data, 0o644); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return usageErr("--out: %s exists; give --force to replace it", targets[i])
			}
			return fail(ExitServer, manager.PhaseCall, err)
		}
	}
	return nil
}

// realFolders checks each existing folder from root down to dir: none may
// be a symbolic link or something other than a folder.
func realFolders(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return fail(ExitServer, manager.PhaseCall, err)
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // made by MkdirAll from here on
		case err != nil:
			return fail(ExitServer, manager.PhaseCall, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return usageErr("--out: %s is a symbolic link; mcpwire does not write through it", cur)
		case !fi.IsDir():
			return usageErr("--out: %s is not a folder", cur)
		}
	}
	return nil
}
