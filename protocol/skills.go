package protocol

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Skills (the io.modelcontextprotocol/skills extension, SEP-2640): a
// server that declares the extension lists skills with skills/list (and
// one with skills/get), each an entry with the skill's URI
// (skill://<path>/SKILL.md), its frontmatter, and its files with their
// sha256 digests and sizes (or "dynamic": found with
// resources/directory/read, where the server offers it). Files are
// resources, read only when a skill is loaded (LoadSkill), never ahead of
// that; SKILL.md first, and nothing more of a skill whose SKILL.md fails:
// each file must have its listed size and digest, and the frontmatter of
// SKILL.md must equal the entry's field by field.

// ExtSkills is the identifier of the Skills extension.
const ExtSkills = "io.modelcontextprotocol/skills"

// Limits of one skill, as the extension sets them for servers: files and
// total bytes. A skill over them is refused, never fetched in part.
const (
	MaxSkillFiles = 512
	MaxSkillBytes = 16 << 20
)

// maxDirectoryDepth bounds the folders a dynamic skill is walked into.
const maxDirectoryDepth = 8

// A SkillEntry is one skill as skills/list or skills/get gave it.
type SkillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Files are the skill's files (SKILL.md among them) with their
	// digests; none when Dynamic.
	Files []SkillFile `json:"-"`
	// Dynamic says the server lists the skill's files on demand
	// (resources: "dynamic").
	Dynamic bool            `json:"-"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// A SkillFile is one file of a skill entry.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"` // "sha256:<64 hex>"
	Size   int64  `json:"size"`
}

// UnmarshalJSON reads an entry, whose resources are a list or "dynamic".
func (e *SkillEntry) UnmarshalJSON(b []byte) error {
	type plain SkillEntry
	var w struct {
		plain
		Resources json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = SkillEntry(w.plain)
	if string(w.Resources) == `"dynamic"` {
		e.Dynamic = true
		return nil
	}
	if !declared(w.Resources) {
		return errors.New("a skill entry without resources")
	}
	return json.Unmarshal(w.Resources, &e.Files)
}

// Name is the skill's name: the folder that holds its SKILL.md.
func (e *SkillEntry) Name() string {
	dir := e.dir()
	return dir[strings.LastIndexByte(dir, '/')+1:]
}

// Description is the frontmatter's description, "" when it has none.
func (e *SkillEntry) Description() string {
	var fm struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(e.Frontmatter, &fm)
	return fm.Description
}

// dir is the skill's folder URI: its URI without /SKILL.md.
func (e *SkillEntry) dir() string { return strings.TrimSuffix(e.URI, "/SKILL.md") }

// SkillsOffered reports whether the server declared the Skills
// extension, and whether it serves resources/directory/read.
func (s *Session) SkillsOffered() (offered, directoryRead bool) {
	var ext map[string]json.RawMessage
	if json.Unmarshal(s.init.Capabilities.Extensions, &ext) != nil || !declared(ext[ExtSkills]) {
		return false, false
	}
	var opts struct {
		DirectoryRead bool `json:"directoryRead"`
	}
	_ = json.Unmarshal(ext[ExtSkills], &opts)
	return true, opts.DirectoryRead
}

// requireSkills refuses a skills request to a server without the
// extension.
func (s *Session) requireSkills(method string) error {
	if ok, _ := s.SkillsOffered(); !ok {
		return &CapabilityError{Method: method, Capability: "extensions." + ExtSkills}
	}
	return nil
}

// ListSkills lists the server's skills (skills/list, every page). No
// file of them is read.
func (s *Session) ListSkills(ctx context.Context) ([]*SkillEntry, error) {
	if err := s.requireSkills("skills/list"); err != nil {
		return nil, err
	}
	return collect(paginate(ctx, s, "skills/list", decodeSkills))
}

func decodeSkills(resp *jsonrpc.Response) ([]*SkillEntry, error) {
	var page struct {
		Skills []*SkillEntry `json:"skills"`
	}
	err := json.Unmarshal(resp.Result, &page)
	return dropNil(page.Skills), err
}

// GetSkill asks for one skill's entry by its URI (skills/get).
func (s *Session) GetSkill(ctx context.Context, uri string) (*SkillEntry, error) {
	if err := s.requireSkills("skills/get"); err != nil {
		return nil, err
	}
	raw, err := s.call(ctx, "skills/get", uriParams{uri}, nil)
	if err != nil {
		return nil, err
	}
	var res struct {
		Skill *SkillEntry `json:"skill"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.Skill == nil {
		return nil, &ResultError{Method: "skills/get", Err: fmt.Errorf("no skill entry: %v", err)}
	}
	return res.Skill, nil
}

// ReadDirectory lists the direct children of a folder resource
// (resources/directory/read, every page); a child folder has the mimeType
// inode/directory.
func (s *Session) ReadDirectory(ctx context.Context, uri string) ([]*Resource, error) {
	var out []*Resource
	seen := map[string]bool{}
	var cursor *string
	for page := 1; ; page++ {
		params := map[string]any{"uri": uri}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		raw, err := s.call(ctx, "resources/directory/read", params, nil)
		if err != nil {
			return nil, err
		}
		var res struct {
			Resources  []*Resource `json:"resources"`
			NextCursor *string     `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, &ResultError{Method: "resources/directory/read", Err: err}
		}
		out = append(out, dropNil(res.Resources)...)
		switch {
		case len(out) > MaxSkillFiles:
			return nil, fmt.Errorf("resources/directory/read %s: more than %d entries", uri, MaxSkillFiles)
		case res.NextCursor == nil || (*res.NextCursor == "" && s.era == EraLegacy):
			return out, nil
		case seen[*res.NextCursor] || page >= maxPages:
			return nil, &CursorLoopError{Method: "resources/directory/read", Cursor: *res.NextCursor, Page: page}
		}
		seen[*res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// A Skill is a skill loaded and verified: its files, SKILL.md first.
type Skill struct {
	Entry *SkillEntry
	Files []SkillContent
}

// A SkillContent is one verified file of a skill.
type SkillContent struct {
	URI  string
	Path string // relative to the skill's folder, slash-separated, clean
	Data []byte
}

// A SkillVerifyError says which file of a skill failed verification, and
// how; nothing of such a skill is used.
type SkillVerifyError struct {
	Skill string // the skill's URI
	File  string // the file's URI
	Why   string
}

func (e *SkillVerifyError) Error() string {
	if e.File == e.Skill {
		return fmt.Sprintf("skill %s: %s; the skill is not loaded", e.Skill, e.Why)
	}
	return fmt.Sprintf("skill %s: %s: %s; the skill is not loaded", e.Skill, e.File, e.Why)
}

// LoadSkill reads a skill's files and verifies each: SKILL.md first (its
// size, digest and frontmatter against the entry), then the others, each
// against its size and digest. A dynamic skill's files are found with
// resources/directory/read (the server must offer it); they carry no
// digests, so only SKILL.md's frontmatter is checked. Any failure is a
// *SkillVerifyError naming the file, and nothing after it is read.
func (s *Session) LoadSkill(ctx context.Context, e *SkillEntry) (*Skill, error) {
	if err := checkSkillURI(e.URI); err != nil {
		return nil, &SkillVerifyError{Skill: e.URI, File: e.URI, Why: err.Error()}
	}
	files := e.Files
	if e.Dynamic {
		var err error
		if files, err = s.dynamicFiles(ctx, e); err != nil {
			return nil, err
		}
	}
	if err := checkSkillFiles(e, files); err != nil {
		return nil, err
	}
	// SKILL.md first: nothing else of a skill whose manifest fails.
	for i, f := range files {
		if f.URI == e.URI {
			files[0], files[i] = files[i], files[0]
		}
	}
	sk := &Skill{Entry: e}
	for _, f := range files {
		data, err := s.readSkillFile(ctx, e, f)
		if err != nil {
			return nil, err
		}
		if f.URI == e.URI {
			if err := checkManifest(e, data); err != nil {
				return nil, err
			}
		}
		sk.Files = append(sk.Files, SkillContent{URI: f.URI, Path: strings.TrimPrefix(f.URI, e.dir()+"/"), Data: data})
	}
	return sk, nil
}

// checkSkillURI checks a skill's URI: skill://<path>/SKILL.md whose last
// folder is a skill name (1-64 of a-z, 0-9, '-', no leading, trailing or
// double '-').
func checkSkillURI(uri string) error {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok || !strings.HasSuffix(rest, "/SKILL.md") {
		return errors.New("not a skill:// URI ending in /SKILL.md")
	}
	name := path.Base(strings.TrimSuffix(rest, "/SKILL.md"))
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return fmt.Errorf("the skill name %s is not a valid name", quoteShort(name))
	}
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return fmt.Errorf("the skill name %s is not a valid name", quoteShort(name))
		}
	}
	return nil
}

// checkSkillFiles checks the list of a skill's files before any is read:
// SKILL.md among them, each inside the skill's folder with a clean
// relative path, once, within the limits.
func checkSkillFiles(e *SkillEntry, files []SkillFile) error {
	fail := func(file, why string) error { return &SkillVerifyError{Skill: e.URI, File: file, Why: why} }
	if len(files) > MaxSkillFiles {
		return fail(e.URI, fmt.Sprintf("%d files, more than %d", len(files), MaxSkillFiles))
	}
	var total int64
	seen := map[string]bool{}
	manifest := false
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.URI, e.dir()+"/")
		switch {
		case !ok || rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "../") || rel == ".." || strings.ContainsAny(rel, "\\\x00") || strings.HasPrefix(rel, "/"):
			return fail(f.URI, "not a file inside the skill's folder")
		case seen[rel]:
			return fail(f.URI, "listed twice")
		case f.Size < 0:
			return fail(f.URI, "a negative size")
		case !e.Dynamic && !validDigest(f.Digest):
			return fail(f.URI, fmt.Sprintf("the digest %s is not sha256:<64 hex digits>", quoteShort(f.Digest)))
		}
		seen[rel] = true
		manifest = manifest || f.URI == e.URI
		total += f.Size
	}
	switch {
	case !manifest:
		return fail(e.URI, "SKILL.md is not among the skill's files")
	case total > MaxSkillBytes:
		return fail(e.URI, fmt.Sprintf("%d bytes in all, more than %d", total, MaxSkillBytes))
	}
	return nil
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// readSkillFile reads one file and checks its size and digest (a
// dynamic skill's files have none to check).
func (s *Session) readSkillFile(ctx context.Context, e *SkillEntry, f SkillFile) ([]byte, error) {
	fail := func(why string) error { return &SkillVerifyError{Skill: e.URI, File: f.URI, Why: why} }
	res, err := s.ReadResource(ctx, f.URI)
	if err != nil {
		return nil, err
	}
	var data []byte
	for _, c := range res.Contents {
		if c.URI != "" && c.URI != f.URI {
			continue
		}
		switch {
		case c.Blob != "":
			b, err := base64.StdEncoding.DecodeString(c.Blob)
			if err != nil {
				return nil, fail("its blob is not base64")
			}
			data = b
		default:
			data = []byte(c.Text)
		}
		break
	}
	if data == nil && len(res.Contents) == 0 {
		return nil, fail("the server returned no contents")
	}
	if e.Dynamic {
		if len(data) > MaxSkillBytes {
			return nil, fail(fmt.Sprintf("%d bytes, more than %d", len(data), MaxSkillBytes))
		}
		return data, nil
	}
	if int64(len(data)) != f.Size {
		return nil, fail(fmt.Sprintf("%d bytes, but the entry says %d", len(data), f.Size))
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != f.Digest {
		return nil, fail(fmt.Sprintf("its digest is %s, but the entry says %s", got, f.Digest))
	}
	return data, nil
}

// checkManifest compares SKILL.md's frontmatter with the entry's, field
// by field (a field missing on one side is null there).
func checkManifest(e *SkillEntry, data []byte) error {
	fail := func(why string) error { return &SkillVerifyError{Skill: e.URI, File: e.URI, Why: why} }
	y, _, err := SplitFrontmatter(data)
	if err != nil {
		return fail(err.Error())
	}
	got, err := ParseFrontmatter(y)
	if err != nil {
		return fail(err.Error())
	}
	var want map[string]any
	if err := json.Unmarshal(e.Frontmatter, &want); err != nil || want == nil {
		return fail("the entry's frontmatter is not an object")
	}
	for _, k := range []string{"name", "description"} {
		if v, _ := got[k].(string); v == "" {
			return fail(fmt.Sprintf("the frontmatter has no %s", k))
		}
	}
	if got["name"] != e.Name() {
		return fail(fmt.Sprintf("the frontmatter names %s, the folder %s", quoteShort(fmt.Sprint(got["name"])), quoteShort(e.Name())))
	}
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	for k := range keys {
		if !reflect.DeepEqual(got[k], want[k]) {
			return fail(fmt.Sprintf("the frontmatter's %s differs from the entry's", quoteShort(k)))
		}
	}
	return nil
}

// dynamicFiles walks a dynamic skill's folder with
// resources/directory/read.
func (s *Session) dynamicFiles(ctx context.Context, e *SkillEntry) ([]SkillFile, error) {
	if _, dr := s.SkillsOffered(); !dr {
		return nil, &SkillVerifyError{Skill: e.URI, File: e.URI, Why: "its files are dynamic, and the server does not offer resources/directory/read"}
	}
	var files []SkillFile
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if depth > maxDirectoryDepth {
			return &SkillVerifyError{Skill: e.URI, File: dir, Why: fmt.Sprintf("folders nested deeper than %d", maxDirectoryDepth)}
		}
		children, err := s.ReadDirectory(ctx, dir)
		if err != nil {
			return err
		}
		for _, c := range children {
			if c.MimeType == "inode/directory" {
				if err := walk(strings.TrimSuffix(c.URI, "/"), depth+1); err != nil {
					return err
				}
				continue
			}
			files = append(files, SkillFile{URI: c.URI, Size: 0})
			if len(files) > MaxSkillFiles {
				return &SkillVerifyError{Skill: e.URI, File: e.URI, Why: fmt.Sprintf("more than %d files", MaxSkillFiles)}
			}
		}
		return nil
	}
	if err := walk(e.dir(), 0); err != nil {
		return nil, err
	}
	return files, nil
}
