package cli

import (
	"encoding/json"
	"testing"
)

// FuzzVerifyIgnorePath: any --ignore path is read or refused, never a
// crash; one that is read ignores the value it names and nothing beside.
func FuzzVerifyIgnorePath(f *testing.F) {
	for _, s := range []string{"result.content[0].text", "_meta", `_meta["io.x/y"]`, "content[*].text", "a.*", "error.message", "[", `["`, "a..b", "[-1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		paths, err := parseIgnorePaths([]string{s})
		if err != nil {
			return
		}
		// The path itself, spelled with every wildcard made concrete.
		var concrete []pathSeg
		for _, seg := range paths[0] {
			switch {
			case seg.index == -2:
				seg.index = 0
			case seg.index < 0 && seg.key == "*":
				seg.key = "k"
			}
			concrete = append(concrete, seg)
		}
		d := &valueDiffer{ignore: paths}
		if !d.ignored(concrete) {
			t.Fatalf("%q does not ignore %s", s, pathString(concrete))
		}
		if d.ignored(append(concrete, pathSeg{key: "below", index: -1})) && len(concrete) > 0 {
			t.Fatalf("%q ignores below its path", s)
		}
	})
}

// FuzzReadVerifyRecording: any bytes as a recording are read or refused
// with an error; what is read compares with itself as the same.
func FuzzReadVerifyRecording(f *testing.F) {
	f.Add([]byte(`{"t":0,"recording":1}
{"t":1,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}}
{"t":2,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x","version":"1"}}}}}
{"t":3,"server":"s","session":{"transport":"stdio","era":"modern","protocol":"2026-07-28"}}
{"t":4,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}
{"t":5,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}}}
`))
	f.Add([]byte(`{"server":"s","dir":"recv","msg":{"id":1,"error":{"code":-1,"message":"x"}}}`))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := readVerifyRecording("fuzz.jsonl", data, "")
		if err != nil {
			return
		}
		for _, r := range rec.requests {
			if r.result == nil {
				continue
			}
			a, err := normalizeAnswer(r.method, r.result)
			if err != nil {
				continue
			}
			b, _ := json.Marshal(a)
			again, err := normalizeAnswer(r.method, b)
			if err != nil {
				t.Fatalf("%s: a normalized answer does not read again: %v", r.method, err)
			}
			d := &valueDiffer{}
			if d.compare(nil, a, again); d.count != 0 {
				t.Fatalf("%s: an answer differs from itself: %+v", r.method, d.diffs)
			}
		}
	})
}
