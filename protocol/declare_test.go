package protocol

import (
	"encoding/json"
	"testing"
)

// FuzzDeclaredCapabilities: whatever another client's capabilities
// object holds, what is declared for it encodes, has no member but
// roots, sampling, elicitation and extensions, and declares each of the
// first three exactly when the object did (as an object).
func FuzzDeclaredCapabilities(f *testing.F) {
	for _, s := range []string{`{}`, `{"roots":{"listChanged":true},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}}`,
		`{"extensions":{"x":{},"y":1},"experimental":{},"tasks":{}}`, `{"sampling":null,"roots":true}`, `[]`, `nul`, `{"Roots":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in map[string]json.RawMessage
		_ = json.Unmarshal(raw, &in)
		for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
			caps := declaredCapabilities(version, raw)
			if _, err := json.Marshal(caps); err != nil {
				t.Fatalf("%s: %v", version, err)
			}
			for k := range caps {
				switch k {
				case "roots", "sampling", "elicitation", "extensions":
				default:
					t.Fatalf("%s: declared %q", version, k)
				}
			}
			var parsed struct{ Roots, Sampling, Elicitation json.RawMessage }
			_ = json.Unmarshal(raw, &parsed)
			for name, v := range map[string]json.RawMessage{"roots": parsed.Roots, "sampling": parsed.Sampling, "elicitation": parsed.Elicitation} {
				if _, ok := caps[name]; ok != isObject(v) {
					t.Fatalf("%s: %s declared %v for %s", version, name, ok, v)
				}
			}
		}
	})
}
