package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// A snapshot is a server's surface as `mcpwire snapshot` writes it and
// `mcpwire diff` reads it: identity, revision, capabilities, tools with
// their schemas and annotations, resources, templates and prompts. It is
// normalized so that two runs against the same server give the same
// bytes: lists sorted by their key, JSON objects with sorted members,
// "required" lists sorted, and nothing that varies from run to run
// (timings, _meta, icons, sizes, lastModified).
type snapshot struct {
	Schema            int                `json:"schema"`
	Command           string             `json:"command"`
	OK                bool               `json:"ok"`
	Server            string             `json:"server"`
	ServerInfo        snapServerInfo     `json:"serverInfo"`
	Protocol          string             `json:"protocol"`
	Era               string             `json:"era"` // of the protocol revision: modern or legacy
	Capabilities      json.RawMessage    `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	Tools             []*snapTool        `json:"tools"`
	Resources         []*snapResource    `json:"resources"`
	ResourceTemplates []*snapTemplate    `json:"resourceTemplates"`
	Prompts           []*protocol.Prompt `json:"prompts"`
}

// snapServerInfo is the server's identity in a snapshot.
type snapServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// snapTool is one tool of a snapshot; the schemas are normalized JSON.
type snapTool struct {
	Name         string                    `json:"name"`
	Title        string                    `json:"title,omitempty"`
	Description  string                    `json:"description,omitempty"`
	InputSchema  json.RawMessage           `json:"inputSchema"`
	OutputSchema json.RawMessage           `json:"outputSchema,omitempty"`
	Annotations  *protocol.ToolAnnotations `json:"annotations,omitempty"`
	Execution    *protocol.ToolExecution   `json:"execution,omitempty"`
}

// snapResource is one resource of a snapshot.
type snapResource struct {
	URI         string   `json:"uri"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	MimeType    string   `json:"mimeType,omitempty"`
	Audience    []string `json:"audience,omitempty"`
}

// snapTemplate is one resource template of a snapshot.
type snapTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

func runSnapshot(ctx context.Context, inv *invocation, args []string) error {
	var out string
	r, err := inv.openSession(ctx, "snapshot", args, func(fs *flagSetT) {
		fs.StringVar(&out, "o", "", "write the snapshot to `FILE` (default: stdout)")
		fs.StringVar(&out, "output", "", "write the snapshot to `FILE` (default: stdout)")
	}, noMoreArgs)
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	snap, err := inv.takeSnapshot(ctx, r.t, r.conn)
	if err != nil {
		return err
	}
	data, err := snap.encode()
	if err != nil {
		return fail(ExitServer, "internal", err)
	}
	data = safe.EscapeJSON(inv.redactJSON(data))
	if out == "" || out == "-" {
		_, err := inv.env.Stdout.Write(data)
		inv.wroteJSON = true
		return err
	}
	path := out
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	if err := safe.WriteAtomic(path, data, 0o644); err != nil {
		return fail(ExitConfig, "output", err, "check that the folder exists and can be written")
	}
	counts := snap.counts()
	if inv.json {
		inv.writeJSON(struct {
			docHeader
			Server string         `json:"server"`
			File   string         `json:"file"`
			Counts map[string]int `json:"counts"`
		}{inv.header(true), snap.Server, out, counts})
		return nil
	}
	inv.printf("wrote the surface of %s to %s: %s, %s, %s, %s\n", safe.Sanitize(snap.Server), out,
		plural(counts["tools"], "tool"), plural(counts["resources"], "resource"),
		plural(counts["resourceTemplates"], "resource template"), plural(counts["prompts"], "prompt"))
	return nil
}

// takeSnapshot lists everything the server offers and normalizes it. A
// list that fails fails the snapshot: a surface with a hole would read
// as removals in a diff.
func (inv *invocation) takeSnapshot(ctx context.Context, t *target, conn *manager.Conn) (*snapshot, error) {
	spec := t.spec
	rep := &testReport{Tools: []*protocol.Tool{}}
	stop := inv.spinner("listing " + spec.Name)
	err := inv.listAll(ctx, conn, rep)
	stop()
	if err == nil && len(rep.Warnings) > 0 {
		err = errors.New(rep.Warnings[0])
	}
	if err != nil {
		return nil, inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
	}
	init := *conn.Init()
	init.ProtocolVersion = conn.ProtocolVersion() // the revision spoken, in either era
	return newSnapshot(spec.Name, &init, rep)
}

// newSnapshot builds the normalized snapshot of what a server answered.
func newSnapshot(server string, init *protocol.InitializeResult, rep *testReport) (*snapshot, error) {
	s := &snapshot{
		Schema: 1, Command: "snapshot", OK: true, Server: server,
		ServerInfo:        snapServerInfo{Name: init.ServerInfo.Name, Title: init.ServerInfo.Title, Version: init.ServerInfo.Version},
		Protocol:          init.ProtocolVersion,
		Era:               string(protocol.EraOf(init.ProtocolVersion)),
		Instructions:      init.Instructions,
		Tools:             []*snapTool{},
		Resources:         []*snapResource{},
		ResourceTemplates: []*snapTemplate{},
		Prompts:           []*protocol.Prompt{},
	}
	caps, err := json.Marshal(init.Capabilities)
	if err != nil {
		return nil, err
	}
	if s.Capabilities, err = normalizeJSON(caps); err != nil {
		return nil, fmt.Errorf("capabilities: %v", err)
	}
	for _, t := range rep.Tools {
		st := &snapTool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations, Execution: t.Execution}
		in := t.InputSchema
		if len(in) == 0 || string(in) == "null" {
			in = json.RawMessage(`{"type":"object"}`)
		}
		if st.InputSchema, err = normalizeJSON(in); err != nil {
			return nil, fmt.Errorf("tool %q: inputSchema: %v", t.Name, err)
		}
		if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
			if st.OutputSchema, err = normalizeJSON(t.OutputSchema); err != nil {
				return nil, fmt.Errorf("tool %q: outputSchema: %v", t.Name, err)
			}
		}
		s.Tools = append(s.Tools, st)
	}
	for _, r := range rep.Resources {
		sr := &snapResource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MimeType: r.MimeType}
		if r.Annotations != nil && len(r.Annotations.Audience) > 0 {
			sr.Audience = slices.Sorted(slices.Values(r.Annotations.Audience))
		}
		s.Resources = append(s.Resources, sr)
	}
	for _, t := range rep.ResourceTemplates {
		s.ResourceTemplates = append(s.ResourceTemplates, &snapTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType})
	}
	for _, p := range rep.Prompts {
		sp := &protocol.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: slices.Clone(p.Arguments)}
		slices.SortStableFunc(sp.Arguments, func(a, b protocol.PromptArgument) int { return strings.Compare(a.Name, b.Name) })
		s.Prompts = append(s.Prompts, sp)
	}
	s.sort()
	return s, nil
}

// sort puts every list in the order of its key.
func (s *snapshot) sort() {
	slices.SortStableFunc(s.Tools, func(a, b *snapTool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.Resources, func(a, b *snapResource) int { return strings.Compare(a.URI, b.URI) })
	slices.SortStableFunc(s.ResourceTemplates, func(a, b *snapTemplate) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	slices.SortStableFunc(s.Prompts, func(a, b *protocol.Prompt) int { return strings.Compare(a.Name, b.Name) })
}

// counts says how many of each kind the snapshot holds.
func (s *snapshot) counts() map[string]int {
	return map[string]int{"tools": len(s.Tools), "resources": len(s.Resources),
		"resourceTemplates": len(s.ResourceTemplates), "prompts": len(s.Prompts)}
}

// encode is the snapshot's bytes: indented JSON, one newline at the end.
func (s *snapshot) encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readSnapshot reads a snapshot file (or a `snapshot --json` document).
func readSnapshot(path string, data []byte) (*snapshot, error) {
	var s snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s is not a snapshot: %v", path, err)
	}
	if s.Command != "snapshot" || s.Schema != 1 {
		return nil, fmt.Errorf("%s is not a snapshot of schema 1 (made by the snapshot command)", path)
	}
	for _, t := range s.Tools {
		if t == nil || t.Name == "" {
			return nil, fmt.Errorf("%s: a tool without a name", path)
		}
		if len(t.InputSchema) == 0 {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	s.sort()
	return &s, nil
}

// normalizeJSON re-encodes raw JSON with object members sorted, numbers
// as written, and every "required" list sorted and without repeats.
func normalizeJSON(raw json.RawMessage) (json.RawMessage, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	v = normalizeValue(v)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// decodeJSON decodes raw JSON with numbers kept as json.Number.
func decodeJSON(raw json.RawMessage) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeValue(e)
		}
		if req, ok := x["required"].([]any); ok {
			x["required"] = sortedStrings(req)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeValue(e)
		}
	}
	return v
}

// sortedStrings sorts a list of strings and drops repeats; a list with
// anything else in it is left as it is.
func sortedStrings(list []any) []any {
	ss := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return list
		}
		ss = append(ss, s)
	}
	slices.Sort(ss)
	ss = slices.Compact(ss)
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// plural says "1 tool", "2 tools".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "y") && !strings.HasSuffix(word, "ey") {
		return fmt.Sprintf("%d %sies", n, word[:len(word)-1])
	}
	if strings.HasSuffix(word, "s") || strings.HasSuffix(word, "sh") || strings.HasSuffix(word, "ch") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
