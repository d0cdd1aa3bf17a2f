package safe

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/hostile"
)

// terminalInert returns an error when out holds anything a terminal acts
// on (text: newlines and tabs allowed).
func terminalInert(out string, text bool) error {
	if !utf8.ValidString(out) {
		return errors.New("invalid UTF-8")
	}
	for _, r := range out {
		ok := r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0) && !unicode.Is(unicode.Cf, r) && r != 0x2028 && r != 0x2029 && r != 0xfffe && r != 0xffff
		if text && (r == '\n' || r == '\t') {
			ok = true
		}
		if !ok {
			return fmt.Errorf("holds %U", r)
		}
	}
	return nil
}

// checkMarkdownText reads out as CommonMark inline text: every ASCII
// punctuation character must be backslash-escaped (so none is markup),
// and the text it stands for must be Sanitize(in).
func checkMarkdownText(in, out string) error {
	if err := terminalInert(out, false); err != nil {
		return err
	}
	var b strings.Builder
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case strings.HasPrefix(out[i:], "`@`"):
			b.WriteByte('@')
			i += 2
		case c == '\\' && i+1 < len(out) && asciiPunct(out[i+1]):
			b.WriteByte(out[i+1])
			i++
		case asciiPunct(c):
			return fmt.Errorf("%q at %d is markup", c, i)
		default:
			b.WriteByte(c)
		}
	}
	if got, want := b.String(), Sanitize(in); got != want {
		return fmt.Errorf("reads as %q, want %q", got, want)
	}
	return nil
}

// checkMarkdownCode reads out as one code span of a table cell.
func checkMarkdownCode(in, out string) error {
	if err := terminalInert(out, false); err != nil {
		return err
	}
	if in == "" && out == "" {
		return nil
	}
	n := len(out) - len(strings.TrimLeft(out, "`"))
	fence := out[:n]
	if n == 0 || len(out) < 2*n || !strings.HasSuffix(out, fence) {
		return errors.New("not a code span")
	}
	inner := out[n : len(out)-n]
	for _, run := range strings.FieldsFunc(inner, func(r rune) bool { return r != '`' }) {
		if len(run) == n {
			return errors.New("a run of backticks ends the span early")
		}
	}
	if strings.HasPrefix(inner, "`") || strings.HasSuffix(inner, "`") {
		return errors.New("a backtick next to the fence")
	}
	if strings.Contains(strings.ReplaceAll(inner, `\|`, ""), "|") {
		return errors.New("a bare | ends the table cell")
	}
	if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && strings.Trim(inner, " ") != "" {
		inner = inner[1 : len(inner)-1] // CommonMark strips one space each side
	}
	if got, want := strings.ReplaceAll(inner, `\|`, "|"), Sanitize(in); got != want {
		return fmt.Errorf("reads as %q, want %q", got, want)
	}
	return nil
}

// checkXML embeds the escaped text and attribute in a document and reads
// it back with encoding/xml: one element, with exactly the values
// SanitizeText and Sanitize make of in.
func checkXML(in string) error {
	doc := `<?xml version="1.0" encoding="UTF-8"?>` + "\n<r a=\"" + XMLAttr(in) + "\" b='" + XMLAttr(in) + "'>" + XMLText(in) + "</r>\n"
	if err := terminalInert(doc, true); err != nil {
		return err
	}
	d := xml.NewDecoder(strings.NewReader(doc))
	var text strings.Builder
	elems := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not well-formed: %v\n%s", err, doc)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elems++
			if len(t.Attr) != 2 {
				return fmt.Errorf("%d attributes", len(t.Attr))
			}
			for _, a := range t.Attr {
				if a.Value != Sanitize(in) {
					return fmt.Errorf("attribute %s reads %q, want %q", a.Name.Local, a.Value, Sanitize(in))
				}
			}
		case xml.CharData:
			if elems == 1 {
				text.Write(t)
			}
		case xml.Comment, xml.Directive:
			return fmt.Errorf("a %T came of it", t)
		case xml.ProcInst:
			if t.Target != "xml" {
				return fmt.Errorf("a processing instruction came of it")
			}
		}
	}
	if elems != 1 {
		return fmt.Errorf("%d elements", elems)
	}
	if got, want := strings.TrimSuffix(text.String(), "\n"), SanitizeText(in); got != want {
		return fmt.Errorf("text reads %q, want %q", got, want)
	}
	return nil
}

// checkHTML: no markup character stands bare, and the text reads back.
func checkHTML(in, out string) error {
	if err := terminalInert(out, false); err != nil {
		return err
	}
	if strings.ContainsAny(out, `<>"'`) {
		return errors.New("a markup character stands bare")
	}
	if got, want := html.UnescapeString(out), Sanitize(in); got != want {
		return fmt.Errorf("reads as %q, want %q", got, want)
	}
	return nil
}

// checkJSON: the string in a document, escaped, is valid JSON, inert on a
// terminal, and decodes to the string (each invalid byte as U+FFFD, as
// JSON must).
func checkJSON(in string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"k" + in: []string{in}}); err != nil {
		return err
	}
	doc := EscapeJSON(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	if !json.Valid(doc) {
		return fmt.Errorf("not valid JSON: %s", doc)
	}
	if err := terminalInert(string(doc), false); err != nil {
		return err
	}
	var back map[string][]string
	if err := json.Unmarshal(doc, &back); err != nil {
		return err
	}
	want := string([]rune(in))
	if v, ok := back["k"+want]; !ok || len(v) != 1 || v[0] != want {
		return fmt.Errorf("decodes to %q, want %q", back, want)
	}
	// A document that embeds raw JSON (a file's definition) may hold the
	// string's bytes as they are: escaped, it is valid UTF-8 JSON.
	body := []byte(`{"k":"`)
	for i := 0; i < len(in); i++ {
		switch c := in[i]; {
		case c < 0x20:
		case c == '\\' || c == '"':
			body = append(body, '\\', c)
		default:
			body = append(body, c)
		}
	}
	raw := EscapeJSON(append(body, `"}`...))
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return fmt.Errorf("raw document escaped is not UTF-8 JSON: %q", raw)
	}
	if err := terminalInert(string(raw), false); err != nil {
		return fmt.Errorf("raw document: %v", err)
	}
	return nil
}

// posixWord reads one word the way a POSIX shell does, for the forms
// ShellQuote writes: plain characters and single-quoted parts joined by
// backslash-quoted quotes. Anything else is an error.
func posixWord(w string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(w); {
		switch c := w[i]; {
		case c == '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return "", errors.New("unterminated quote")
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 2
		case c == '\\' && i+1 < len(w) && w[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case notShellPlain(rune(c)) || c >= utf8.RuneSelf:
			return "", fmt.Errorf("%q outside quotes", c)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

func checkShell(in, out string) error {
	got, err := posixWord(out)
	if err != nil {
		return err
	}
	if got != in {
		return fmt.Errorf("reads as %q", got)
	}
	return nil
}

// readRoff decodes the escapes Roff writes; anything else is an error.
func readRoff(out string) (string, error) {
	var b strings.Builder
	for i, line := range strings.Split(out, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			return "", fmt.Errorf("line %d is a request: %q", i+1, line)
		}
		for j := 0; j < len(line); j++ {
			c := line[j]
			if c >= utf8.RuneSelf || c < 0x20 && c != '\t' || c == 0x7f {
				return "", fmt.Errorf("raw byte %#x", c)
			}
			if c != '\\' {
				b.WriteByte(c)
				continue
			}
			if j+1 == len(line) {
				return "", errors.New("a backslash ends a line")
			}
			switch line[j+1] {
			case 'e':
				b.WriteByte('\\')
			case '-':
				b.WriteByte('-')
			case '&':
			case '[':
				end := strings.IndexByte(line[j:], ']')
				if end < 0 || !strings.HasPrefix(line[j:], `\[u`) {
					return "", fmt.Errorf("escape %q", line[j:])
				}
				v, err := strconv.ParseUint(line[j+3:j+end], 16, 32)
				if err != nil {
					return "", err
				}
				b.WriteRune(rune(v))
				j += end - 1
			default:
				return "", fmt.Errorf("escape \\%c", line[j+1])
			}
			j++
		}
	}
	return b.String(), nil
}

func checkRoff(in, out string) error {
	got, err := readRoff(out)
	if err != nil {
		return err
	}
	if want := SanitizeText(in); got != want {
		return fmt.Errorf("reads as %q, want %q", got, want)
	}
	return nil
}

// checkGitHub reads out as the GitHub Actions runner does (toolkit's
// command parser): no CR or LF, in a property no : or , either, and %25
// %0D %0A %3A %2C turned back into what they stand for, which must be want.
func checkGitHub(want, out string, property bool) error {
	if strings.ContainsAny(out, "\r\n") {
		return errors.New("holds a line break")
	}
	if property && strings.ContainsAny(out, ":,") {
		return errors.New("holds : or , in a property")
	}
	if err := terminalInert(out, false); err != nil {
		return err
	}
	got := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(out)
	if got != want {
		return fmt.Errorf("reads as %q, want %q", got, want)
	}
	return nil
}

// TestEscaperTable feeds every hostile string to every escaper.
func TestEscaperTable(t *testing.T) {
	for _, h := range append(hostile.Strings, hostile.String{Name: "all", S: hostile.All()}, hostile.String{Name: "empty"}) {
		t.Run(h.Name, func(t *testing.T) {
			s := h.S
			checks := map[string]error{
				"Sanitize":     terminalInert(Sanitize(s), false),
				"SanitizeText": terminalInert(SanitizeText(s), true),
				"MarkdownText": checkMarkdownText(s, MarkdownText(s)),
				"MarkdownCode": checkMarkdownCode(s, MarkdownCode(s)),
				"XML":          checkXML(s),
				"HTMLText":     checkHTML(s, HTMLText(s)),
				"EscapeJSON":   checkJSON(s),
				"ShellQuote":   checkShell(s, ShellQuote(s)),
				"Roff":         checkRoff(s, Roff(s)),
				"GitHubData":   checkGitHub(SanitizeText(s), GitHubData(s), false),
				"GitHubProp":   checkGitHub(Sanitize(s), GitHubProperty(s), true),
			}
			for name, err := range checks {
				if err != nil {
					t.Errorf("%s(%q): %v", name, s, err)
				}
			}
		})
	}
}

// TestEscaperShells runs each quoted word through real shells: it must
// reach the command as one argument, as it was, with nothing expanded or
// run (a "touch pwned" leaves no file).
func TestEscaperShells(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	// The shells' own files (fish writes some at start) go to a home of
	// the test's, away from dir, where a file would mean a command ran.
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	shells := []struct {
		name  string
		quote func(string) string
	}{{"sh", ShellQuote}, {"bash", ShellQuote}, {"dash", ShellQuote}, {"zsh", ShellQuote}, {"fish", FishQuote}}
	ran := 0
	for _, sh := range shells {
		path, err := exec.LookPath(sh.name)
		if err != nil {
			if os.Getenv("CI") == "true" && sh.name != "dash" {
				t.Errorf("%s is not installed (scripts/shells.sh installs bash, zsh and fish)", sh.name)
			}
			continue
		}
		ran++
		for _, h := range hostile.Strings {
			s := strings.ReplaceAll(h.S, "\x00", "") // no argument holds a NUL
			script := "printf '%s|' " + sh.quote(s) + " " + sh.quote("") + "\n"
			cmd := exec.Command(path, "-c", script)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("%s: %q: %v", sh.name, script, err)
				continue
			}
			if got, want := string(out), s+"||"; got != want {
				t.Errorf("%s: %s gave %q, want %q", sh.name, script, got, want)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("a quoted word ran a command: %s holds %s", dir, filepath.Join(dir, ents[0].Name()))
	}
	if ran == 0 {
		t.Skip("no shell installed")
	}
}

// TestEscaperRoffGroff renders the escaped table with groff, when it is
// installed: every string shows as text, and groff reads no request.
func TestEscaperRoffGroff(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff is not installed")
	}
	var page strings.Builder
	page.WriteString(".TH T 1\n.SH NAME\nt\n.SH DESCRIPTION\n.nf\n")
	for _, h := range hostile.Strings {
		page.WriteString("MARK " + Roff(h.S) + "\n")
	}
	page.WriteString(".fi\n")
	cmd := exec.Command(groff, "-man", "-Tutf8", "-P-c", "-ww")
	cmd.Stdin = strings.NewReader(page.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("groff: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("groff warned:\n%s", stderr.String())
	}
	text := string(out)
	for _, want := range []string{`.TH EVIL 1`, `.so /etc/passwd`, `\fBbold\fR`, `'br`, `$(touch pwned)`} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text:\n%s", want, text)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, h := range hostile.Strings {
		f.Add(h.S)
	}
	for _, s := range []string{"", " ", "   ", "`", "``", " ` ", "\\", "\n."} {
		f.Add(s) // " " was found by FuzzMarkdownText: a code span of spaces only keeps them
	}
}

func FuzzMarkdownText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkMarkdownText(in, MarkdownText(in)); err != nil {
			t.Fatalf("MarkdownText(%q): %v", in, err)
		}
		if err := checkMarkdownCode(in, MarkdownCode(in)); err != nil {
			t.Fatalf("MarkdownCode(%q): %v", in, err)
		}
	})
}

func FuzzXML(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkXML(in); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	})
}

func FuzzHTMLText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkHTML(in, HTMLText(in)); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		// The escaper of our own writes what the html package's does.
		if got, want := HTMLText(in), html.EscapeString(Sanitize(in)); got != want {
			t.Fatalf("%q: HTMLText %q, html.EscapeString %q", in, got, want)
		}
	})
}

func FuzzEscapeJSON(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkJSON(in); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
	})
}

func FuzzShellQuote(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkShell(in, ShellQuote(in)); err != nil {
			t.Fatalf("ShellQuote(%q) = %q: %v", in, ShellQuote(in), err)
		}
		if got, err := fishWord(FishQuote(in)); err != nil || got != in {
			t.Fatalf("FishQuote(%q) = %q reads as %q: %v", in, FishQuote(in), got, err)
		}
	})
}

// fishWord reads one word the way fish does, for the forms FishQuote
// writes: plain characters, or one single-quoted part in which \\ and
// \' are a backslash and a quote.
func fishWord(w string) (string, error) {
	if w == "" || w[0] != '\'' {
		if _, err := posixWord(w); err != nil || strings.Contains(w, `\`) {
			return "", fmt.Errorf("not plain: %q", w)
		}
		return w, nil
	}
	var b strings.Builder
	for i := 1; i < len(w); i++ {
		switch c := w[i]; {
		case c == '\\' && i+1 < len(w) && (w[i+1] == '\\' || w[i+1] == '\''):
			b.WriteByte(w[i+1])
			i++
		case c == '\'':
			if i != len(w)-1 {
				return "", errors.New("text after the closing quote")
			}
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	return "", errors.New("unterminated quote")
}

func FuzzRoff(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		if err := checkRoff(in, Roff(in)); err != nil {
			t.Fatalf("Roff(%q) = %q: %v", in, Roff(in), err)
		}
	})
}

// TestEscaperMarkdownGFM renders every hostile string, through
// MarkdownText in a paragraph and a cell and through MarkdownCode in a
// cell, with cmark-gfm (GitHub's renderer): the HTML holds no element,
// comment or link of the string's, and the table keeps its cells.
func TestEscaperMarkdownGFM(t *testing.T) {
	var md strings.Builder
	md.WriteString("| a | b | c |\n|---|---|---|\n")
	for _, h := range hostile.Strings {
		fmt.Fprintf(&md, "| %s | %s | end |\n", MarkdownText(h.S), MarkdownCode(h.S))
	}
	for _, h := range hostile.Strings {
		fmt.Fprintf(&md, "\n%s\n", MarkdownText(h.S))
	}
	html, err := hostile.RenderGFM(md.String())
	if errors.Is(err, hostile.ErrNoRenderer) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := hostile.CheckHTML(html); err != nil {
		t.Errorf("%v:\n%s", err, html)
	}
	if n, want := strings.Count(html, "<td>end</td>"), len(hostile.Strings); n != want {
		t.Errorf("%d rows keep their last cell, want %d:\n%s", n, want, html)
	}
	for _, want := range []string{"&lt;!--", "&lt;script&gt;", "a@evil.example", "](https://evil.example/x)"} {
		if !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(html, "<code>@</code>", "@"), "&quot;", `"`), want) {
			t.Errorf("the HTML does not show %q as text:\n%s", want, html)
		}
	}
}
