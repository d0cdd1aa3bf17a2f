package jsonscan

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
