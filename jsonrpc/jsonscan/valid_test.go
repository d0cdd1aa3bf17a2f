package jsonscan

import (
	"encoding/json"
	"testing"
)

var validCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e10`, `-1E-2`, `true`, `false`, `null`,
	`{"a":[1,2,{"b":null}],"c":"\u00e9\n\"\\\/"}`, " \t\r\n{ \"a\" : 1 } ",
	`01`, `1.`, `.5`, `-`, `1e`, `+1`, `"\x"`, `"\u12"`, "\"a\x01\"", `{"a"}`, `{"a":1,}`, `[1,]`,
	`[1 2]`, `{"a" 1}`, `tru`, `nul`, `"`, `{`, `[`, `{}{}`, "\"\xff\"", `{"a":1}x`, ``, ` `,
	`"\ud800"`, "\"é\"",
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", c, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", data, got, want)
		}
	})
}
