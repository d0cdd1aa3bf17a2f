package jsonrpc

import (
	"encoding/json"
	"testing"
)

var unquoteCases = []string{
	`""`, `"plain text"`, `"tab\tnew\nline"`, `"\"\\\/\b\f\n\r\t"`, `"\u00e9\u4e2d"`,
	`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83dx\ude00"`, "\"\xff\xfe\"", "\"é\"",
	`"a very long run of plain text before an escape\n and after it"`, `"\u0000"`, `"\ud800\ud800"`,
}

func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, c := range unquoteCases {
		var want string
		if err := json.Unmarshal([]byte(c), &want); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		got, err := Unquote([]byte(c))
		if err != nil || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", c, got, err, want)
		}
	}
}

func FuzzUnquote(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || data[0] != '"' || skipString(data, 0) != len(data) || !Valid(data) {
			if _, err := Unquote(data); err == nil && !Valid(data) {
				// Unquote only promises encoding/json's answer on valid
				// tokens; on others it must not panic.
				return
			}
			return
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("valid token %q: %v", data, err)
		}
		got, err := Unquote(data)
		if err != nil || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; want %q", data, got, err, want)
		}
	})
}

func TestEachMemberAndElement(t *testing.T) {
	obj := []byte(` { "a" : [1, {"b":"}"}], "c\u0064":"x" , "e":{} } `)
	var keys []string
	var vals []string
	err := EachMember(obj, func(k string, v []byte) error {
		keys = append(keys, k)
		vals = append(vals, string(v))
		return nil
	})
	if err != nil || len(keys) != 3 || keys[1] != "cd" || vals[0] != `[1, {"b":"}"}]` || vals[2] != `{}` {
		t.Fatalf("got %q %q %v", keys, vals, err)
	}
	var elems []string
	if err := EachElement([]byte(vals[0]), func(v []byte) error { elems = append(elems, string(v)); return nil }); err != nil || len(elems) != 2 || elems[1] != `{"b":"}"}` {
		t.Fatalf("elements %q %v", elems, err)
	}
	for _, bad := range []string{``, `{`, `{"a"`, `{"a":`, `{"a":1`, `[1,`, `[`, `{1:2}`, `"x"`} {
		if EachMember([]byte(bad), func(string, []byte) error { return nil }) == nil && EachElement([]byte(bad), func([]byte) error { return nil }) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzEachMember(f *testing.F) {
	f.Add([]byte(`{"a":[1,2],"b":{"c":"d"}}`))
	f.Add([]byte(`[{"a":1},"x",[]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Never panics, whatever the input; on valid input it sees every
		// member encoding/json sees.
		n := 0
		err := EachMember(data, func(string, []byte) error { n++; return nil })
		_ = EachElement(data, func([]byte) error { return nil })
		var m map[string]json.RawMessage
		if Valid(data) && json.Unmarshal(data, &m) == nil && m != nil {
			if err != nil || n < len(m) {
				t.Fatalf("EachMember on %q: %d members, %v; encoding/json has %d", data, n, err, len(m))
			}
		}
	})
}
