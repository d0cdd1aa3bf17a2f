package surface

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// The classes of a change between two snapshots.
const (
	Breaking   = "breaking"   // a client that worked with the old surface may fail with the new
	Compatible = "compatible" // every client of the old surface still works
)

// A Change is one difference between two snapshots.
type Change struct {
	Class string `json:"class"` // Breaking or Compatible
	// Item is what changed: "server", "capability", "tool", "resource",
	// "resourceTemplate" or "prompt"; Name names it (the tool's name, the
	// resource's URI, …).
	Item string `json:"item"`
	Name string `json:"name"`
	// Path is where inside the item, in the words of the output:
	// "input.text", "output.items[]", "argument style", "" for the item.
	Path string `json:"path"`
	// Change is a stable code: added, removed, type-changed, …
	Change  string `json:"change"`
	Message string `json:"message"`
	// Accepted marks a change the caller listed as known (diff --accept):
	// shown, but failing nothing.
	Accepted bool `json:"accepted,omitempty"`
}

// differ collects the changes between two snapshots.
type differ struct{ changes []Change }

func (d *differ) add(class, item, name, path, code, format string, args ...any) {
	d.changes = append(d.changes, Change{Class: class, Item: item, Name: name, Path: path, Change: code, Message: fmt.Sprintf(format, args...)})
}

// Diff lists what changed from old to new, breaking changes first, each
// class in the order of the items. A snapshot whose schemas nest deeper
// than MaxDepth is an error (a *DepthError): the work and memory of a
// diff grow with the size of the snapshots, never with the square of a
// schema's depth.
func Diff(old, new *Snapshot) ([]Change, error) {
	if err := old.check("old: "); err != nil {
		return nil, err
	}
	if err := new.check("new: "); err != nil {
		return nil, err
	}
	d := &differ{}
	d.server(old, new)
	d.capabilities(old.Capabilities, new.Capabilities)
	diffKeyed(d, "tool", old.Tools, new.Tools, func(t *Tool) string { return t.Name }, d.tool)
	diffKeyed(d, "resource", old.Resources, new.Resources, func(r *Resource) string { return r.URI }, d.resource)
	diffKeyed(d, "resourceTemplate", old.ResourceTemplates, new.ResourceTemplates, func(t *Template) string { return t.URITemplate }, d.template)
	diffKeyed(d, "prompt", old.Prompts, new.Prompts, func(p *protocol.Prompt) string { return p.Name }, d.prompt)
	sort.SliceStable(d.changes, func(i, j int) bool { return d.changes[i].Class == Breaking && d.changes[j].Class != Breaking })
	return d.changes, nil
}

// diffKeyed compares two lists of items by key: removed, added, and the
// changes of the items in both.
//
// An item listed twice under one key (a server's bug) counts once, as
// first listed.
func diffKeyed[T any](d *differ, item string, old, new []T, key func(T) string, same func(name string, a, b T)) {
	olds, oldKeys := firstByKey(old, key)
	news, newKeys := firstByKey(new, key)
	for _, k := range oldKeys {
		n, ok := news[k]
		if !ok {
			d.add(Breaking, item, k, "", "removed", "removed")
			continue
		}
		same(k, olds[k], n)
	}
	for _, k := range newKeys {
		if _, ok := olds[k]; !ok {
			d.add(Compatible, item, k, "", "added", "added")
		}
	}
}

// firstByKey indexes items by key, keeping the first of each key, and
// returns the keys in list order.
func firstByKey[T any](items []T, key func(T) string) (map[string]T, []string) {
	m := map[string]T{}
	var keys []string
	for _, it := range items {
		k := key(it)
		if _, dup := m[k]; !dup {
			m[k] = it
			keys = append(keys, k)
		}
	}
	return m, keys
}

func (d *differ) server(old, new *Snapshot) {
	o, n := old.ServerInfo, new.ServerInfo
	if o.Name != n.Name {
		d.add(Compatible, "server", n.Name, "name", "name-changed", "serverInfo.name %q → %q", o.Name, n.Name)
	}
	if o.Version != n.Version {
		d.add(Compatible, "server", n.Name, "version", "version-changed", "version %s → %s", orNone(o.Version), orNone(n.Version))
	}
	if o.Title != n.Title {
		d.add(Compatible, "server", n.Name, "title", "title-changed", "title changed")
	}
	if old.Protocol != new.Protocol {
		d.add(Compatible, "server", n.Name, "protocol", "protocol-changed", "protocol revision %s → %s", orNone(old.Protocol), orNone(new.Protocol))
	}
	if old.Instructions != new.Instructions {
		d.add(Compatible, "server", n.Name, "instructions", "instructions-changed", "instructions changed")
	}
}

// capabilities compares the declared capabilities as dotted names:
// "tools", "tools.listChanged", "resources.subscribe", "logging", …
func (d *differ) capabilities(old, new json.RawMessage) {
	o, n := capabilityNames(old), capabilityNames(new)
	for _, c := range o {
		if !slices.Contains(n, c) {
			d.add(Breaking, "capability", c, "", "removed", "no longer declared")
		}
	}
	for _, c := range n {
		if !slices.Contains(o, c) {
			d.add(Compatible, "capability", c, "", "added", "declared")
		}
	}
}

// capabilityNames flattens a capabilities object: each member, and each
// member of it that is true ("tools.listChanged").
func capabilityNames(raw json.RawMessage) []string {
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil {
		return nil
	}
	var out []string
	for k, v := range caps {
		if string(v) == "null" {
			continue
		}
		out = append(out, k)
		var sub map[string]any
		if k != "experimental" && json.Unmarshal(v, &sub) == nil {
			for sk, sv := range sub {
				if sv == true {
					out = append(out, k+"."+sk)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func (d *differ) tool(name string, o, n *Tool) {
	if o.Title != n.Title {
		d.add(Compatible, "tool", name, "title", "title-changed", "title changed")
	}
	if o.Description != n.Description {
		d.add(Compatible, "tool", name, "description", "description-changed", "description changed")
	}
	in := schemaDiff{d: d, tool: name, output: false}
	in.compare(&schemaPath{seg: "input"}, decodeSchema(o.InputSchema), decodeSchema(n.InputSchema))
	switch {
	case len(o.OutputSchema) == 0 && len(n.OutputSchema) > 0:
		d.add(Compatible, "tool", name, "output", "output-schema-added", "now declares an output schema")
	case len(o.OutputSchema) > 0 && len(n.OutputSchema) == 0:
		d.add(Breaking, "tool", name, "output", "output-schema-removed", "no longer declares an output schema (structuredContent may stop coming)")
	case len(o.OutputSchema) > 0:
		out := schemaDiff{d: d, tool: name, output: true}
		out.compare(&schemaPath{seg: "output"}, decodeSchema(o.OutputSchema), decodeSchema(n.OutputSchema))
	}
	d.annotations(name, o.Annotations, n.Annotations)
	ot, nt := "", ""
	if o.Execution != nil {
		ot = o.Execution.TaskSupport
	}
	if n.Execution != nil {
		nt = n.Execution.TaskSupport
	}
	if ot != nt {
		class := Compatible
		if nt == "required" {
			class = Breaking // a client without tasks can no longer call it
		}
		d.add(class, "tool", name, "execution.taskSupport", "task-support-changed", "task support %s → %s", orNone(ot), orNone(nt))
	}
}

// annotations compares tool hints. A hint that makes the tool look less
// safe than before is breaking: clients decide what to run unattended
// from these hints (read-only, not destructive, idempotent).
func (d *differ) annotations(name string, o, n *protocol.ToolAnnotations) {
	if o == nil {
		o = &protocol.ToolAnnotations{}
	}
	if n == nil {
		n = &protocol.ToolAnnotations{}
	}
	if o.Title != n.Title {
		d.add(Compatible, "tool", name, "annotations.title", "title-changed", "annotation title changed")
	}
	// The spec's defaults: readOnly false, destructive true, idempotent
	// false, openWorld true.
	hint := func(field string, ov, nv *bool, def, safe bool) {
		a, b := def, def
		if ov != nil {
			a = *ov
		}
		if nv != nil {
			b = *nv
		}
		if a == b {
			return
		}
		class := Compatible
		if a == safe {
			class = Breaking
		}
		d.add(class, "tool", name, "annotations."+field, "hint-changed", "%s %v → %v", field, a, b)
	}
	readOnly := func(a *protocol.ToolAnnotations) bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }
	hint("readOnlyHint", o.ReadOnlyHint, n.ReadOnlyHint, false, true)
	// destructiveHint and idempotentHint mean something only when the
	// tool is not read-only.
	if !readOnly(o) && !readOnly(n) {
		hint("destructiveHint", o.DestructiveHint, n.DestructiveHint, true, false)
		hint("idempotentHint", o.IdempotentHint, n.IdempotentHint, false, true)
	}
	hint("openWorldHint", o.OpenWorldHint, n.OpenWorldHint, true, false)
}

func (d *differ) resource(uri string, o, n *Resource) {
	if o.MimeType != n.MimeType {
		d.add(Breaking, "resource", uri, "mimeType", "mime-type-changed", "mimeType %s → %s", orNone(o.MimeType), orNone(n.MimeType))
	}
	if o.Name != n.Name || o.Title != n.Title || o.Description != n.Description || !slices.Equal(o.Audience, n.Audience) {
		d.add(Compatible, "resource", uri, "", "description-changed", "name, title, description or audience changed")
	}
}

func (d *differ) template(uri string, o, n *Template) {
	if o.MimeType != n.MimeType {
		d.add(Breaking, "resourceTemplate", uri, "mimeType", "mime-type-changed", "mimeType %s → %s", orNone(o.MimeType), orNone(n.MimeType))
	}
	if o.Name != n.Name || o.Title != n.Title || o.Description != n.Description {
		d.add(Compatible, "resourceTemplate", uri, "", "description-changed", "name, title or description changed")
	}
}

func (d *differ) prompt(name string, o, n *protocol.Prompt) {
	if o.Title != n.Title || o.Description != n.Description {
		d.add(Compatible, "prompt", name, "", "description-changed", "title or description changed")
	}
	argName := func(a protocol.PromptArgument) string { return a.Name }
	oa, oldNames := firstByKey(o.Arguments, argName)
	na, newNames := firstByKey(n.Arguments, argName)
	for _, an := range oldNames {
		a := oa[an]
		b, ok := na[a.Name]
		path := "argument " + a.Name
		switch {
		case !ok:
			d.add(Breaking, "prompt", name, path, "argument-removed", "argument %s removed", a.Name)
		case !a.Required && b.Required:
			d.add(Breaking, "prompt", name, path, "now-required", "argument %s is now required", a.Name)
		case a.Required && !b.Required:
			d.add(Compatible, "prompt", name, path, "now-optional", "argument %s is now optional", a.Name)
		case a.Description != b.Description || a.Title != b.Title:
			d.add(Compatible, "prompt", name, path, "description-changed", "argument %s: description changed", a.Name)
		}
	}
	for _, bn := range newNames {
		b := na[bn]
		if _, ok := oa[b.Name]; ok {
			continue
		}
		if b.Required {
			d.add(Breaking, "prompt", name, "argument "+b.Name, "required-added", "new required argument %s", b.Name)
		} else {
			d.add(Compatible, "prompt", name, "argument "+b.Name, "optional-added", "new optional argument %s", b.Name)
		}
	}
}

// schemaDiff compares the JSON schemas of one tool's input or output.
//
// For the input, the server is the reader: a schema that accepts less
// than before (narrowed) breaks callers, one that accepts more is
// compatible. For the output, the client is the reader, and the
// directions swap: an output that may now hold what it could not before
// (widened) breaks consumers, a narrowed one does not.
type schemaDiff struct {
	d      *differ
	tool   string
	output bool
}

// narrowed records a change that makes the schema accept less.
func (s schemaDiff) narrowed(path, code, format string, args ...any) {
	class := Breaking
	if s.output {
		class = Compatible
	}
	s.d.add(class, "tool", s.tool, path, code, format, args...)
}

// widened records a change that makes the schema accept more.
func (s schemaDiff) widened(path, code, format string, args ...any) {
	class := Compatible
	if s.output {
		class = Breaking
	}
	s.d.add(class, "tool", s.tool, path, code, format, args...)
}

// changed records a change that is neither: breaking either way.
func (s schemaDiff) changed(path, code, format string, args ...any) {
	s.d.add(Breaking, "tool", s.tool, path, code, format, args...)
}

func (s schemaDiff) info(path, code, format string, args ...any) {
	s.d.add(Compatible, "tool", s.tool, path, code, format, args...)
}

// decodeSchema decodes a schema; anything but an object (true, a broken
// value) is the schema that accepts everything.
func decodeSchema(raw json.RawMessage) map[string]any {
	v, err := DecodeJSON(raw)
	if m, ok := v.(map[string]any); ok && err == nil {
		return m
	}
	return map[string]any{}
}

// A schemaPath is a position in a schema, "input.a.b[]", kept as a chain
// of segments and spelled out only for a change: a diff that built every
// position's whole path as text would use memory growing with the square
// of the schema's depth.
type schemaPath struct {
	_ [0]func() // not comparable: no equality function in the binary

	parent *schemaPath
	seg    string // "input" or "output" at the root, then ".name" or "[]"
	str    string // the whole path, once spelled out
}

// child is the position seg below p.
func (p *schemaPath) child(seg string) *schemaPath { return &schemaPath{parent: p, seg: seg} }

// maxPathBytes bounds a path as a change spells it: a longer one keeps
// its first and last maxPathBytes/2 bytes around "…". Real paths are far
// shorter; the bound keeps a diff's output proportional to the number of
// changes when a hostile schema nests long names to the depth limit.
const maxPathBytes = 1024

// String spells the path out: "input.a.b[]", shortened in the middle
// past maxPathBytes.
func (p *schemaPath) String() string {
	if p.str != "" {
		return p.str
	}
	var segs []string // leaf first
	n := 0
	for q := p; q != nil; q = q.parent {
		segs = append(segs, q.seg)
		n += len(q.seg)
	}
	slices.Reverse(segs)
	if n <= maxPathBytes {
		p.str = strings.Join(segs, "")
		return p.str
	}
	head := make([]byte, 0, maxPathBytes/2)
	for _, s := range segs {
		head = append(head, s[:min(len(s), cap(head)-len(head))]...)
		if len(head) == cap(head) {
			break
		}
	}
	tail := make([]byte, maxPathBytes/2)
	at := len(tail)
	for i := len(segs) - 1; i >= 0 && at > 0; i-- {
		s := segs[i]
		s = s[max(0, len(s)-at):]
		at -= len(s)
		copy(tail[at:], s)
	}
	p.str = strings.ToValidUTF8(string(head)+"…"+string(tail), "")
	return p.str
}

// compare compares two schemas at p.
func (s schemaDiff) compare(p *schemaPath, o, n map[string]any) {
	s.types(p, o, n)
	s.enums(p, o, n)
	s.bounds(p, o, n)
	s.properties(p, o, n)
	if oi, ni := schemaMember(o, "items"), schemaMember(n, "items"); oi != nil || ni != nil {
		s.compare(p.child("[]"), orEmpty(oi), orEmpty(ni))
	}
	s.rest(p, o, n)
}

// schemaMember returns a member of a schema that is itself a schema.
func schemaMember(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// schemaTypes is the set of JSON types a schema allows ("integer" is a
// part of "number"); nil means any type.
func schemaTypes(m map[string]any) map[string]bool {
	var list []string
	switch t := m["type"].(type) {
	case string:
		list = []string{t}
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				list = append(list, s)
			}
		}
	default:
		return nil
	}
	set := map[string]bool{}
	for _, t := range list {
		set[t] = true
	}
	return set
}

func typeNames(set map[string]bool) string {
	if set == nil {
		return "any"
	}
	var out []string
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return strings.Join(out, "|")
}

// typeSubset says whether every value of the types a is also of b.
func typeSubset(a, b map[string]bool) bool {
	if b == nil {
		return true
	}
	if a == nil {
		return false
	}
	for t := range a {
		if !b[t] && !(t == "integer" && b["number"]) {
			return false
		}
	}
	return true
}

func (s schemaDiff) types(p *schemaPath, o, n map[string]any) {
	ot, nt := schemaTypes(o), schemaTypes(n)
	sub, sup := typeSubset(nt, ot), typeSubset(ot, nt)
	switch {
	case sub && sup:
	case sub:
		s.narrowed(p.String(), "type-narrowed", "%s: type %s → %s", label(p.String()), typeNames(ot), typeNames(nt))
	case sup:
		s.widened(p.String(), "type-widened", "%s: type %s → %s", label(p.String()), typeNames(ot), typeNames(nt))
	default:
		s.changed(p.String(), "type-changed", "%s: type %s → %s", label(p.String()), typeNames(ot), typeNames(nt))
	}
}

// enumValues is a schema's enum (or const) as canonical JSON texts; nil
// when it has neither.
func enumValues(m map[string]any) []string {
	var vals []any
	if c, ok := m["const"]; ok {
		vals = []any{c}
	} else if e, ok := m["enum"].([]any); ok {
		vals = e
	} else {
		return nil
	}
	out := []string{}
	for _, v := range vals {
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

func (s schemaDiff) enums(p *schemaPath, o, n map[string]any) {
	oe, ne := enumValues(o), enumValues(n)
	switch {
	case oe == nil && ne == nil:
	case oe == nil:
		s.narrowed(p.String(), "enum-added", "%s: now limited to %s", label(p.String()), strings.Join(ne, ", "))
	case ne == nil:
		s.widened(p.String(), "enum-removed", "%s: no longer limited to %s", label(p.String()), strings.Join(oe, ", "))
	default:
		for _, v := range oe {
			if !slices.Contains(ne, v) {
				s.narrowed(p.String(), "enum-value-removed", "%s: value %s removed", label(p.String()), v)
			}
		}
		for _, v := range ne {
			if !slices.Contains(oe, v) {
				s.widened(p.String(), "enum-value-added", "%s: value %s added", label(p.String()), v)
			}
		}
	}
}

// The bounds of a schema: a lower bound raised, or an upper bound
// lowered, narrows it.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"}
)

func (s schemaDiff) bounds(p *schemaPath, o, n map[string]any) {
	check := func(key string, lower bool) {
		ov, ook := numberOf(o[key])
		nv, nok := numberOf(n[key])
		switch {
		case !ook && !nok:
		case !ook:
			s.narrowed(p.String(), "bound-added", "%s: %s %s added", label(p.String()), key, nv.RatString())
		case !nok:
			s.widened(p.String(), "bound-removed", "%s: %s %s removed", label(p.String()), key, ov.RatString())
		default:
			c := nv.Cmp(ov)
			if c == 0 {
				return
			}
			if (c > 0) == lower {
				s.narrowed(p.String(), "bound-narrowed", "%s: %s %s → %s", label(p.String()), key, ov.RatString(), nv.RatString())
			} else {
				s.widened(p.String(), "bound-widened", "%s: %s %s → %s", label(p.String()), key, ov.RatString(), nv.RatString())
			}
		}
	}
	for _, k := range lowerBounds {
		check(k, true)
	}
	for _, k := range upperBounds {
		check(k, false)
	}
	for _, k := range []string{"pattern", "format"} {
		ov, ook := o[k].(string)
		nv, nok := n[k].(string)
		switch {
		case ook == nok && ov == nv:
		case !ook:
			s.narrowed(p.String(), k+"-added", "%s: %s %q added", label(p.String()), k, nv)
		case !nok:
			s.widened(p.String(), k+"-removed", "%s: %s %q removed", label(p.String()), k, ov)
		default:
			s.changed(p.String(), k+"-changed", "%s: %s %q → %q", label(p.String()), k, ov, nv)
		}
	}
}

// numberOf reads a JSON number exactly.
func numberOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(n.String())
	return r, ok
}

// requiredSet is a schema's "required" list.
func requiredSet(m map[string]any) map[string]bool {
	set := map[string]bool{}
	if list, ok := m["required"].([]any); ok {
		for _, e := range list {
			if s, ok := e.(string); ok {
				set[s] = true
			}
		}
	}
	return set
}

// additional says whether a schema allows properties it does not name.
func additional(m map[string]any) bool {
	v, ok := m["additionalProperties"]
	return !ok || v != false
}

func (s schemaDiff) properties(p *schemaPath, o, n map[string]any) {
	op, np := schemaMember(o, "properties"), schemaMember(n, "properties")
	or, nr := requiredSet(o), requiredSet(n)
	what := "argument"
	if s.output {
		what = "field"
	}
	for _, k := range slices.Sorted(maps.Keys(op)) {
		c := p.child("." + k)
		ps, _ := op[k].(map[string]any)
		nps, ok := np[k]
		if !ok {
			// Gone: callers that send it are refused or silently
			// ignored; consumers that read it find nothing.
			s.changed(c.String(), what+"-removed", "%s %s removed", what, dotted(c.String()))
			continue
		}
		nm, _ := nps.(map[string]any)
		switch {
		case !or[k] && nr[k]:
			s.narrowed(c.String(), "now-required", "%s %s is now required", what, dotted(c.String()))
		case or[k] && !nr[k]:
			s.widened(c.String(), "now-optional", "%s %s is now optional", what, dotted(c.String()))
		}
		s.compare(c, orEmpty(ps), orEmpty(nm))
	}
	for _, k := range slices.Sorted(maps.Keys(np)) {
		if _, ok := op[k]; ok {
			continue
		}
		c := p.child("." + k).String()
		switch {
		case s.output:
			s.info(c, "field-added", "new field %s", dotted(c))
		case nr[k]:
			s.changed(c, "required-added", "new required argument %s", dotted(c))
		default:
			s.info(c, "optional-added", "new optional argument %s", dotted(c))
		}
	}
	// Required names without a property of their own.
	for _, k := range slices.Sorted(maps.Keys(nr)) {
		if _, ok := np[k]; !ok && !or[k] {
			if _, had := op[k]; !had {
				c := p.child("." + k).String()
				s.narrowed(c, "required-added", "%s %s is now required", what, dotted(c))
			}
		}
	}
	oa, na := additional(o), additional(n)
	switch {
	case oa && !na && (len(op) > 0 || len(np) > 0):
		s.narrowed(p.String(), "additional-closed", "%s: other properties are no longer allowed", label(p.String()))
	case !oa && na:
		s.widened(p.String(), "additional-opened", "%s: other properties are now allowed", label(p.String()))
	}
}

// The keywords that only describe: a change of them is compatible.
var describingKeywords = [...]string{
	"description", "title", "examples", "default", "$comment",
	"deprecated", "readOnly", "writeOnly", "$schema", "$id",
}

// handledKeywords are compared by the other methods of schemaDiff.
var handledKeywords = [...]string{
	"type", "enum", "const", "properties", "required",
	"additionalProperties", "items", "pattern", "format",
}

// rest compares the keywords compare does not know one by one: a change
// of a describing one is compatible; of any other (anyOf, $ref, $defs,
// …) breaking, since mcpwire cannot tell which way it goes.
func (s schemaDiff) rest(p *schemaPath, o, n map[string]any) {
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	var described []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if slices.Contains(handledKeywords[:], k) || slices.Contains(lowerBounds, k) || slices.Contains(upperBounds, k) {
			continue
		}
		if reflect.DeepEqual(o[k], n[k]) {
			continue
		}
		if slices.Contains(describingKeywords[:], k) {
			described = append(described, k)
			continue
		}
		s.changed(p.String(), "keyword-changed", "%s: %s changed", label(p.String()), k)
	}
	if len(described) > 0 {
		s.info(p.String(), "description-changed", "%s: %s changed", label(p.String()), strings.Join(described, ", "))
	}
}

// label names a schema position for people: "input", "argument text",
// "output field items[]".
func label(path string) string {
	head, rest, ok := strings.Cut(path, ".")
	if !ok {
		if strings.HasSuffix(path, "[]") {
			return path[:strings.Index(path, "[]")] + " items"
		}
		return path
	}
	if head == "input" {
		return "argument " + rest
	}
	return "field " + rest
}

// dotted is a path without its "input." or "output." head.
func dotted(path string) string {
	_, rest, ok := strings.Cut(path, ".")
	if !ok {
		return path
	}
	return rest
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
