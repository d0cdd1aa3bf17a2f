package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

func TestNormalizeSchema(t *testing.T) {
	empty := `{"type":"object","properties":{}}`
	tests := []struct {
		name, in, want string
	}{
		{"already fine", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
		{"no root type", `{"properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"no properties", `{"type":"object"}`, empty},
		{"empty", `{}`, empty},
		{"missing", ``, empty},
		{"null", `null`, empty},
		{"not JSON", `{"type":`, empty},
		{"array root", `[1,2]`, empty},
		{"string root", `"object"`, empty},
		{"non-object type", `{"type":"string","description":"a name"}`, `{"type":"object","properties":{},"description":"a name"}`},
		{"array type", `{"type":"array","items":{"type":"string"}}`, empty},
		{"type list with object", `{"type":["object","null"],"properties":{"a":{}}}`, `{"type":"object","properties":{"a":{}}}`},
		{"oneOf", `{"oneOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"number"}},"required":["b"]}]}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}}}`},
		{"anyOf with a common requirement", `{"type":"object","properties":{"id":{"type":"string"}},"anyOf":[{"properties":{"a":{}},"required":["id","a"]},{"properties":{"b":{}},"required":["b","id"]}]}`,
			`{"type":"object","properties":{"id":{"type":"string"},"a":{},"b":{}},"required":["id"]}`},
		{"allOf", `{"allOf":[{"properties":{"a":{}},"required":["a"]},{"properties":{"b":{}},"required":["b","a"]}],"required":["c"],"properties":{"c":{}}}`,
			`{"type":"object","properties":{"a":{},"b":{},"c":{}},"required":["c","a","b"]}`},
		{"first definition of a property wins", `{"properties":{"a":{"type":"string"}},"oneOf":[{"properties":{"a":{"type":"number"}}}]}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"oneOf not an array", `{"type":"object","oneOf":{"x":1},"properties":{}}`, empty},
		{"properties not an object", `{"type":"object","properties":5}`, empty},
		{"other members kept", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{}}`,
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,"properties":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := normalizeSchema(json.RawMessage(tt.in))
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("normalizeSchema(%s) = %s: %v", tt.in, got, err)
			}
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("normalizeSchema(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			// The required list, when present, keeps its order.
			var gr, wr struct{ Required []string }
			json.Unmarshal(got, &gr)
			json.Unmarshal([]byte(tt.want), &wr)
			if !reflect.DeepEqual(gr.Required, wr.Required) {
				t.Errorf("required = %v, want %v", gr.Required, wr.Required)
			}
		})
	}
}

func FuzzNormalizeSchema(f *testing.F) {
	for _, s := range []string{`{}`, `{"oneOf":[{"properties":{"a":{}}}]}`, `{"type":"string"}`, `[]`, `{"allOf":[1]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := normalizeSchema(in)
		var root map[string]json.RawMessage
		if err := json.Unmarshal(out, &root); err != nil {
			t.Fatalf("not an object: %s", out)
		}
		if string(root["type"]) != `"object"` {
			t.Fatalf("root type %s", root["type"])
		}
		var props map[string]json.RawMessage
		if err := json.Unmarshal(root["properties"], &props); err != nil || props == nil {
			t.Fatalf("properties %s", root["properties"])
		}
		for _, k := range []string{"oneOf", "anyOf", "allOf"} {
			if _, ok := root[k]; ok {
				t.Fatalf("%s kept: %s", k, out)
			}
		}
	})
}

// TestRawInputSchema: a tool's schema as the server wrote it (a root
// anyOf, from the demo's --union) stays beside the normalized one.
func TestRawInputSchema(t *testing.T) {
	m, _ := newManager(t, Options{}, demoServer{name: "d", args: []string{"--union"}})
	ctx := context.Background()
	if err := m.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	tools, err := m.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Original != "either" {
			continue
		}
		want := `{"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}`
		var compact bytes.Buffer
		json.Compact(&compact, []byte(want)) // as the demo's encoder sends it
		if string(tl.RawInputSchema) != compact.String() {
			t.Errorf("raw schema:\n got %s\nwant %s", tl.RawInputSchema, want)
		}
		var norm struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			AnyOf      any                        `json:"anyOf"`
		}
		if json.Unmarshal(tl.InputSchema, &norm) != nil || norm.Type != "object" || len(norm.Properties) != 2 || norm.AnyOf != nil {
			t.Errorf("normalized schema: %s", tl.InputSchema)
		}
		return
	}
	t.Fatalf("no tool either among %d", len(tools))
}
