package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// refModern reads params as parseModern's fast path must: with
// encoding/json, member names matched exactly.
func refModern(params []byte) (has bool, mr *ModernRequest) {
	var top map[string]json.RawMessage
	if json.Unmarshal(params, &top) != nil {
		return false, nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(top["_meta"], &meta) != nil {
		return false, nil
	}
	_, has = meta[MetaVersion]
	mr = &ModernRequest{level: -1}
	if json.Unmarshal(meta[MetaVersion], &mr.Version) != nil || mr.Version != ModernVersion {
		return has, nil
	}
	caps, ok := meta[MetaCapabilities]
	if !ok || caps[0] != '{' || json.Unmarshal(caps, &mr.Caps) != nil {
		return has, nil
	}
	if raw, ok := meta[MetaLogLevel]; ok {
		var level string
		if json.Unmarshal(raw, &level) != nil {
			return has, nil
		}
		if mr.level = slices.Index(LogLevels(), level); mr.level < 0 {
			return has, nil
		}
	}
	for k, dst := range map[string]any{"inputResponses": &mr.Responses, "requestState": &mr.State} {
		if raw, ok := top[k]; ok && json.Unmarshal(raw, dst) != nil {
			return has, nil
		}
	}
	return has, mr
}

var modernSeeds = []string{
	`{}`, `null`, `[]`, `{"_meta":null}`, `{"_meta":"x"}`,
	`{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"info"},"inputResponses":{"a":{"x":1}},"requestState":"s\u0041"}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"requestState":5}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":null,"elicitation":{"form":{}},"extensions":{"io.x/y":{"a":1}},"other":1}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"Roots":{},"extensions":5}}}`,
	`{"\u005fmeta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}`,
}

// FuzzModernParams: the reading of a modern request's params without
// reflection says what encoding/json says (names matched exactly), or
// leaves the params to encoding/json.
func FuzzModernParams(f *testing.F) {
	for _, s := range modernSeeds {
		f.Add(s)
	}
	srv := New(Options{})
	f.Fuzz(func(t *testing.T, params string) {
		if !json.Valid([]byte(params)) {
			return
		}
		has, ref := refModern([]byte(params))
		if got, ok := fastHasMeta([]byte(params)); ok && got != has {
			t.Fatalf("fastHasMeta %v, encoding/json %v", got, has)
		}
		mr, ok := srv.fastModern([]byte(params))
		if !ok {
			_, _ = srv.parseModern([]byte(params)) // the slow path, which words the errors
			return
		}
		if ref == nil {
			t.Fatalf("fast path accepts what encoding/json refuses: %+v", mr)
		}
		if len(ref.Responses) == 0 && len(mr.Responses) == 0 {
			ref.Responses, mr.Responses = nil, nil
		}
		if !reflect.DeepEqual(mr, ref) {
			t.Fatalf("fast %+v, encoding/json %+v", mr, ref)
		}
	})
}

// FuzzCallParams: a tools/call's params read without reflection say what
// encoding/json says (names matched exactly), or are left to it.
func FuzzCallParams(f *testing.F) {
	for _, s := range append(modernSeeds, `{"name":"e\u0063ho","arguments":{"a":[1,2]},"_meta":{"progressToken":7}}`,
		`{"name":5}`, `{"name":"x","arguments":null}`, `{"name":"x","_meta":{"progressToken":"t"},"_meta":{}}`) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, params string) {
		if !json.Valid([]byte(params)) {
			return
		}
		name, args, tok, ok := callParams([]byte(params))
		if !ok {
			return
		}
		var top map[string]json.RawMessage
		var want struct {
			name      string
			args, tok json.RawMessage
		}
		if json.Unmarshal([]byte(params), &top) != nil || json.Unmarshal(top["name"], &want.name) != nil {
			t.Fatalf("fast path reads %q, encoding/json refuses", params)
		}
		want.args = top["arguments"]
		if m := top["_meta"]; m != nil && string(m) != "null" {
			var meta map[string]json.RawMessage
			if json.Unmarshal(m, &meta) != nil {
				t.Fatalf("fast path reads _meta %s, encoding/json refuses", m)
			}
			want.tok = meta["progressToken"]
		}
		if name != want.name || string(args) != string(want.args) || string(tok) != string(want.tok) {
			t.Fatalf("fast %q %s %s, encoding/json %q %s %s", name, args, tok, want.name, want.args, want.tok)
		}
	})
}
