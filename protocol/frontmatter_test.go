package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestFrontmatter(t *testing.T) {
	doc := "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\nSkill body.\n"
	y, body, err := SplitFrontmatter([]byte(doc))
	if err != nil || string(body) != "Skill body.\n" {
		t.Fatalf("split: %q %q %v", y, body, err)
	}
	m, err := ParseFrontmatter(y)
	want := map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"}
	if err != nil || !reflect.DeepEqual(m, want) {
		t.Fatalf("parse: %#v %v", m, err)
	}
	rich := `name: demo # a comment
description: >-
  Folded
  text.
license: "Apache-2.0"
version: 1.5
draft: false
nothing: ~
tags: [a, 'b c', 3]
allowed-tools:
  - Read
  - "Bash(git:*)"
metadata:
  owner: mcpwire
  nested:
    deep: 'it''s'
notes: |
  line one
  line two
`
	m, err = ParseFrontmatter([]byte(rich))
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"name": "demo", "description": "Folded text.", "license": "Apache-2.0", "version": 1.5, "draft": false,
		"nothing": nil, "tags": []any{"a", "b c", 3.0}, "allowed-tools": []any{"Read", "Bash(git:*)"},
		"metadata": map[string]any{"owner": "mcpwire", "nested": map[string]any{"deep": "it's"}}, "notes": "line one\nline two\n"}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got  %#v\nwant %#v", m, want)
	}
	for _, bad := range []string{"a: &x 1", "a: *x", "a: !!str 1", "a: {b: 1}", "a: 1\na: 2", "- a", "a:\n  - b: 1", "\ta: 1", "a: 'open"} {
		if _, err := ParseFrontmatter([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	for _, bad := range []string{"name: x\n", "---\nname: x\n", ""} {
		if _, _, err := SplitFrontmatter([]byte(bad)); err == nil {
			t.Errorf("split %q: accepted", bad)
		}
	}
	if _, _, err := SplitFrontmatter([]byte("---\r\nname: x\r\n---\r\n")); err != nil {
		t.Errorf("CRLF: %v", err)
	}
}

func FuzzFrontmatter(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: b\n---\nbody\n"))
	f.Add([]byte("---\nmetadata:\n  k: [1, 'x']\nnotes: |+\n  a\n\n---\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		y, _, err := SplitFrontmatter(doc)
		if err != nil {
			return
		}
		ParseFrontmatter(y) // never panics nor hangs
	})
}

// A skill's files must lie inside its folder, once each, with valid
// digests; its SKILL.md's frontmatter must equal the entry's.
func TestSkillChecks(t *testing.T) {
	d := "sha256:" + strings.Repeat("a", 64)
	e := &SkillEntry{URI: "skill://demo/SKILL.md", Frontmatter: []byte(`{"name":"demo","description":"d"}`)}
	ok := SkillFile{URI: "skill://demo/SKILL.md", Digest: d, Size: 1}
	for _, bad := range [][]SkillFile{
		{ok, {URI: "skill://demo/../other/x", Digest: d}},
		{ok, {URI: "skill://elsewhere/x", Digest: d}},
		{ok, {URI: "skill://demo/a//b", Digest: d}},
		{ok, ok},
		{ok, {URI: "skill://demo/x", Digest: "md5:00"}},
		{{URI: "skill://demo/x", Digest: d}},
		{ok, {URI: "skill://demo/big", Digest: d, Size: MaxSkillBytes}},
	} {
		if err := checkSkillFiles(e, bad); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	if err := checkSkillFiles(e, []SkillFile{ok, {URI: "skill://demo/refs/a.md", Digest: d}}); err != nil {
		t.Error(err)
	}
	for doc, want := range map[string]string{
		"---\nname: demo\ndescription: d\n---\n":           "",
		"---\nname: demo\ndescription: other\n---\n":       "description",
		"---\nname: demo\ndescription: d\nextra: 1\n---\n": "extra",
		"---\nname: wrong\ndescription: d\n---\n":          "names",
		"no frontmatter\n":                                 "no frontmatter",
		"---\nname: demo\ndescription: d\nx: &a 1\n---\n":  "unsupported",
	} {
		err := checkManifest(e, []byte(doc))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
	for _, bad := range []string{"skill://Demo/SKILL.md", "skill://a--b/SKILL.md", "https://x/SKILL.md", "skill://x/skill.md"} {
		if checkSkillURI(bad) == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// FuzzSkillEntry: a skill entry and a task of any bytes decode or fail,
// never panic; an entry that decodes is checked without panicking.
func FuzzSkillEntry(f *testing.F) {
	f.Add([]byte(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":1}]}`))
	f.Add([]byte(`{"uri":"skill://a/SKILL.md","frontmatter":{},"resources":"dynamic"}`))
	f.Add([]byte(`{"taskId":"t","status":"working","ttl":5,"pollInterval":7}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var e SkillEntry
		if json.Unmarshal(raw, &e) == nil {
			_ = checkSkillURI(e.URI)
			_ = checkSkillFiles(&e, e.Files)
			_ = e.Name()
			_ = e.Description()
		}
		if task, err := decodeTask("tasks/get", raw); err == nil {
			_ = task.Terminal()
			_ = task.pollInterval()
		}
	})
}
