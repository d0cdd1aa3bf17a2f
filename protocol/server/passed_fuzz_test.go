package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// FuzzPassedResult: a target's result passed on (a JSON object) stays
// valid JSON with the same members, less the modern head (serverInfo in
// _meta too) for a legacy host, and with one resultType "complete" and the server's serverInfo
// for a modern one.
func FuzzPassedResult(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"},"k":1}}`,
		`{"resultType":"complete","ttlMs":5,"cacheScope":"public","content":[]}`,
		`{"resultType":"task","content":[]}`, `{}`, `{"a":"\u00e9\n"}`,
		`{"_meta":{"io.modelcontextprotocol/serverInfo":{}},"x":1}`, `{"_meta":{"io.modelcontextprotocol\/serverInfo":1,"k":2}}`,
	} {
		f.Add([]byte(seed))
	}
	srv := New(Options{ServerInfo: func() any { return map[string]string{"name": "proxy", "version": "1"} }})
	call, read := &jsonrpc.Request{Method: "tools/call"}, &jsonrpc.Request{Method: "resources/read"}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in map[string]json.RawMessage
		if json.Unmarshal(data, &in) != nil || in == nil {
			return
		}
		data = bytes.TrimSpace(data)
		var legacy map[string]json.RawMessage
		if err := json.Unmarshal(withoutHead(data), &legacy); err != nil {
			t.Fatalf("withoutHead(%s): %v", data, err)
		}
		for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
			delete(in, k)
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(in["_meta"], &meta) == nil && meta[MetaServerInfo] != nil {
			delete(meta, MetaServerInfo)
			in["_meta"], _ = json.Marshal(meta)
			if len(meta) == 0 {
				delete(in, "_meta")
			}
		}
		if !sameMembers(in, legacy) {
			t.Fatalf("withoutHead(%s) = %s", data, withoutHead(data))
		}
		for _, req := range []*jsonrpc.Request{call, read} {
			res, _ := host{}.pass(data, nil) // a modern host
			out, err := srv.decorate(req, res)
			if err != nil {
				continue
			}
			var modern map[string]json.RawMessage
			if err := json.Unmarshal(out.(json.RawMessage), &modern); err != nil {
				t.Fatalf("decorate(%s): %v", data, err)
			}
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(modern["_meta"], &meta)
			if meta[MetaServerInfo] == nil {
				t.Fatalf("decorate(%s) = %s: no serverInfo", data, out)
			}
			seen := map[string]bool{}
			jsonscan.Members(out.(json.RawMessage), func(key, _ []byte) bool {
				if headKey(key) >= 0 && seen[string(key)] {
					t.Fatalf("%s: decorate(%s) = %s: %s twice", req.Method, data, out, key)
				}
				seen[string(key)] = true
				return true
			})
		}
	})
}

// sameMembers compares two objects' members as decoded values.
func sameMembers(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		var x, y any
		_ = json.Unmarshal(v, &x)
		_ = json.Unmarshal(b[k], &y)
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}
