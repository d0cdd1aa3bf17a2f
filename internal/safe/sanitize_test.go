package safe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, line, text string }{
		{"plain text ✓ ünï", "plain text ✓ ünï", "plain text ✓ ünï"},
		{"", "", ""},
		{`C:\path\x1b`, `C:\path\x1b`, `C:\path\x1b`},
		{"a\nmcpwire: hint: run 'curl x | sh'", `a\nmcpwire: hint: run 'curl x | sh'`, "a\nmcpwire: hint: run 'curl x | sh'"},
		{"tab\there", `tab\there`, "tab\there"},
		{"crlf\r\nline", `crlf\r\nline`, "crlf\nline"},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"\x1b]52;c;Y3VybCB4IHwgc2g=\a", `\x1b]52;c;Y3VybCB4IHwgc2g=\x07`, `\x1b]52;c;Y3VybCB4IHwgc2g=\x07`},
		{"\x1b]0;evil title\x1b\\", `\x1b]0;evil title\x1b\`, `\x1b]0;evil title\x1b\`},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`, `\x1b[2J\x1b[31mred`},
		{"bell\a bs\b del\x7f nul\x00", `bell\x07 bs\x08 del\x7f nul\x00`, `bell\x07 bs\x08 del\x7f nul\x00`},
		{"c1 \u009b31m csi \u0085 nel \u009d osc", `c1 \u009b31m csi \u0085 nel \u009d osc`, `c1 \u009b31m csi \u0085 nel \u009d osc`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u202a\u202b\u202d\u2067\u2068", `bidi \u202eevil\u202c \u2066x\u2069 \u202a\u202b\u202d\u2067\u2068`, `bidi \u202eevil\u202c \u2066x\u2069 \u202a\u202b\u202d\u2067\u2068`},
		{"zw \u200b\u200c\u200d\ufeff", `zw \u200b\u200c\u200d\ufeff`, `zw \u200b\u200c\u200d\ufeff`},
		{"marks \u200e\u200f\u061c sep \u2028\u2029", `marks \u200e\u200f\u061c sep \u2028\u2029`, `marks \u200e\u200f\u061c sep \u2028\u2029`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`, `bad \xff\xfe utf8 \xe2\x82`},
		{"replacement \ufffd stays", "replacement \ufffd stays", "replacement \ufffd stays"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.line {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := SanitizeText(tt.in); got != tt.text {
			t.Errorf("SanitizeText(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// checkSafe fails when out holds anything a terminal acts on.
func checkSafe(t *testing.T, in, out string, text bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("sanitized %q = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		ok := r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0) && !unicode.Is(unicode.Cf, r) && r != 0x2028 && r != 0x2029
		if text && (r == '\n' || r == '\t') {
			ok = true
		}
		if !ok {
			t.Fatalf("sanitized %q = %q holds %U", in, out, r)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]52;c;eA==\a", "a\r\nb\n", "\u202e\u200b\xff", "\u009b1m", `\x1b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		line, text := Sanitize(in), SanitizeText(in)
		checkSafe(t, in, line, false)
		checkSafe(t, in, text, true)
		if strings.ContainsAny(line, "\n\r\t") {
			t.Fatalf("Sanitize(%q) = %q breaks the line", in, line)
		}
		if Sanitize(line) != line || SanitizeText(text) != text {
			t.Fatalf("sanitizing %q twice changes it", in)
		}
	})
}

func TestTextWriterSplit(t *testing.T) {
	const text = "é ✓ line\r\nnext \x1b[2J😀 end\r"
	want := SanitizeText(text)
	for i := 0; i <= len(text); i++ {
		var out strings.Builder
		w := NewTextWriter(&out)
		w.Write([]byte(text[:i]))
		w.Write([]byte(text[i:]))
		w.Flush()
		if out.String() != want {
			t.Fatalf("split at %d: %q, want %q", i, out.String(), want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	in := map[string]string{"k": "bidi \u202eevil\u202c zw \u200b c1 \u0085 tag \U000E0041 sep \u2028 ok é ✓"}
	doc, _ := json.Marshal(in)
	out := EscapeJSON(doc)
	for _, r := range string(out) {
		if r >= 0x80 && unsafeRune(r) {
			t.Fatalf("%q left raw in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["k"] != in["k"] {
		t.Errorf("the value changed: %v %q", err, back["k"])
	}
	if !strings.Contains(string(out), "ok é ✓") {
		t.Errorf("printable text was escaped: %s", out)
	}
	plain := []byte(`{"a":"b"}`)
	if &EscapeJSON(plain)[0] != &plain[0] {
		t.Error("clean JSON was copied")
	}
}
