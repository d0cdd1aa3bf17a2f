package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// toolDoc is `mcpwire tool TARGET NAME --json`.
type toolDoc struct {
	docHeader
	Server      string      `json:"server"`
	Tool        string      `json:"tool"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Parameters  []toolParam `json:"parameters"` // required ones first, each in the schema's order
	// Example is a call line with a value for each required parameter.
	Example string `json:"example"`
	// InputSchema is the schema as the server wrote it.
	InputSchema json.RawMessage `json:"inputSchema"`
}

// toolParam is one parameter of a tool: a property of its input schema.
type toolParam struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"` // the schema's type ("string", "integer|null", …); "" when it gives none
	Required    bool     `json:"required"`
	Description string   `json:"description"`
	Enum        []string `json:"enum"` // the allowed values, as JSON text; [] when any
}

// runTool is `mcpwire tool TARGET NAME`: one tool, for a person.
func runTool(ctx context.Context, inv *invocation, args []string) error {
	r, err := inv.openSession(ctx, "tool", args, nil, nArgs(1, "give one tool NAME"))
	if err != nil {
		return err
	}
	inv.atExit(r.close)
	name := r.rest[0]
	tools, err := r.conn.ListTools(ctx)
	if err != nil {
		return inv.serverFailure(r.t, r.conn.Explain("list", err))
	}
	var found *protocol.Tool
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Name == name {
			found = tl
		}
	}
	if found == nil {
		f := fail(ExitUsage, phaseUsage, fmt.Errorf("%s has no tool %q", r.t.spec.Name, name))
		f.server, f.kind = r.t.spec.Name, codeToolNotFound
		if c := closest(name, names); c != "" {
			f.hints = append(f.hints, "did you mean "+c+"?")
		}
		return f
	}
	doc := toolDoc{docHeader: inv.header(true), Server: r.t.spec.Name, Tool: found.Name, Title: found.Title,
		Description: found.Description, Parameters: toolParams(found.InputSchema), InputSchema: found.InputSchema}
	if doc.InputSchema == nil {
		doc.InputSchema = json.RawMessage("{}")
	}
	doc.Example = inv.exampleCall(r.t, &r.tf, found.Name, doc.Parameters)
	if inv.json {
		inv.writeJSON(doc)
		return nil
	}
	inv.printToolDoc(&doc)
	return nil
}

// toolParams reads the parameters of an input schema: its properties,
// required ones first, each group in the schema's order.
func toolParams(schema json.RawMessage) []toolParam {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return []toolParam{}
	}
	names, vals, err := objectMembers(s.Properties)
	if err != nil {
		return []toolParam{}
	}
	out := make([]toolParam, 0, len(names))
	for i, n := range names {
		var p struct {
			Type        json.RawMessage   `json:"type"`
			Description string            `json:"description"`
			Enum        []json.RawMessage `json:"enum"`
		}
		_ = json.Unmarshal(vals[i], &p)
		tp := toolParam{Name: n, Type: schemaType(p.Type), Description: p.Description, Enum: []string{}}
		for _, r := range s.Required {
			tp.Required = tp.Required || r == n
		}
		for _, e := range p.Enum {
			tp.Enum = append(tp.Enum, string(e))
		}
		out = append(out, tp)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Required && !out[j].Required })
	return out
}

// schemaType is a schema's "type" as one word: "string", or
// "integer|null" for a list.
func schemaType(raw json.RawMessage) string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return strings.Join(many, "|")
	}
	return ""
}

// objectMembers returns a JSON object's members in order.
func objectMembers(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("not an object")
	}
	var names []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		names, vals = append(names, t.(string)), append(vals, v)
	}
	return names, vals, nil
}

// exampleCall is a call line for the tool with a value for each required
// parameter, typed by its schema.
func (inv *invocation) exampleCall(t *target, tf *targetFlags, tool string, params []toolParam) string {
	var words []string
	for _, p := range params {
		if !p.Required {
			continue
		}
		v := map[string]string{"integer": "1", "number": "1.5", "boolean": "true", "array": "[]", "object": "{}"}[strings.Split(p.Type, "|")[0]]
		switch {
		case len(p.Enum) > 0:
			v = strings.Trim(p.Enum[0], `"`)
		case v == "":
			v = strings.ToUpper(p.Name)
		}
		words = append(words, p.Name+"="+v)
	}
	return inv.targetLine(t, tf, "call", tool, words...)
}

// targetLine is the command line of verb on the target as typed, then
// name and words: the configured name, the URL or --demo before them, a
// command target's "-- COMMAND" last.
func (inv *invocation) targetLine(t *target, tf *targetFlags, verb, name string, words ...string) string {
	line := []string{verb}
	tail := ""
	switch tw := targetWords(t, tf); {
	case t.server != nil:
		line = append(line, t.spec.Name)
	case strings.HasPrefix(tw, "-- "):
		tail = " " + tw
	default:
		line = append(line, tw)
	}
	return inv.suggest(append(append(line, name), words...)...) + tail
}

// printToolDoc prints a tool for a person.
func (inv *invocation) printToolDoc(d *toolDoc) {
	head := inv.bold(safe.Sanitize(d.Tool))
	if d.Title != "" {
		head += " — " + safe.Sanitize(d.Title)
	}
	inv.printf("%s  %s\n", head, inv.dim("(server "+safe.Sanitize(d.Server)+")"))
	if d.Description != "" {
		for _, line := range strings.Split(strings.TrimSpace(safe.SanitizeText(d.Description)), "\n") {
			inv.printf("  %s\n", line)
		}
	}
	inv.printf("\nParameters:\n")
	if len(d.Parameters) == 0 {
		inv.printf("  none\n")
	}
	rows := [][]string{{"  NAME", "TYPE", "REQUIRED", "DESCRIPTION"}}
	for _, p := range d.Parameters {
		req := "-"
		if p.Required {
			req = "yes"
		}
		desc := cellText(p.Description)
		if len(p.Enum) > 0 {
			desc = strings.TrimSpace(desc + " (one of " + strings.Join(p.Enum, ", ") + ")")
		}
		rows = append(rows, []string{"  " + safe.Sanitize(p.Name), safe.Sanitize(p.Type), req, safe.Sanitize(desc)})
	}
	if len(d.Parameters) > 0 {
		inv.table(rows)
	}
	inv.printf("\nExample:\n  %s\n", safe.Sanitize(d.Example))
}
