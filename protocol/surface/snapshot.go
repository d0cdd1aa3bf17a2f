package surface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// A Snapshot is a server's surface as `mcpwire snapshot` writes it and
// `mcpwire diff` reads it: identity, revision, capabilities, tools with
// their schemas and annotations, resources, templates and prompts. It is
// normalized so that two runs against the same server give the same
// bytes: lists sorted by their key, JSON objects with sorted members,
// "required" lists sorted, and nothing that varies from run to run
// (timings, _meta, icons, sizes, lastModified).
type Snapshot struct {
	Schema            int                `json:"schema"`
	Command           string             `json:"command"`
	OK                bool               `json:"ok"`
	Server            string             `json:"server"`
	ServerInfo        ServerInfo         `json:"serverInfo"`
	Protocol          string             `json:"protocol"`
	Era               string             `json:"era"` // of the protocol revision: modern or legacy
	Capabilities      json.RawMessage    `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	Tools             []*Tool            `json:"tools"`
	Resources         []*Resource        `json:"resources"`
	ResourceTemplates []*Template        `json:"resourceTemplates"`
	Prompts           []*protocol.Prompt `json:"prompts"`
	// Client is what mcpwire declared when the snapshot was taken; nil
	// in a snapshot written before it was recorded.
	Client *Client `json:"client,omitempty"`
}

// ServerInfo is the server's identity in a snapshot.
type ServerInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Tool is one tool of a snapshot; the schemas are normalized JSON.
type Tool struct {
	Name         string                    `json:"name"`
	Title        string                    `json:"title,omitempty"`
	Description  string                    `json:"description,omitempty"`
	InputSchema  json.RawMessage           `json:"inputSchema"`
	OutputSchema json.RawMessage           `json:"outputSchema,omitempty"`
	Annotations  *protocol.ToolAnnotations `json:"annotations,omitempty"`
	Execution    *protocol.ToolExecution   `json:"execution,omitempty"`
	// UIResource is the ui:// resource the tool declares (MCP Apps:
	// _meta.ui.resourceUri); "" when none.
	UIResource string `json:"uiResource,omitempty"`
}

// Resource is one resource of a snapshot.
type Resource struct {
	URI         string   `json:"uri"`
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	MimeType    string   `json:"mimeType,omitempty"`
	Audience    []string `json:"audience,omitempty"`
}

// Template is one resource template of a snapshot.
type Template struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// Listing is what a server listed, as the protocol package returns it.
type Listing struct {
	Tools             []*protocol.Tool
	Resources         []*protocol.Resource
	ResourceTemplates []*protocol.ResourceTemplate
	Prompts           []*protocol.Prompt
}

// New builds the normalized snapshot of what a server answered: init is
// its initialize (or discover) result with the revision spoken, l what it
// listed. A schema nested deeper than MaxDepth is an error (a *DepthError).
func New(server string, init *protocol.InitializeResult, l *Listing) (*Snapshot, error) {
	s := &Snapshot{
		Schema: 1, Command: "snapshot", OK: true, Server: server,
		ServerInfo:        ServerInfo{Name: init.ServerInfo.Name, Title: init.ServerInfo.Title, Version: init.ServerInfo.Version},
		Protocol:          init.ProtocolVersion,
		Era:               string(protocol.EraOf(init.ProtocolVersion)),
		Instructions:      init.Instructions,
		Tools:             []*Tool{},
		Resources:         []*Resource{},
		ResourceTemplates: []*Template{},
		Prompts:           []*protocol.Prompt{},
	}
	caps, err := json.Marshal(init.Capabilities)
	if err != nil {
		return nil, err
	}
	if s.Capabilities, err = NormalizeJSON(caps); err != nil {
		return nil, fmt.Errorf("capabilities: %v", err)
	}
	for _, t := range l.Tools {
		st, err := NewTool(t)
		if err != nil {
			return nil, err
		}
		s.Tools = append(s.Tools, st)
	}
	for _, r := range l.Resources {
		sr := &Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MimeType: r.MimeType}
		if r.Annotations != nil && len(r.Annotations.Audience) > 0 {
			sr.Audience = slices.Sorted(slices.Values(r.Annotations.Audience))
		}
		s.Resources = append(s.Resources, sr)
	}
	for _, t := range l.ResourceTemplates {
		s.ResourceTemplates = append(s.ResourceTemplates, &Template{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType})
	}
	for _, p := range l.Prompts {
		sp := &protocol.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: slices.Clone(p.Arguments)}
		for i := range sp.Arguments {
			sp.Arguments[i] = sp.Arguments[i].Plain()
		}
		sort.SliceStable(sp.Arguments, func(i, j int) bool { return sp.Arguments[i].Name < sp.Arguments[j].Name })
		s.Prompts = append(s.Prompts, sp)
	}
	s.sort()
	return s, s.check("")
}

// NewTool is the normalized form of one tool, as a snapshot holds it.
func NewTool(t *protocol.Tool) (*Tool, error) {
	st := &Tool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations, Execution: t.Execution, UIResource: t.UIResource()}
	in := t.InputSchema
	if len(in) == 0 || string(in) == "null" {
		in = json.RawMessage(`{"type":"object"}`)
	}
	var err error
	if st.InputSchema, err = NormalizeJSON(in); err != nil {
		return nil, fmt.Errorf("tool %q: inputSchema: %v", t.Name, err)
	}
	if len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
		if st.OutputSchema, err = NormalizeJSON(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: outputSchema: %v", t.Name, err)
		}
	}
	return st, nil
}

// sort puts every list in the order of its key.
func (s *Snapshot) sort() {
	slices.SortStableFunc(s.Tools, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(s.Resources, func(a, b *Resource) int { return strings.Compare(a.URI, b.URI) })
	slices.SortStableFunc(s.ResourceTemplates, func(a, b *Template) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	slices.SortStableFunc(s.Prompts, func(a, b *protocol.Prompt) int { return strings.Compare(a.Name, b.Name) })
}

// Counts says how many of each kind the snapshot holds.
func (s *Snapshot) Counts() map[string]int {
	return map[string]int{"tools": len(s.Tools), "resources": len(s.Resources),
		"resourceTemplates": len(s.ResourceTemplates), "prompts": len(s.Prompts)}
}

// Encode is the snapshot's bytes: indented JSON, one newline at the end.
func (s *Snapshot) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Read reads a snapshot file (or a `snapshot --json` document); name
// names it in errors. A schema nested deeper than MaxDepth is an error
// (a *DepthError).
func Read(name string, data []byte) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s is not a snapshot: %v", name, err)
	}
	if s.Command != "snapshot" || s.Schema != 1 {
		return nil, fmt.Errorf("%s is not a snapshot of schema 1 (made by the snapshot command)", name)
	}
	for _, t := range s.Tools {
		if t == nil || t.Name == "" {
			return nil, fmt.Errorf("%s: a tool without a name", name)
		}
		if len(t.InputSchema) == 0 {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	if s.Client != nil && len(s.Client.Capabilities) > 0 {
		caps, err := NormalizeJSON(s.Client.Capabilities)
		if err != nil {
			return nil, fmt.Errorf("%s: client.capabilities: %v", name, err)
		}
		s.Client.Capabilities = caps
	}
	s.sort()
	return &s, s.check(name + ": ")
}

// NormalizeJSON re-encodes raw JSON with object members sorted, numbers
// as written, and every "required" list sorted and without repeats.
func NormalizeJSON(raw json.RawMessage) (json.RawMessage, error) {
	v, err := DecodeJSON(raw)
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

// DecodeJSON decodes raw JSON with numbers kept as json.Number.
func DecodeJSON(raw json.RawMessage) (any, error) {
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
