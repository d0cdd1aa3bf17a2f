package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The server side of the Skills extension (io.modelcontextprotocol/skills,
// SEP-2640), with --skills: two skills, "greeting" whose files are listed
// with their digests, and "notes" whose files are dynamic (found with
// resources/directory/read). --skills=tampered serves a greeting/SKILL.md
// that does not match its listed digest, for the client's verification.

const extSkills = "io.modelcontextprotocol/skills"

// skillFiles are the demo's skill files by URI.
var skillFiles = map[string]string{
	"skill://greeting/SKILL.md":              "---\nname: greeting\ndescription: Greets people by name, politely\nmetadata:\n  author: mcpwire\n---\n# Greeting\n\nSay hello, then use references/phrases.md.\n",
	"skill://greeting/references/phrases.md": "- Hello!\n- Good morning.\n",
	"skill://notes/SKILL.md":                 "---\nname: notes\ndescription: Keeps notes\n---\nWrite things down.\n",
	"skill://notes/templates/daily.md":       "# Today\n",
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func skillEntries() []map[string]any {
	file := func(uri string) map[string]any {
		return map[string]any{"uri": uri, "digest": sha(skillFiles[uri]), "size": len(skillFiles[uri])}
	}
	return []map[string]any{
		{"uri": "skill://greeting/SKILL.md",
			"frontmatter": map[string]any{"name": "greeting", "description": "Greets people by name, politely", "metadata": map[string]any{"author": "mcpwire"}},
			"resources":   []any{file("skill://greeting/SKILL.md"), file("skill://greeting/references/phrases.md")}},
		{"uri": "skill://notes/SKILL.md",
			"frontmatter": map[string]any{"name": "notes", "description": "Keeps notes"},
			"resources":   "dynamic"},
	}
}

// skillsCapability is the extension's entry in the server's capabilities.
func skillsCapability() map[string]any { return map[string]any{"directoryRead": true} }

// skillMethod answers skills/list, skills/get and
// resources/directory/read.
func (s *server) skillMethod(req *jsonrpc.Request) (any, error) {
	if s.opts.Skills == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode(req.Params, &in); err != nil {
		return nil, err
	}
	switch req.Method {
	case "skills/list":
		return map[string]any{"skills": skillEntries()}, nil
	case "skills/get":
		for _, e := range skillEntries() {
			if e["uri"] == in.URI {
				return map[string]any{"skill": e}, nil
			}
		}
		return nil, invalidParams("no skill %s", in.URI)
	}
	dir := strings.TrimSuffix(in.URI, "/") + "/"
	var children []any
	subdirs := map[string]bool{}
	for uri := range skillFiles {
		rest, ok := strings.CutPrefix(uri, dir)
		if !ok {
			continue
		}
		if sub, _, deeper := strings.Cut(rest, "/"); deeper {
			if !subdirs[sub] {
				subdirs[sub] = true
				children = append(children, map[string]any{"uri": dir + sub, "name": sub, "mimeType": "inode/directory"})
			}
			continue
		}
		children = append(children, map[string]any{"uri": uri, "name": rest, "mimeType": "text/markdown"})
	}
	if len(children) == 0 {
		return nil, invalidParams("%s is not a directory", in.URI)
	}
	return map[string]any{"resources": children}, nil
}

// readSkillFile answers resources/read of a skill file.
func (s *server) readSkillFile(uri string) (any, bool) {
	text, ok := skillFiles[uri]
	if !ok || s.opts.Skills == "" {
		return nil, false
	}
	if s.opts.Skills == "tampered" && uri == "skill://greeting/SKILL.md" {
		text = strings.Replace(text, "politely", "rudely!!", 1)
	}
	return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/markdown", "text": text}}}, true
}
