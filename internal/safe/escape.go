package safe

import (
	"strings"
	"unicode/utf8"
)

// One escaper per sink. Each takes a string from a server or a project
// file and returns it inert for its sink: shown, never acted on. The
// terminal's is [Sanitize] (one line) and [SanitizeText] (a block); every
// other one starts from them, so that what the sink's reader may show on
// a terminal (a CI log, a pager) is inert there too.

// MarkdownText makes s inert as inline Markdown (CommonMark and GitHub's
// dialect), on one line: inside a paragraph, a heading or a table cell.
// It is [Sanitize]d (no controls, a newline shown as \n), then every ASCII
// punctuation character is backslash-escaped, so that nothing in it opens
// HTML (<!--, <script>, <img>), an entity (&lt;), a link or an image
// ([text](url), ![alt](url), <url>), an autolink (https://…, www.…:
// their ':' and '.' are escaped, so no autolinker sees them; a@b.c: its
// '@' is written as a code span, "`@`", which no e-mail autolinker
// crosses), emphasis, code, a table cell (|) or a block (#, >, -, 1.).
func MarkdownText(s string) string {
	s = Sanitize(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '@':
			// GitHub's renderer (cmark-gfm) finds e-mail addresses in the
			// text after its escapes are read: only a node between the
			// parts stops it, so '@' stands in a code span of its own.
			b.WriteString("`@`")
			continue
		case asciiPunct(c):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// asciiPunct reports whether c is ASCII punctuation, which CommonMark
// lets a backslash escape (every other backslash is a literal one).
func asciiPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// MarkdownCode puts s in a code span for a Markdown table cell: inside it
// nothing is markup (no HTML, comment, link or emphasis), its own
// backticks cannot end it, and '|' is written "\|", which GitHub's tables
// read as a '|' of the cell's text, also inside a code span. s is
// [Sanitize]d first. The empty string stays empty (Markdown has no empty
// code span). Outside a table, use [MarkdownText].
func MarkdownCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(Sanitize(s), "|", `\|`)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// XMLText makes s inert as XML 1.0 character data (a JUnit report's
// <failure> or <system-out>): it is [SanitizeText]ed (newlines and tabs
// kept; every control, invalid UTF-8, U+FFFE and U+FFFF, which XML 1.0
// cannot hold at all, shown as \xHH or \uXXXX), then '&', '<' and '>' are
// written as entities, so no "]]>", tag, comment, entity reference or
// processing instruction comes of it.
func XMLText(s string) string { return xmlEscape(SanitizeText(s), false) }

// XMLAttr makes s inert as the value of an XML 1.0 attribute in double or
// single quotes: [Sanitize]d (one line), the markup characters and both
// quotes written as entities.
func XMLAttr(s string) string { return xmlEscape(Sanitize(s), true) }

func xmlEscape(s string, attr bool) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '"' && attr:
			b.WriteString("&quot;")
		case c == '\'' && attr:
			b.WriteString("&apos;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// HTMLText makes s inert as HTML text or a quoted attribute value:
// [Sanitize]d, then the markup characters (< > &) and both quotes
// written as entities.
func HTMLText(s string) string { return htmlEscape(Sanitize(s)) }

// htmlEscape writes what html.EscapeString writes. The html package is
// not linked for it: its entity tables (for unescaping, built by its
// init) cost the release binary 65,536 bytes.
func htmlEscape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '\'':
			b.WriteString("&#39;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&#34;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ShellQuote makes s one word of a POSIX shell (sh, bash, zsh, dash) that
// no expansion touches: s as it is when it holds only characters no shell
// treats specially (letters, digits and _ - . / : @ % + = ,), else s in
// single quotes, each quote of it written as quote, backslash, quote,
// quote (the four characters '\”). Inside single quotes every
// character is literal, a control character too: a caller that also shows
// the word on a terminal shows it through [Sanitize]. For fish, whose
// single quotes read backslashes, use [FishQuote].
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, notShellPlain) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FishQuote is [ShellQuote] for fish: inside its single quotes, a
// backslash and a quote are written \\ and \'.
func FishQuote(s string) string {
	if s != "" && strings.IndexFunc(s, notShellPlain) < 0 {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func notShellPlain(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("_-./:@%+=,", r)
}

// Roff makes s inert as text of a man page (roff), its lines kept as
// lines: [SanitizeText]ed, each backslash written \e (so no escape
// sequence: \f, \*, \", \(…), each '-' \- (a real minus sign), each
// character past ASCII as \[uXXXX], and a line that starts with a dot
// or a quote (a request or a macro) gets \& in front.
func Roff(s string) string {
	s = SanitizeText(s)
	var b strings.Builder
	b.Grow(len(s) + 16)
	start := true
	for _, r := range s {
		if start && (r == '.' || r == '\'') {
			b.WriteString(`\&`)
		}
		start = r == '\n'
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		default:
			b.WriteString(`\[u`)
			h := strings.ToUpper(hexRune(r))
			b.WriteString(strings.Repeat("0", max(0, 4-len(h))))
			b.WriteString(h)
			b.WriteByte(']')
		}
	}
	return b.String()
}

func hexRune(r rune) string {
	const hex = "0123456789abcdef"
	var buf [8]byte
	i := len(buf)
	for {
		i--
		buf[i] = hex[r&0xf]
		r >>= 4
		if r == 0 {
			return string(buf[i:])
		}
	}
}

// GitHubData makes s inert as the message of a GitHub Actions workflow
// command (`::error title=…::MESSAGE`): [SanitizeText]ed (its newlines
// and tabs kept, every other control dropped), then % CR LF written %25
// %0D %0A, as the runner reads them back; so no server text ends the
// line and starts a command of its own.
func GitHubData(s string) string { return githubEscape(SanitizeText(s), false) }

// GitHubProperty makes s inert as the value of a property of a GitHub
// Actions workflow command (`title=VALUE,file=VALUE`): [Sanitize]d, then
// % CR LF : , written %25 %0D %0A %3A %2C, so that it neither ends the
// properties (::) nor starts another one (,).
func GitHubProperty(s string) string { return githubEscape(Sanitize(s), true) }

func githubEscape(s string, property bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteString("%25")
		case c == '\r':
			b.WriteString("%0D")
		case c == '\n':
			b.WriteString("%0A")
		case property && c == ':':
			b.WriteString("%3A")
		case property && c == ',':
			b.WriteString("%2C")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
