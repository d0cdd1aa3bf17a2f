package protocol

import (
	"bytes"
	"encoding/json"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
	"reflect"
	"testing"
)

// FuzzDecodeResults decodes a tools/call result and a tools/list page,
// then checks that encoding and decoding again gives the same values.
func FuzzDecodeResults(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"image","data":"iVBO","mimeType":"image/png","annotations":{"audience":["user"],"priority":0.5}}],"isError":true}`,
		`{"content":[{"type":"resource_link","uri":"file:///r","name":"r","size":5,"icons":[{"src":"data:,","sizes":["any"]}]},{"type":"resource","resource":{"uri":"file:///e","blob":"AA=="}}],"structuredContent":{"a":[1,2]},"_meta":{"k":"v"}}`,
		`{"tools":[{"name":"t","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":{"type":"number"}}},"annotations":{"readOnlyHint":true,"title":"x"},"execution":{"taskSupport":"optional"}}],"nextCursor":"c2"}`,
		`{"tools":[null,{"name":""}]}`,
		`{}`, `null`, `[]`, `{"content":null,"isError":false}`,
		`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}`,
		`{"resultType":"complete","tools":[],"nextCursor":"","ttlMs":300000,"cacheScope":"public"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r1 CallToolResult
		if json.Unmarshal(data, &r1) == nil {
			b, err := json.Marshal(&r1)
			if err != nil {
				t.Fatalf("encoding %+v: %v", r1, err)
			}
			var r2 CallToolResult
			if err := json.Unmarshal(b, &r2); err != nil {
				t.Fatalf("decoding %s: %v", b, err)
			}
			if !reflect.DeepEqual(normResult(r1), normResult(r2)) {
				t.Fatalf("round trip changed %s into %s", data, b)
			}
			// The hand decoder agrees with encoding/json on what it wrote.
			fast, _, err := decodeCallResult(resultCursor(b))
			if err != nil {
				t.Fatalf("decodeCallResult(%s): %v", b, err)
			}
			if normResult(*fast) != normResult(r2) {
				t.Fatalf("decodeCallResult(%s) = %s", b, normResult(*fast))
			}
		}
		_, _, _ = decodeCallResult(jsonscan.NewCursor(data)) // never panics
		_, _ = decodeToolsPage(jsonscan.NewCursor(data), len(data))
		_, _, _ = pageHead(jsonscan.NewCursor(data))
		_, _ = readHead(data)
		// encoding/json: an empty page. Only JSON's four whitespace bytes
		// may surround it; bytes.TrimSpace also drops \v, \f and U+00A0,
		// which make the input malformed.
		if string(bytes.Trim(data, " \t\r\n")) == "null" {
			tools, err1 := decodeToolsPage(resultCursor(data), len(data))
			next, _, err2 := pageHead(resultCursor(data))
			if tools != nil || next != nil || err1 != nil || err2 != nil {
				t.Fatalf("null page: %v %v %v %v", tools, next, err1, err2)
			}
		}
		type page struct {
			Tools      []*Tool `json:"tools"`
			NextCursor *string `json:"nextCursor,omitempty"`
		}
		var p1 page
		if json.Unmarshal(data, &p1) == nil {
			b, err := json.Marshal(&p1)
			if err != nil {
				t.Fatalf("encoding tools: %v", err)
			}
			var p2 page
			if err := json.Unmarshal(b, &p2); err != nil {
				t.Fatalf("decoding %s: %v", b, err)
			}
			b2, _ := json.Marshal(&p2)
			if string(b) != string(b2) {
				t.Fatalf("tools round trip: %s then %s", b, b2)
			}
			tools, err := decodeToolsPage(resultCursor(b), len(b))
			if err != nil {
				t.Fatalf("decodeToolsPage(%s): %v", b, err)
			}
			next, _, err := pageHead(resultCursor(b))
			if err != nil {
				t.Fatalf("pageHead(%s): %v", b, err)
			}
			want, _ := json.Marshal(&page{Tools: dropNil(p2.Tools), NextCursor: p2.NextCursor})
			got, _ := json.Marshal(&page{Tools: tools, NextCursor: next})
			if string(got) != string(want) {
				t.Fatalf("decodeToolsPage(%s) gives %s, want %s (null tools dropped)", b, got, want)
			}
		}
		// The output check must not panic on anything.
		CheckOutput(data, data)
	})
}

// normResult makes raw members comparable: compacted, absent when null.
func normResult(r CallToolResult) string {
	b, _ := json.Marshal(&r)
	return string(b)
}

// resultCursor returns a Cursor over result as a session gets it: through
// a decoded response (indexed), or over the bare bytes when result is not
// JSON.
func resultCursor(result []byte) *jsonscan.Cursor {
	line := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), result...), '}')
	msgs, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return jsonscan.NewCursor(result)
	}
	return msgs[0].(*jsonrpc.Response).Cursor()
}
