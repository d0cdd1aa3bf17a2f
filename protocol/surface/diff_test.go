package surface

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/protocol"
)

// toolSnap is a snapshot holding one tool with the given schemas.
func toolSnap(t *testing.T, in, out string) *Snapshot {
	t.Helper()
	tool := &protocol.Tool{Name: "t", InputSchema: json.RawMessage(in)}
	if out != "" {
		tool.OutputSchema = json.RawMessage(out)
	}
	s, err := New("s", &protocol.InitializeResult{ProtocolVersion: "2025-11-25", ServerInfo: protocol.Implementation{Name: "s", Version: "1"}},
		&Listing{Tools: []*protocol.Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDiffClassifiesSchemaChanges checks each rule of the classification
// of a tool's input and output schema changes.
func TestDiffClassifiesSchemaChanges(t *testing.T) {
	const obj = `{"type":"object","properties":%s,"required":%s}`
	in := func(props, req string) string {
		return strings.Replace(strings.Replace(obj, "%s", props, 1), "%s", req, 1)
	}
	tests := []struct {
		name               string
		oldIn, newIn       string
		oldOut, newOut     string
		wantClass, wantChg string // the one change expected ("" for none)
	}{
		{"same", in(`{"a":{"type":"string"}}`, `["a"]`), in(`{"a":{"type":"string"}}`, `["a"]`), "", "", "", ""},
		{"member order and required order do not matter",
			`{"type":"object","required":["b","a"],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
			`{"properties":{"b":{"type":"string"},"a":{"type":"string"}},"required":["a","b"],"type":"object"}`, "", "", "", ""},
		{"required argument added", in(`{}`, `[]`), in(`{"a":{"type":"string"}}`, `["a"]`), "", "", Breaking, "required-added"},
		{"optional argument added", in(`{}`, `[]`), in(`{"a":{"type":"string"}}`, `[]`), "", "", Compatible, "optional-added"},
		{"argument removed", in(`{"a":{"type":"string"}}`, `[]`), in(`{}`, `[]`), "", "", Breaking, "argument-removed"},
		{"argument now required", in(`{"a":{"type":"string"}}`, `[]`), in(`{"a":{"type":"string"}}`, `["a"]`), "", "", Breaking, "now-required"},
		{"argument now optional", in(`{"a":{"type":"string"}}`, `["a"]`), in(`{"a":{"type":"string"}}`, `[]`), "", "", Compatible, "now-optional"},
		{"type changed", in(`{"a":{"type":"string"}}`, `[]`), in(`{"a":{"type":"integer"}}`, `[]`), "", "", Breaking, "type-changed"},
		{"type narrowed", in(`{"a":{"type":"number"}}`, `[]`), in(`{"a":{"type":"integer"}}`, `[]`), "", "", Breaking, "type-narrowed"},
		{"type widened", in(`{"a":{"type":"string"}}`, `[]`), in(`{"a":{"type":["string","null"]}}`, `[]`), "", "", Compatible, "type-widened"},
		{"enum value removed", in(`{"a":{"enum":["x","y"]}}`, `[]`), in(`{"a":{"enum":["x"]}}`, `[]`), "", "", Breaking, "enum-value-removed"},
		{"enum value added", in(`{"a":{"enum":["x"]}}`, `[]`), in(`{"a":{"enum":["x","y"]}}`, `[]`), "", "", Compatible, "enum-value-added"},
		{"maximum lowered", in(`{"a":{"type":"integer","maximum":10}}`, `[]`), in(`{"a":{"type":"integer","maximum":5}}`, `[]`), "", "", Breaking, "bound-narrowed"},
		{"minimum lowered", in(`{"a":{"type":"integer","minimum":10}}`, `[]`), in(`{"a":{"type":"integer","minimum":5}}`, `[]`), "", "", Compatible, "bound-widened"},
		{"nested property type", in(`{"o":{"type":"object","properties":{"x":{"type":"string"}}}}`, `[]`),
			in(`{"o":{"type":"object","properties":{"x":{"type":"boolean"}}}}`, `[]`), "", "", Breaking, "type-changed"},
		{"array items narrowed", in(`{"l":{"type":"array","items":{"enum":[1,2]}}}`, `[]`),
			in(`{"l":{"type":"array","items":{"enum":[1]}}}`, `[]`), "", "", Breaking, "enum-value-removed"},
		{"closed to other properties", in(`{"a":{}}`, `[]`), `{"type":"object","properties":{"a":{}},"required":[],"additionalProperties":false}`, "", "", Breaking, "additional-closed"},
		{"description only", in(`{"a":{"type":"string","description":"one"}}`, `[]`), in(`{"a":{"type":"string","description":"two"}}`, `[]`), "", "", Compatible, "description-changed"},
		{"unknown keyword changed", in(`{"a":{"anyOf":[{"type":"string"}]}}`, `[]`), in(`{"a":{"anyOf":[{"type":"number"}]}}`, `[]`), "", "", Breaking, "keyword-changed"},
		// The output: the client reads it, so the directions swap.
		{"output field removed", in(`{}`, `[]`), in(`{}`, `[]`), in(`{"sum":{"type":"number"}}`, `["sum"]`), in(`{}`, `[]`), Breaking, "field-removed"},
		{"output field added", in(`{}`, `[]`), in(`{}`, `[]`), in(`{}`, `[]`), in(`{"n":{"type":"number"}}`, `[]`), Compatible, "field-added"},
		{"output type narrowed", in(`{}`, `[]`), in(`{}`, `[]`), in(`{"n":{"type":"number"}}`, `[]`), in(`{"n":{"type":"integer"}}`, `[]`), Compatible, "type-narrowed"},
		{"output type widened", in(`{}`, `[]`), in(`{}`, `[]`), in(`{"n":{"type":"integer"}}`, `[]`), in(`{"n":{"type":"number"}}`, `[]`), Breaking, "type-widened"},
		{"output enum value added", in(`{}`, `[]`), in(`{}`, `[]`), in(`{"s":{"enum":["a"]}}`, `[]`), in(`{"s":{"enum":["a","b"]}}`, `[]`), Breaking, "enum-value-added"},
		{"output field now optional", in(`{}`, `[]`), in(`{}`, `[]`), in(`{"n":{}}`, `["n"]`), in(`{"n":{}}`, `[]`), Breaking, "now-optional"},
		{"output schema removed", in(`{}`, `[]`), in(`{}`, `[]`), in(`{}`, `[]`), "", Breaking, "output-schema-removed"},
		{"output schema added", in(`{}`, `[]`), in(`{}`, `[]`), "", in(`{}`, `[]`), Compatible, "output-schema-added"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changes := mustDiff(t, toolSnap(t, tt.oldIn, tt.oldOut), toolSnap(t, tt.newIn, tt.newOut))
			if tt.wantChg == "" {
				if len(changes) != 0 {
					t.Fatalf("want no changes, got %+v", changes)
				}
				return
			}
			if len(changes) != 1 || changes[0].Class != tt.wantClass || changes[0].Change != tt.wantChg {
				t.Fatalf("want one %s %s change, got %+v", tt.wantClass, tt.wantChg, changes)
			}
		})
	}
}

// TestDiffItems checks the changes of whole items, prompts, resources,
// annotations and capabilities.
func TestDiffItems(t *testing.T) {
	base := func() *Snapshot {
		s, err := New("s", &protocol.InitializeResult{ProtocolVersion: "2025-06-18",
			Capabilities: protocol.ServerCapabilities{Tools: &protocol.ListChangedCapability{}, Resources: &protocol.ResourcesCapability{Subscribe: true}},
			ServerInfo:   protocol.Implementation{Name: "s", Version: "1"}}, &Listing{
			Tools:     []*protocol.Tool{{Name: "ro", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &protocol.ToolAnnotations{ReadOnlyHint: ptr(true)}}},
			Resources: []*protocol.Resource{{URI: "r://1", Name: "one", MimeType: "text/plain"}},
			Prompts:   []*protocol.Prompt{{Name: "p", Arguments: []protocol.PromptArgument{{Name: "a", Required: true}, {Name: "b"}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name      string
		edit      func(s *Snapshot)
		wantClass string
		wantItem  string
		wantChg   string
	}{
		{"tool removed", func(s *Snapshot) { s.Tools = nil }, Breaking, "tool", "removed"},
		{"tool added", func(s *Snapshot) {
			s.Tools = append(s.Tools, &Tool{Name: "new", InputSchema: json.RawMessage(`{}`)})
		}, Compatible, "tool", "added"},
		{"read-only hint dropped", func(s *Snapshot) { s.Tools[0].Annotations = nil }, Breaking, "tool", "hint-changed"},
		{"prompt removed", func(s *Snapshot) { s.Prompts = nil }, Breaking, "prompt", "removed"},
		{"prompt argument removed", func(s *Snapshot) { s.Prompts[0].Arguments = s.Prompts[0].Arguments[:1] }, Breaking, "prompt", "argument-removed"},
		{"prompt argument now required", func(s *Snapshot) { s.Prompts[0].Arguments[1].Required = true }, Breaking, "prompt", "now-required"},
		{"prompt required argument added", func(s *Snapshot) {
			s.Prompts[0].Arguments = append(s.Prompts[0].Arguments, protocol.PromptArgument{Name: "c", Required: true})
		}, Breaking, "prompt", "required-added"},
		{"prompt optional argument added", func(s *Snapshot) {
			s.Prompts[0].Arguments = append(s.Prompts[0].Arguments, protocol.PromptArgument{Name: "c"})
		}, Compatible, "prompt", "optional-added"},
		{"resource removed", func(s *Snapshot) { s.Resources = nil }, Breaking, "resource", "removed"},
		{"resource mime type", func(s *Snapshot) { s.Resources[0].MimeType = "application/json" }, Breaking, "resource", "mime-type-changed"},
		{"resource renamed", func(s *Snapshot) { s.Resources[0].Name = "uno" }, Compatible, "resource", "description-changed"},
		{"capability removed", func(s *Snapshot) { s.Capabilities = json.RawMessage(`{"tools":{},"resources":{}}`) }, Breaking, "capability", "removed"},
		{"version changed", func(s *Snapshot) { s.ServerInfo.Version = "2" }, Compatible, "server", "version-changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.edit(s)
			changes := mustDiff(t, base(), s)
			if len(changes) != 1 || changes[0].Class != tt.wantClass || changes[0].Item != tt.wantItem || changes[0].Change != tt.wantChg {
				t.Fatalf("want one %s %s %s change, got %+v", tt.wantClass, tt.wantItem, tt.wantChg, changes)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestSnapshotRoundTrip: a snapshot read back from its bytes encodes to
// the same bytes, and differs from itself in nothing.
func TestSnapshotRoundTrip(t *testing.T) {
	s := toolSnap(t, `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number","minimum":1.50}},"required":["z","a","z"]}`, "")
	b1, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Read("x.json", b1)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1, b2) {
		t.Fatalf("re-encoded snapshot differs:\n%s\n%s", b1, b2)
	}
	if !strings.Contains(string(b1), `"required": [
          "a",
          "z"
        ]`) || !strings.Contains(string(b1), `"minimum": 1.50`) {
		t.Fatalf("required not sorted and deduplicated, or the number not kept as written:\n%s", b1)
	}
	if c := mustDiff(t, s, r); len(c) != 0 {
		t.Fatalf("a snapshot differs from itself read back: %+v", c)
	}
}

// FuzzReadSnapshot: any input either is refused or reads as a snapshot
// that differs from itself in nothing and re-encodes stably.
func FuzzReadSnapshot(f *testing.F) {
	s := toolSnap(&testing.T{}, `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]}},"required":["a"]}`, `{"type":"object"}`)
	b, _ := s.Encode()
	f.Add(b)
	f.Add([]byte(`{"schema":1,"command":"snapshot","tools":[{"name":"t","inputSchema":{"properties":{"a":{"items":{"maximum":1e400}}}}}]}`))
	f.Add([]byte(`{"schema":1,"command":"snapshot","prompts":[{"name":"p","arguments":[{"name":"a"},{"name":"a","required":true}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read("f.json", data)
		if err != nil {
			return
		}
		if c := mustDiff(t, s, s); len(c) != 0 {
			t.Fatalf("a snapshot differs from itself: %+v", c)
		}
		b1, err := s.Encode()
		if err != nil {
			return
		}
		s2, err := Read("f.json", b1)
		if err != nil {
			t.Fatalf("a snapshot mcpwire wrote does not read back: %v\n%s", err, b1)
		}
		b2, err := s2.Encode()
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("not stable: %v\n%s\n%s", err, b1, b2)
		}
	})
}

// mustDiff is Diff of two snapshots that nest within MaxDepth.
func mustDiff(t testing.TB, old, new *Snapshot) []Change {
	t.Helper()
	c, err := Diff(old, new)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
