package protocol

import (
	"encoding/json"
	"testing"
)

// TestPromptArgumentKeepsRequired: a prompt argument is encoded again as
// its server sent it: "required": false kept, and not added when absent.
func TestPromptArgumentKeepsRequired(t *testing.T) {
	for _, in := range []string{
		`{"name":"a","required":false}`,
		`{"name":"a","required":true}`,
		`{"name":"a"}`,
		`{"name":"a","title":"A","description":"d","required":false}`,
	} {
		var a PromptArgument
		if err := json.Unmarshal([]byte(in), &a); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(a)
		if err != nil || string(out) != in {
			t.Errorf("%s encoded again: %s %v", in, out, err)
		}
	}
	var a PromptArgument
	_ = json.Unmarshal([]byte(`{"name":"a","required":false}`), &a)
	if out, _ := json.Marshal(a.Plain()); string(out) != `{"name":"a"}` {
		t.Errorf("Plain: %s", out)
	}
}

// FuzzPromptArgument: what decodes encodes to what decodes the same.
func FuzzPromptArgument(f *testing.F) {
	for _, s := range []string{`{"name":"a","required":false}`, `{"name":"a"}`, `{"required":null}`, `{"required":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var a, b PromptArgument
		if json.Unmarshal(data, &a) != nil {
			return
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		if err := json.Unmarshal(out, &b); err != nil || a != b {
			t.Fatalf("%s: encoded %s, decoded %+v, want %+v (%v)", data, out, b, a, err)
		}
	})
}
