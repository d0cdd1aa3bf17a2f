package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
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
		if arrays := toolsValues(data); werr == nil && len(arrays) > 1 {
			// encoding/json decodes a repeated array into the elements of
			// the one before, so what the last one leaves out still shows;
			// the decoder takes the last one alone.
			want.Tools = nil
			werr = json.Unmarshal(arrays[len(arrays)-1], &want.Tools)
		}
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
	// The tools of the last array given: the oracle decodes that one alone.
	values := toolsValues(data)
	var tools []json.RawMessage
	if len(values) == 0 || json.Unmarshal(values[len(values)-1], &tools) != nil {
		return false
	}
	for _, tl := range tools {
		if folded(tl) {
			return true
		}
	}
	return false
}

// toolsValues returns each value given as a page's "tools" member, in
// order: more than one when the name is repeated.
func toolsValues(data []byte) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var values []json.RawMessage
	for dec.More() {
		key, err := dec.Token()
		var value json.RawMessage
		if err != nil || dec.Decode(&value) != nil {
			return values
		}
		if key == "tools" {
			values = append(values, value)
		}
	}
	return values
}

// pageMessage is the answer carrying one page of 100 tools, as the list
// benchmarks' servers send it.
func pageMessage() []byte {
	var b []byte
	b = append(b, `{"jsonrpc":"2.0","id":7,"result":{"tools":[`...)
	for i := range 100 {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"name":"tool_3_%d","description":"does thing %d","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"the text"},"n":{"type":"integer"}},"required":["text"]}}`, i, i)
	}
	return append(b, `],"nextCursor":"c4"}}`...)
}

// The two passes over a page of a listing, jsonrpc's check of the message
// (BenchmarkCheckToolsPage: with the index of its large values) and the
// decoder's (BenchmarkDecodeToolsPage), each against the least a client
// that checks what a server sends does: jsonscan.Valid over the page.

func BenchmarkFloorToolsPage(b *testing.B) {
	msg := pageMessage()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if !jsonscan.Valid(msg) {
			b.Fatal("not valid")
		}
	}
}

func BenchmarkCheckToolsPage(b *testing.B) {
	msg := pageMessage()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeToolsPage(b *testing.B) {
	msg := pageMessage()
	msgs, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		b.Fatal(err)
	}
	resp := msgs[0].(*jsonrpc.Response)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if tools, err := decodeToolsPage(resp.Cursor(), len(resp.Result)); err != nil || len(tools) != 100 {
			b.Fatal(len(tools), err)
		}
	}
}
