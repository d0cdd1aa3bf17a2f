package scripttest

import (
	"bytes"
	"reflect"
	"testing"
)

func TestParseArchive(t *testing.T) {
	tests := []struct {
		in   string
		want Archive
	}{
		{"", Archive{}},
		{"just a script\nno files", Archive{Comment: []byte("just a script\nno files\n")}},
		{"cmd\n-- a.txt --\nhello\n-- dir/b --\nx\ny", Archive{
			Comment: []byte("cmd\n"),
			Files:   []File{{"a.txt", []byte("hello\n")}, {"dir/b", []byte("x\ny\n")}},
		}},
		{"-- empty --\n-- next --\n", Archive{
			Comment: []byte{},
			Files:   []File{{"empty", []byte{}}, {"next", nil}},
		}},
		// Not markers: no space, spaces around the name, empty name, text after.
		{"--a --\n--  b --\n-- --\n-- c -- x\n", Archive{Comment: []byte("--a --\n--  b --\n-- --\n-- c -- x\n")}},
		// CRLF marker lines are markers; data keeps its CR.
		{"s\r\n-- f --\r\nd\r\n", Archive{Comment: []byte("s\r\n"), Files: []File{{"f", []byte("d\r\n")}}}},
	}
	for _, tt := range tests {
		got := ParseArchive([]byte(tt.in))
		if !equalArchive(got, &tt.want) {
			t.Errorf("ParseArchive(%q) =\n%+v\nwant\n%+v", tt.in, got, &tt.want)
		}
	}
}

func equalArchive(a, b *Archive) bool {
	if !bytes.Equal(a.Comment, b.Comment) || len(a.Files) != len(b.Files) {
		return false
	}
	for i := range a.Files {
		if a.Files[i].Name != b.Files[i].Name || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
			return false
		}
	}
	return true
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "a/b.txt", ".mcp.json", "home/mcpwire/settings.json"} {
		if err := checkName(ok); err != nil {
			t.Errorf("checkName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", `a\b`, "..", "c:x"} {
		if checkName(bad) == nil {
			t.Errorf("checkName(%q) = nil, want an error", bad)
		}
	}
}

func FuzzParseArchive(f *testing.F) {
	f.Add([]byte("cmd\n-- a --\nx\n"))
	f.Add([]byte("-- a --\n-- b --\r\n\n"))
	f.Add([]byte("no newline"))
	f.Add([]byte("-- --\n--  x --\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := ParseArchive(data)
		total := len(a.Comment)
		for _, f := range a.Files {
			if f.Name == "" {
				t.Fatalf("empty file name from %q", data)
			}
			total += len(f.Data)
		}
		if total > len(data)+1+len(a.Files) {
			t.Fatalf("parsed more bytes (%d) than given (%d)", total, len(data))
		}
		// Formatting and parsing again is stable.
		b := ParseArchive(a.Format())
		if !equalArchive(normalize(a), normalize(b)) {
			t.Fatalf("round trip of %q:\n%+v\n%+v", data, a, b)
		}
	})
}

// normalize makes nil and empty data equal and ensures final newlines, as
// Format does.
func normalize(a *Archive) *Archive {
	n := &Archive{Comment: append([]byte{}, fixNewline(a.Comment)...)}
	for _, f := range a.Files {
		n.Files = append(n.Files, File{f.Name, append([]byte{}, fixNewline(f.Data)...)})
	}
	return n
}

func TestSplitLine(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a b\tc", []string{"a", "b", "c"}},
		{"  lead  trail  ", []string{"lead", "trail"}},
		{"stdout 'a b'", []string{"stdout", "a b"}},
		{"x 'it''s' ''", []string{"x", "it's", ""}},
		{"pre'mid dle'post", []string{"premid dlepost"}},
	}
	for _, tt := range tests {
		words, err := splitLine(tt.in)
		if err != nil {
			t.Fatalf("splitLine(%q): %v", tt.in, err)
		}
		var got []string
		for _, w := range words {
			got = append(got, w.s)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if _, err := splitLine("a 'open"); err == nil {
		t.Error("unterminated quote: no error")
	}
}

func FuzzSplitLine(f *testing.F) {
	f.Add("exec sh -c 'echo ''hi'''")
	f.Add("[unix] ! mcpwire call x a=1 &")
	f.Add("'")
	f.Fuzz(func(t *testing.T, line string) {
		words, err := splitLine(line)
		if err != nil {
			return
		}
		for _, w := range words {
			if len(w.s) > len(line) {
				t.Fatalf("word %q longer than the line %q", w.s, line)
			}
		}
	})
}
