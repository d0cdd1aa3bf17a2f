package safe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes s safe to print as one value on one line of a terminal.
// Everything a terminal could act on, or that could mislead a reader, is
// shown escaped instead:
//
//   - C0 controls (ESC, so every escape sequence: CSI, OSC 0 titles,
//     OSC 52 clipboard writes; BEL, BS, CR, and also LF and TAB) and DEL
//     as \n, \t, \r or \xHH;
//   - C1 controls (U+0080–U+009F, among them the 8-bit CSI and OSC) as
//     \u0085;
//   - bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
//     U+061C), zero-width characters (U+200B–U+200D, U+2060, U+FEFF) and
//     every other invisible format character (Unicode category Cf), and
//     the line and paragraph separators U+2028 and U+2029, as \uXXXX;
//   - each byte of invalid UTF-8 as \xHH.
//
// A newline inside the value is shown as \n, so it can never start a line
// of its own. Printable text, a backslash included, is kept as it is.
func Sanitize(s string) string { return sanitize(s, false) }

// SanitizeText is [Sanitize] for a block of text shown as lines (a tool's
// text result, a server's stderr): "\n" and "\t" are kept, and "\r\n" is
// read as "\n"; everything else Sanitize escapes is escaped. A line of the
// block may be forged by its author, so callers print such a block where
// it is clearly the server's (indented, or under a heading), never mixed
// with mcpwire's own lines.
func SanitizeText(s string) string { return sanitize(s, true) }

func sanitize(s string, text bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != 0x7f || text && (c == '\n' || c == '\t') {
				i++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 0x20 && c != 0x7f:
				b.WriteByte(c)
			case c == '\n':
				if text {
					b.WriteByte(c)
				} else {
					b.WriteString(`\n`)
				}
			case c == '\t':
				if text {
					b.WriteByte(c)
				} else {
					b.WriteString(`\t`)
				}
			case c == '\r':
				if text && i < len(s) && s[i] == '\n' {
					continue // "\r\n" is "\n"
				}
				b.WriteString(`\r`)
			default:
				writeHexByte(&b, c)
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeHexByte(&b, c)
		case unsafeRune(r):
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", max(0, 4-len(h))))
			b.WriteString(h)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func writeHexByte(b *strings.Builder, c byte) {
	const hex = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// unsafeRune reports whether a non-ASCII rune must be shown escaped: C1
// controls, format characters (bidi controls, zero-width characters, the
// BOM, …), the line and paragraph separators, and the noncharacters
// U+FFFE and U+FFFF.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// EscapeJSON returns the JSON text doc with every character that
// [Sanitize] would show escaped and that JSON leaves as it is (DEL, C1
// controls, bidi and zero-width characters, the other format characters,
// U+2028 and U+2029) written as a \uXXXX escape instead. The decoded
// values do not change; a terminal that shows the document is not driven
// by them. Each byte of invalid UTF-8 (which a document embedding a
// file's raw JSON may hold, and which JSON text must not) is written
// \ufffd, as encoding/json decodes it. Such characters and bytes can only
// stand inside strings of valid JSON.
func EscapeJSON(doc []byte) []byte {
	i := 0
	for i < len(doc) {
		if doc[i] < utf8.RuneSelf {
			if doc[i] == 0x7f {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(doc[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r) {
			break
		}
		i += n
	}
	if i == len(doc) {
		return doc
	}
	out := make([]byte, 0, len(doc)+32)
	out = append(out, doc[:i]...)
	const hex = "0123456789abcdef"
	esc := func(u rune) {
		out = append(out, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
	}
	for i < len(doc) {
		if c := doc[i]; c < utf8.RuneSelf {
			if c == 0x7f {
				esc(0x7f)
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(doc[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			esc(0xfffd)
		case !unsafeRune(r):
			out = append(out, doc[i:i+n]...)
		case r > 0xffff:
			r -= 0x10000
			esc(0xd800 + r>>10&0x3ff)
			esc(0xdc00 + r&0x3ff)
		default:
			esc(r)
		}
		i += n
	}
	return out
}
