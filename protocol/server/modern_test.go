package server

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestDecorateMeta: a result's own _meta keeps its members, its
// serverInfo is the server's, and resultType and the caching hint are
// added, whether the result's bytes are appended to or decoded again.
func TestDecorateMeta(t *testing.T) {
	srv := New(Options{ServerInfo: func() any { return map[string]string{"name": "proxy", "version": "1"} }})
	info := `{"name":"proxy","version":"1"}`
	rows := []struct{ method, in, want string }{
		{"tools/call", `{}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{"tools/call", `{"content":[]}`, `{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{"tools/call", `{"content":[{"type":"text","text":"hi"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"target"},"x/y":[1]}}`,
			`{"content":[{"type":"text","text":"hi"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"x/y":[1]}}`},
		{"tools/call", `{"_meta":{},"isError":true}`, `{"isError":true,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `}}`},
		{"tools/list", `{"tools":[],"_meta":{"a":1}}`, `{"tools":[],"resultType":"complete","ttlMs":30000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"a":1}}`},
		{"tools/call", `{"resultType":"task","_meta":{"a":1}}`, `{"resultType":"task","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"a":1}}`},
		{"tools/call", `{"_meta":{"\u0061":1}}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"a":1}}`},
	}
	for _, r := range rows {
		out, err := srv.decorate(&jsonrpc.Request{Method: r.method}, json.RawMessage(r.in))
		if err != nil {
			t.Fatalf("%s: %v", r.in, err)
		}
		var got, want any
		if err := json.Unmarshal(out.(json.RawMessage), &got); err != nil {
			t.Fatalf("%s: decorated to invalid JSON %s: %v", r.in, out, err)
		}
		_ = json.Unmarshal([]byte(r.want), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s\n got %s\nwant %s", r.in, out, r.want)
		}
	}
}
