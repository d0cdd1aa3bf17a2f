package surface

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// A Pin is the surface of a server as a person approved it: each tool in
// its normalized form with its fingerprint, and the server's
// instructions. A later connection is compared with it (Compare).
type Pin struct {
	Version      int           `json:"version"` // 1
	Instructions string        `json:"instructions"`
	Tools        []*PinnedTool `json:"tools"`
}

// A PinnedTool is one tool of a Pin.
type PinnedTool struct {
	// SHA256 is the tool's Fingerprint.
	SHA256 string `json:"sha256"`
	Tool   *Tool  `json:"tool"`
}

// Fingerprint is the hex SHA-256 of a tool's canonical JSON: its name,
// title, description, input and output schema (normalized: members
// sorted, "required" lists sorted) and annotations. Two listings of the
// same tool give the same fingerprint whatever the member order or
// whitespace the server used.
func Fingerprint(t *Tool) string {
	c := struct {
		Name         string                    `json:"name"`
		Title        string                    `json:"title"`
		Description  string                    `json:"description"`
		InputSchema  json.RawMessage           `json:"inputSchema"`
		OutputSchema json.RawMessage           `json:"outputSchema,omitempty"`
		Annotations  *protocol.ToolAnnotations `json:"annotations,omitempty"`
	}{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		// The schemas are normalized JSON and the rest strings and
		// booleans: this cannot fail; a fingerprint that matches
		// nothing keeps the tool quarantined if it did.
		return "unencodable: " + err.Error()
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

// NewPin pins tools (as listed) and instructions.
func NewPin(tools []*protocol.Tool, instructions string) (*Pin, error) {
	p := &Pin{Version: 1, Instructions: instructions, Tools: []*PinnedTool{}}
	for _, t := range tools {
		st, err := NewTool(t)
		if err != nil {
			return nil, err
		}
		p.Tools = append(p.Tools, &PinnedTool{SHA256: Fingerprint(st), Tool: st})
	}
	slices.SortStableFunc(p.Tools, func(a, b *PinnedTool) int { return strings.Compare(a.Tool.Name, b.Tool.Name) })
	return p, nil
}

// ReadPin reads a Pin as Encode wrote it; each tool's fingerprint is
// computed again, so that a record whose tools and fingerprints disagree
// is refused.
func ReadPin(data []byte) (*Pin, error) {
	var p Pin
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a pinned surface: %v", err)
	}
	if p.Version != 1 {
		return nil, fmt.Errorf("a pinned surface of version %d (this mcpwire reads 1)", p.Version)
	}
	for _, t := range p.Tools {
		if t == nil || t.Tool == nil || t.Tool.Name == "" {
			return nil, fmt.Errorf("a pinned tool without a name")
		}
		if Fingerprint(t.Tool) != t.SHA256 {
			return nil, fmt.Errorf("pinned tool %q: its fingerprint does not match it", t.Tool.Name)
		}
	}
	return &p, nil
}

// Encode is the pin's JSON.
func (p *Pin) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Tool returns the pinned tool named name, or nil.
func (p *Pin) Tool(name string) *PinnedTool {
	for _, t := range p.Tools {
		if t.Tool.Name == name {
			return t
		}
	}
	return nil
}

// Snapshot is the pin as a snapshot holding its tools and instructions
// only, for Diff.
func (p *Pin) Snapshot(server string) *Snapshot {
	s := &Snapshot{Schema: 1, Command: "snapshot", OK: true, Server: server, Instructions: p.Instructions,
		Capabilities: json.RawMessage(`{}`), Tools: []*Tool{}, Resources: []*Resource{},
		ResourceTemplates: []*Template{}, Prompts: []*protocol.Prompt{}}
	for _, t := range p.Tools {
		s.Tools = append(s.Tools, t.Tool)
	}
	return s
}

// A Verdict is how a listing compares with a Pin.
type Verdict struct {
	Changed []string // tools whose fingerprint differs from the pinned one, sorted
	Added   []string // tools the pin does not hold, sorted
	Removed []string // pinned tools no longer listed, sorted
	// InstructionsChanged says the instructions differ from the pinned
	// ones.
	InstructionsChanged bool
}

// Same says nothing differs.
func (v *Verdict) Same() bool {
	return len(v.Changed) == 0 && len(v.Added) == 0 && len(v.Removed) == 0 && !v.InstructionsChanged
}

// Compare compares the pin with what the server offers now: now is a
// pin of the live listing (NewPin).
func (p *Pin) Compare(now *Pin) *Verdict {
	v := &Verdict{InstructionsChanged: p.Instructions != now.Instructions}
	for _, t := range now.Tools {
		old := p.Tool(t.Tool.Name)
		switch {
		case old == nil:
			v.Added = append(v.Added, t.Tool.Name)
		case old.SHA256 != t.SHA256:
			v.Changed = append(v.Changed, t.Tool.Name)
		}
	}
	for _, t := range p.Tools {
		if now.Tool(t.Tool.Name) == nil {
			v.Removed = append(v.Removed, t.Tool.Name)
		}
	}
	v.Changed, v.Added, v.Removed = compact(v.Changed), compact(v.Added), compact(v.Removed)
	return v
}

// compact sorts names and drops repeats (a server may list a name twice).
func compact(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}
