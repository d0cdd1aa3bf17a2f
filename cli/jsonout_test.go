package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWriteIndentedMatchesIndent checks the streaming indentation against
// json.Indent, byte for byte, on encoding/json's compact output.
func TestWriteIndentedMatchesIndent(t *testing.T) {
	for _, v := range []any{
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": "x\"y\\", "d": []any{1, "two", nil, true, 2.5e-9}},
		[]any{map[string]any{"k": []any{map[string]any{"deep": "é\u2028<>&"}}}, "],}{:,"},
		"just a string",
		json.RawMessage(`{"n":-0.5,"e":1E+5,"s":"\u0000\"\\/"}`),
	} {
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		checkIndented(t, compact.Bytes())
	}
}

func FuzzWriteIndented(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c\"]"},[]],"d":{}}`))
	f.Add([]byte(`"x"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return
		}
		checkIndented(t, compact.Bytes())
	})
}

// checkIndented compares writeIndented with json.Indent on src.
func checkIndented(t *testing.T, src []byte) {
	t.Helper()
	var want, got bytes.Buffer
	if err := json.Indent(&want, src, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := writeIndented(&got, src, "  "); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("writeIndented(%q):\n%q\njson.Indent:\n%q", src, got.Bytes(), want.Bytes())
	}
}
