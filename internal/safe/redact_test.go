package safe

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestRedactForms(t *testing.T) {
	const secret = "tok&en<12345>/é"
	r := NewRedactor(secret)
	forms := []string{
		secret,
		`tok\u0026en\u003c12345\u003e/é`,              // Go's json.Marshal
		`tok\u0026en\u003C12345\u003E\/\u00e9`,        // upper-case hex, \/, \u00e9
		`tok\u0026en\u003c12345\u003e\/\u00E9`,        //
		`\u0074ok&en<12345>/é`,                        // any character escaped
		`tok\\u0026en\\u003c12345\\u003e\\/\\u00e9`,   // escaped twice
		url.QueryEscape(secret),                       // %26 %3C %2F %C3%A9
		url.PathEscape(secret),                        //
		strings.ToLower(url.QueryEscape(secret)),      // lower-case %xx
		"tok%26en%3c12345%3e%2f%c3%a9",                //
		string(mustJSON(url.QueryEscape(secret)))[1:], // URL- then JSON-escaped (the quote left in)
	}
	for _, f := range forms {
		in := "before " + f + " after"
		got := r.Redact(in)
		if got != "before *** after" && !(strings.HasPrefix(got, "before *** after") || strings.HasPrefix(got, "before ***")) {
			t.Errorf("Redact(%q) = %q, want the secret masked", in, got)
		}
		if strings.Contains(got, "12345") {
			t.Errorf("Redact(%q) = %q shows the secret", in, got)
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestRedactSpaceAndSurrogates(t *testing.T) {
	r := NewRedactor("pass word 😀x")
	for _, in := range []string{
		"pass word 😀x",
		"pass+word+%F0%9F%98%80x",
		`pass word \ud83d\ude00x`,
		`pass word \uD83D\uDE00x`,
		`pass\u0020word\u0020\ud83d\ude00\u0078`,
	} {
		if got := r.Redact("[" + in + "]"); got != "[***]" {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
}

func TestRedactQuotesAndBackslashes(t *testing.T) {
	r := NewRedactor(`a"b\c`)
	for _, in := range []string{`a"b\c`, `a\"b\\c`, `a\\\"b\\\\c`, `a\u0022b\u005cc`, `a%22b%5Cc`} {
		if got := r.Redact("<" + in + ">"); got != "<***>" {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
}

func TestRedactLength(t *testing.T) {
	r := NewRedactor("abcd", "xyz", "", "日本語テ")
	if got := r.Redact("abcd xyz 日本語テ"); got != "*** xyz ***" {
		t.Errorf("got %q: 4 characters are masked, 3 are not", got)
	}
	if !TooShort("xyz") || TooShort("abcd") || TooShort("") || TooShort("日本語テ") {
		t.Error("TooShort")
	}
	var nilR *Redactor
	if nilR.Redact("abcd") != "abcd" || (&Redactor{}).Redact("abcd") != "abcd" {
		t.Error("the zero Redactor masks nothing")
	}
}

func TestRedactLongestFirst(t *testing.T) {
	r := NewRedactor("secret", "secret-and-more")
	if got := r.Redact("x secret-and-more y secret z"); got != "x *** y *** z" {
		t.Errorf("got %q", got)
	}
}

func TestRedactBasic(t *testing.T) {
	r := NewRedactor("s3cr3t+/=")
	cred := base64.StdEncoding.EncodeToString([]byte("client:s3cr3t+/="))
	formCred := base64.StdEncoding.EncodeToString([]byte("client:" + url.QueryEscape("s3cr3t+/=")))
	other := base64.StdEncoding.EncodeToString([]byte("client:other-password"))
	tests := []struct{ in, want string }{
		{"Authorization: Basic " + cred, "Authorization: Basic ***"},
		{"authorization: basic " + cred + "\nnext", "authorization: basic ***\nnext"},
		{"Authorization: Basic " + formCred, "Authorization: Basic ***"},
		{`{"Authorization":"Basic ` + strings.ReplaceAll(cred, "/", `\/`) + `"}`, `{"Authorization":"Basic ***"}`},
		{"Basic " + strings.TrimRight(cred, "="), "Basic ***"},
		{"Basic " + other, "Basic " + other},
		{"basically nothing", "basically nothing"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	r := NewRedactor("schema", "approved", "hunter22", "true", "12345")
	doc := []byte(`{"schema": 1, "approval": "approved", "ok": true, "n": 12345,
 "token": "x-hunter22-y", "approved": "tok\u0026hunter22", "list": ["hunter22", "fine"],
 "esc": "\"hunter22\"", "nested": "{\"key\":\"hunter22\"}"}`)
	got := r.RedactJSON(doc)
	if !json.Valid(got) {
		t.Fatalf("not JSON any more: %s", got)
	}
	var m map[string]any
	json.Unmarshal(got, &m)
	if m["schema"] != 1.0 || m["ok"] != true || m["n"] != 12345.0 {
		t.Errorf("structure was masked: %s", got)
	}
	if _, ok := m["approved"]; !ok {
		t.Errorf("a key was masked: %s", got)
	}
	if bytes.Contains(got, []byte("hunter22")) || m["approval"] != "***" || m["token"] != "x-***-y" {
		t.Errorf("a value was not masked: %s", got)
	}
	// A match never starts inside an escape.
	r = NewRedactor("0026x", "n\"ab")
	got = r.RedactJSON([]byte(`{"a":"\u0026x0026x","b":"\n\"ab"}`))
	if !json.Valid(got) {
		t.Errorf("an escape was cut: %s", got)
	}
	// Text that is not JSON is masked as text.
	if got := r.RedactJSON([]byte(`oops 0026x {"a": "0026x`)); string(got) != `oops *** {"a": "***` {
		t.Errorf("not JSON: %s", got)
	}
}

func TestWriterSplit(t *testing.T) {
	const secret = "tok&en<12345>"
	r := NewRedactor(secret)
	for _, form := range []string{secret, `tok\u0026en\u003c12345\u003e`, url.QueryEscape(secret),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("u:"+secret))} {
		text := "line one\nthe value " + form + " and more\n"
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j += 3 {
				var out bytes.Buffer
				w := NewWriter(&out, r)
				w.Write([]byte(text[:i]))
				w.Write([]byte(text[i:j]))
				w.Write([]byte(text[j:]))
				w.Close()
				if strings.Contains(out.String(), "12345") || strings.Contains(out.String(), form) {
					t.Fatalf("split at %d and %d: %q", i, j, out.String())
				}
				if !strings.HasPrefix(out.String(), "line one\nthe value ") || !strings.HasSuffix(out.String(), " and more\n") {
					t.Fatalf("split at %d and %d: text around the secret lost: %q", i, j, out.String())
				}
			}
		}
	}
	// Nothing held back when no secret can start there.
	var out bytes.Buffer
	w := NewWriter(&out, r)
	w.Write([]byte("no secret here\n"))
	if out.String() != "no secret here\n" {
		t.Errorf("held back %q", "no secret here\n"[out.Len():])
	}
	w.Write([]byte("then tok"))
	if out.String() != "no secret here\nthen " {
		t.Errorf("got %q; the start of the secret must be held", out.String())
	}
	w.Write([]byte("yo\n"))
	if out.String() != "no secret here\nthen tokyo\n" {
		t.Errorf("got %q; released once it cannot be the secret", out.String())
	}
}

// TestRedactInvalidUTF8: a secret that is not valid UTF-8 is masked in
// the forms output gives it: each invalid byte as U+FFFD (encoding/json,
// escaped or not) and as \xHH (Sanitize).
func TestRedactInvalidUTF8(t *testing.T) {
	secret := "ab\xffcd\xefz"
	r := NewRedactor(secret)
	for _, text := range []string{
		"x " + secret + " y",
		"x ab\uFFFDcd\uFFFDz y",
		Sanitize("x " + secret + " y"),
		string(mustJSON(map[string]string{"k": "x " + secret + " y"})),
	} {
		got := r.Redact(text)
		if !strings.Contains(got, Mask) || strings.Contains(got, "cd") {
			t.Errorf("Redact(%q) = %q", text, got)
		}
	}
	doc := mustJSON(map[string]string{"k": "0" + secret + "0"})
	if got := string(r.RedactJSON(doc)); strings.Contains(got, "cd") {
		t.Errorf("RedactJSON(%s) = %s", doc, got)
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("before", "s3cret&<>", "after", 3)
	f.Add("", "abcd", `\u`, 0)
	f.Add("%", "a b\"c\\", "%2", 1)
	f.Fuzz(func(t *testing.T, pre, secret, post string, cut int) {
		if TooShort(secret) || secret == "" {
			return
		}
		// shows reports whether a part of out between masks holds the
		// secret: a secret may hold "*" itself ("***0" masked in "0***00"
		// leaves "0***0", where "***0" is the mask and post's "0").
		shows := func(out, secret string) bool {
			for _, part := range strings.Split(out, Mask) {
				if strings.Contains(part, secret) {
					return true
				}
			}
			return false
		}
		r := NewRedactor(secret)
		text := pre + secret + post
		if shows(r.Redact(text), secret) {
			t.Fatalf("Redact(%q) shows %q", text, secret)
		}
		doc := mustJSON(map[string]string{"k": text})
		red := r.RedactJSON(doc)
		if !json.Valid(red) {
			t.Fatalf("RedactJSON(%s) = %s: not JSON", doc, red)
		}
		var m map[string]string
		json.Unmarshal(red, &m)
		// A JSON document holds no invalid UTF-8: encoding/json writes
		// each invalid byte as U+FFFD, and that is the form of such a
		// secret a reader of the document could see. (Its raw bytes may
		// still turn up inside other characters: "\xb000\xef" after
		// "\xcb" is "˰00" and the start of U+FFFD, showing nothing.)
		if shows(m["k"], string([]rune(secret))) {
			t.Fatalf("RedactJSON(%s) = %s shows the secret", doc, red)
		}
		if cut < 0 {
			cut = -cut
		}
		cut %= len(text) + 1
		var out bytes.Buffer
		w := NewWriter(&out, r)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		w.Close()
		if shows(out.String(), secret) {
			t.Fatalf("Writer split at %d: %q shows %q", cut, out.String(), secret)
		}
	})
}
