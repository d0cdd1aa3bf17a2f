package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// FuzzToolsPage checks the hand decoder of a tools/list page against
// encoding/json, the oracle, on the bytes as given (escapes, surrogates,
// invalid UTF-8, repeated member names, nulls, wrong types): both accept
// or both refuse, and what they give is the same, but for what the
// decoder does on purpose (member names match exactly, a null schema is
// no schema, null tools are left out).
func FuzzToolsPage(f *testing.F) {
	for _, seed := range []string{
		`{"tools":[{"name":"a","title":"A","description":"d","inputSchema":{"type":"object"}}],"nextCursor":"c"}`,
		`{"tools":[{"name":"a\u00e9\ud83d\ude00\ud800x","description":"\"q\"\\\n","name":"b"}]}`,
		`{"tools":[{"name":"a","inputSchema":null,"outputSchema":{"type":"object"},"_meta":{"k":[1,2]}},null,{"name":"c"}]}`,
		`{"tools":[{"name":"a","annotations":{"title":"t","readOnlyHint":true},"annotations":{"openWorldHint":false},"execution":{"taskSupport":"optional"},"icons":[{"src":"data:,"}]}]}`,
		`{"tools":[{"name":"first"}],"tools":[{"name":"second"},{"name":null}]}`,
		`{"tools":[{"name":5}]}`, `{"tools":{}}`, `{"tools":[1]}`, `[]`, `null`, `{}`, `{"tools":null}`, `{"tools":[]}`,
		"{\"tools\":[{\"name\":\"\xff\xfe\",\"description\":\"" + strings.Repeat("x", 200) + "\\u0041\"}]}",
		`{"tools":[{"Name":"folded","ſcope":1}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeToolsPage(jsonscan.NewCursor(data), len(data)) // never panics
		if !json.Valid(data) || foldedNames(data) {
			return
		}
		var want struct {
			Tools []*Tool `json:"tools"`
		}
		werr := json.Unmarshal(data, &want)
		got, gerr := decodeToolsPage(resultCursor(data), len(data))
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: encoding/json says %v, the decoder %v", data, werr, gerr)
		}
		if werr != nil {
			return
		}
		if (want.Tools == nil) != (got == nil) {
			t.Fatalf("%s: encoding/json gives %#v, the decoder %#v", data, want.Tools, got)
		}
		wantTools := dropNil(want.Tools)
		for _, tl := range wantTools {
			for _, r := range []*json.RawMessage{&tl.InputSchema, &tl.OutputSchema, &tl.Meta} {
				if string(*r) == "null" {
					*r = nil
				}
			}
		}
		wb, err1 := json.Marshal(wantTools)
		gb, err2 := json.Marshal(got)
		if err1 != nil || err2 != nil || string(wb) != string(gb) {
			t.Fatalf("%s:\nencoding/json %s (%v)\nthe decoder   %s (%v)", data, wb, err1, gb, err2)
		}
	})
}

// toolNames are the member names the decoder reads, of a page and a tool.
var toolNames = []string{"tools", "name", "title", "description", "inputSchema", "outputSchema", "_meta", "annotations", "execution", "icons"}

// foldedNames reports whether a page or one of its tools has a member
// name that encoding/json takes for one the decoder reads only as
// spelled ("Name", "ſcope" for "scope").
func foldedNames(data []byte) bool {
	folded := func(raw []byte) bool {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return false
		}
		for k := range m {
			for _, n := range toolNames {
				if k != n && strings.EqualFold(k, n) {
					return true
				}
			}
		}
		return false
	}
	if folded(data) {
		return true
	}
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(data, &page)
	for _, tl := range page.Tools {
		if folded(tl) {
			return true
		}
	}
	return false
}
