package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads TOML 1.0, the subset that other clients' configuration
// files use (Codex's ~/.codex/config.toml, Blitz's [[mcp.servers]]):
// tables, arrays of tables, inline tables, dotted keys, strings of all
// four kinds, integers (decimal, hex, octal, binary), floats, booleans,
// arrays and comments. Dates and times are refused with an error that
// says so. The result is a tree of *tomlTable, []any, string, int64,
// float64 and bool, tables keeping their keys in file order.

// A tomlTable is a TOML table: its keys in file order.
type tomlTable struct {
	keys []string
	vals map[string]any
	// how it came to be, for TOML's rules on defining a table twice
	header bool // [name] defined it
	dotted bool // a dotted key (a.b = 1) made it
	inline bool // { … }: closed once written
}

// tomlTables is an array of tables ([[name]]).
type tomlTables []*tomlTable

func newTOMLTable() *tomlTable { return &tomlTable{vals: map[string]any{}} }

// get returns the value of key, or nil.
func (t *tomlTable) get(key string) any { return t.vals[key] }

func (t *tomlTable) set(key string, v any) {
	if _, ok := t.vals[key]; !ok {
		t.keys = append(t.keys, key)
	}
	t.vals[key] = v
}

// A TOMLError is a TOML file that could not be read: where and why.
type TOMLError struct {
	Line, Col int // 1-based; Col counts bytes
	Msg       string
}

func (e *TOMLError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// maxTOMLDepth bounds the nesting of arrays and inline tables.
const maxTOMLDepth = 64

// parseTOML reads a TOML document.
func parseTOML(data []byte) (*tomlTable, error) {
	if !utf8.Valid(data) {
		return nil, &TOMLError{Line: 1, Col: 1, Msg: "the file is not UTF-8"}
	}
	p := &tomlParser{data: data, root: newTOMLTable()}
	p.cur = p.root
	if err := p.document(); err != nil {
		return nil, err
	}
	return p.root, nil
}

type tomlParser struct {
	data  []byte
	pos   int
	root  *tomlTable
	cur   *tomlTable
	depth int
}

func (p *tomlParser) fail(format string, args ...any) error {
	line, col := lineCol(p.data, p.pos)
	return &TOMLError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *tomlParser) eof() bool { return p.pos >= len(p.data) }

func (p *tomlParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.data[p.pos]
}

func (p *tomlParser) has(s string) bool { return bytes.HasPrefix(p.data[p.pos:], []byte(s)) }

// spaces skips spaces and tabs.
func (p *tomlParser) spaces() {
	for !p.eof() && (p.data[p.pos] == ' ' || p.data[p.pos] == '\t') {
		p.pos++
	}
}

// comment skips a comment to the end of its line (not the newline).
func (p *tomlParser) comment() error {
	if p.peek() != '#' {
		return nil
	}
	for !p.eof() && p.data[p.pos] != '\n' {
		c := p.data[p.pos]
		if c < 0x20 && c != '\t' && !(c == '\r' && p.has("\r\n")) || c == 0x7f {
			return p.fail("a control character in a comment")
		}
		p.pos++
	}
	return nil
}

// newline reads one line end: \n or \r\n.
func (p *tomlParser) newline() bool {
	switch {
	case p.has("\n"):
		p.pos++
	case p.has("\r\n"):
		p.pos += 2
	default:
		return false
	}
	return true
}

// blank skips spaces, comments and line ends (in arrays, between lines).
func (p *tomlParser) blank() error {
	for {
		p.spaces()
		if err := p.comment(); err != nil {
			return err
		}
		if !p.newline() {
			return nil
		}
	}
}

// endOfLine reads what may follow an expression: spaces, a comment, then
// a line end or the end of the file.
func (p *tomlParser) endOfLine() error {
	p.spaces()
	if err := p.comment(); err != nil {
		return err
	}
	if p.eof() || p.newline() {
		return nil
	}
	return p.fail("unexpected %q after the value; one key = value per line", p.peek())
}

func (p *tomlParser) document() error {
	for {
		if err := p.blank(); err != nil {
			return err
		}
		if p.eof() {
			return nil
		}
		var err error
		switch {
		case p.has("[["):
			err = p.tableHeader(true)
		case p.has("["):
			err = p.tableHeader(false)
		default:
			err = p.keyValue(p.cur)
		}
		if err != nil {
			return err
		}
		if err := p.endOfLine(); err != nil {
			return err
		}
	}
}

// tableHeader reads [a.b] or [[a.b]] and makes it the current table.
func (p *tomlParser) tableHeader(array bool) error {
	open := 1
	if array {
		open = 2
	}
	p.pos += open
	p.spaces()
	keys, err := p.key()
	if err != nil {
		return err
	}
	p.spaces()
	if closing := strings.Repeat("]", open); !p.has(closing) {
		return p.fail("a table header must end with %s", closing)
	}
	p.pos += open
	t := p.root
	for _, k := range keys[:len(keys)-1] {
		if t, err = p.descend(t, k, false); err != nil {
			return err
		}
	}
	last := keys[len(keys)-1]
	switch v := t.get(last).(type) {
	case nil:
		nt := newTOMLTable()
		if array {
			t.set(last, tomlTables{nt})
		} else {
			nt.header = true
			t.set(last, nt)
		}
		p.cur = nt
	case tomlTables:
		if !array {
			return p.fail("%s is an array of tables ([[%s]]), not a table", dotted(keys), dotted(keys))
		}
		nt := newTOMLTable()
		t.set(last, append(v, nt))
		p.cur = nt
	case *tomlTable:
		if array {
			return p.fail("%s is a table already; [[%s]] needs an array of tables", dotted(keys), dotted(keys))
		}
		if v.header || v.dotted || v.inline {
			return p.fail("table %s is defined twice", dotted(keys))
		}
		v.header = true
		p.cur = v
	default:
		return p.fail("%s is a value already, not a table", dotted(keys))
	}
	return nil
}

// descend returns the table of key in t, made when missing; the last
// table of an array of tables. byDottedKey says a key = value line is
// walking (which cannot enter a table a header defined elsewhere).
func (p *tomlParser) descend(t *tomlTable, key string, byDottedKey bool) (*tomlTable, error) {
	switch v := t.get(key).(type) {
	case nil:
		nt := newTOMLTable()
		nt.dotted = byDottedKey
		t.set(key, nt)
		return nt, nil
	case *tomlTable:
		if v.inline {
			return nil, p.fail("%s is an inline table, which cannot be extended", key)
		}
		if byDottedKey && v.header {
			return nil, p.fail("%s is a table defined by a header; add its keys there", key)
		}
		return v, nil
	case tomlTables:
		if byDottedKey {
			return nil, p.fail("%s is an array of tables, not a table", key)
		}
		return v[len(v)-1], nil
	default:
		return nil, p.fail("%s is a value already, not a table", key)
	}
}

func dotted(keys []string) string { return strings.Join(keys, ".") }

// keyValue reads key = value into t.
func (p *tomlParser) keyValue(t *tomlTable) error {
	keys, err := p.key()
	if err != nil {
		return err
	}
	p.spaces()
	if p.peek() != '=' {
		return p.fail("expected = after the key %s", dotted(keys))
	}
	p.pos++
	p.spaces()
	v, err := p.value()
	if err != nil {
		return err
	}
	for _, k := range keys[:len(keys)-1] {
		if t, err = p.descend(t, k, true); err != nil {
			return err
		}
	}
	last := keys[len(keys)-1]
	if t.get(last) != nil {
		return p.fail("the key %s is given twice", dotted(keys))
	}
	t.set(last, v)
	return nil
}

// key reads a dotted key: simple keys joined by ".".
func (p *tomlParser) key() ([]string, error) {
	var keys []string
	for {
		k, err := p.simpleKey()
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
		p.spaces()
		if p.peek() != '.' {
			return keys, nil
		}
		p.pos++
		p.spaces()
	}
}

func (p *tomlParser) simpleKey() (string, error) {
	switch {
	case p.has(`"""`), p.has(`'''`):
		return "", p.fail("a key cannot be a multi-line string")
	case p.peek() == '"':
		return p.basicString()
	case p.peek() == '\'':
		return p.literalString()
	}
	start := p.pos
	for !p.eof() {
		c := p.data[p.pos]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			break
		}
		p.pos++
	}
	if p.pos == start {
		if p.eof() {
			return "", p.fail("expected a key, got the end of the file")
		}
		return "", p.fail("expected a key, got %q", p.peek())
	}
	return string(p.data[start:p.pos]), nil
}

// value reads any value.
func (p *tomlParser) value() (any, error) {
	switch c := p.peek(); {
	case p.has(`"""`):
		return p.multiBasicString()
	case p.has(`'''`):
		return p.multiLiteralString()
	case c == '"':
		return p.basicString()
	case c == '\'':
		return p.literalString()
	case p.has("true"):
		p.pos += 4
		return true, p.wordEnd()
	case p.has("false"):
		p.pos += 5
		return false, p.wordEnd()
	case c == '[':
		return p.array()
	case c == '{':
		return p.inlineTable()
	case c == 0:
		return nil, p.fail("expected a value, got the end of the line")
	}
	return p.number()
}

// wordEnd checks that a word (true, false) is not the start of a longer one.
func (p *tomlParser) wordEnd() error {
	if c := p.peek(); c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' {
		return p.fail("unexpected %q: a value is a string, a number, true, false, an array or an inline table", c)
	}
	return nil
}

func (p *tomlParser) nest() error {
	p.depth++
	if p.depth > maxTOMLDepth {
		return p.fail("arrays and inline tables nest deeper than %d", maxTOMLDepth)
	}
	return nil
}

func (p *tomlParser) array() (any, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // [
	out := []any{}
	for {
		if err := p.blank(); err != nil {
			return nil, err
		}
		if p.peek() == ']' {
			p.pos++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := p.blank(); err != nil {
			return nil, err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return out, nil
		default:
			if p.eof() {
				return nil, p.fail("an array without its closing ]")
			}
			return nil, p.fail("expected , or ] in an array, got %q", p.peek())
		}
	}
}

func (p *tomlParser) inlineTable() (any, error) {
	if err := p.nest(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // {
	t := newTOMLTable()
	p.spaces()
	if p.peek() == '}' {
		p.pos++
		t.inline = true
		return t, nil
	}
	for {
		p.spaces()
		if err := p.keyValue(t); err != nil {
			return nil, err
		}
		p.spaces()
		switch p.peek() {
		case ',':
			p.pos++
			p.spaces()
			if p.peek() == '}' {
				return nil, p.fail("an inline table takes no comma after its last key")
			}
		case '}':
			p.pos++
			closeInline(t)
			return t, nil
		default:
			return nil, p.fail("expected , or } in an inline table (all on one line), got %q", p.peek())
		}
	}
}

// closeInline marks t and the tables its dotted keys made as inline:
// none of them can be extended later.
func closeInline(t *tomlTable) {
	t.inline = true
	for _, v := range t.vals {
		if sub, ok := v.(*tomlTable); ok && sub.dotted {
			closeInline(sub)
		}
	}
}

// stringChar checks a character of a string's text: no control
// character but tab (and, in a multi-line string, line ends).
func (p *tomlParser) stringChar(c byte, multi bool) error {
	if c == '\t' || c >= 0x20 && c != 0x7f || multi && (c == '\n' || c == '\r' && p.has("\r\n")) {
		return nil
	}
	if c == '\n' || c == '\r' {
		return p.fail("a line end in a one-line string; use \"\"\" for several lines")
	}
	return p.fail("a control character (0x%02x) in a string; write it as an escape", c)
}

func (p *tomlParser) literalString() (string, error) {
	p.pos++
	start := p.pos
	for !p.eof() && p.data[p.pos] != '\'' {
		if err := p.stringChar(p.data[p.pos], false); err != nil {
			return "", err
		}
		p.pos++
	}
	if p.eof() {
		return "", p.fail("a string without its closing '")
	}
	s := string(p.data[start:p.pos])
	p.pos++
	return s, nil
}

func (p *tomlParser) multiLiteralString() (string, error) {
	p.pos += 3
	p.newline() // a line end right after ''' is not part of the string
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.fail("a string without its closing '''")
		}
		if p.has("'''") {
			n := quoteRun(p.data[p.pos:], '\'')
			if n > 5 {
				return "", p.fail("too many ' at the end of a ''' string")
			}
			b.WriteString(strings.Repeat("'", n-3))
			p.pos += n
			return b.String(), nil
		}
		c := p.data[p.pos]
		if err := p.stringChar(c, true); err != nil {
			return "", err
		}
		b.WriteByte(c)
		p.pos++
	}
}

// quoteRun counts the quote characters q at the start of b.
func quoteRun(b []byte, q byte) int {
	n := 0
	for n < len(b) && b[n] == q {
		n++
	}
	return n
}

func (p *tomlParser) basicString() (string, error) {
	p.pos++
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.fail("a string without its closing \"")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			if err := p.stringChar(c, false); err != nil {
				return "", err
			}
			b.WriteByte(c)
			p.pos++
		}
	}
}

func (p *tomlParser) multiBasicString() (string, error) {
	p.pos += 3
	p.newline()
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.fail("a string without its closing \"\"\"")
		}
		if p.has(`"""`) {
			n := quoteRun(p.data[p.pos:], '"')
			if n > 5 {
				return "", p.fail("too many \" at the end of a \"\"\" string")
			}
			b.WriteString(strings.Repeat(`"`, n-3))
			p.pos += n
			return b.String(), nil
		}
		c := p.data[p.pos]
		if c == '\\' {
			// A backslash at the end of a line trims the line end and the
			// white space after it.
			q := p.pos + 1
			for q < len(p.data) && (p.data[q] == ' ' || p.data[q] == '\t') {
				q++
			}
			if q < len(p.data) && (p.data[q] == '\n' || p.data[q] == '\r') {
				p.pos = q
				for p.spaceByte() || p.newline() {
				}
				continue
			}
			if err := p.escape(&b); err != nil {
				return "", err
			}
			continue
		}
		if err := p.stringChar(c, true); err != nil {
			return "", err
		}
		b.WriteByte(c)
		p.pos++
	}
}

// spaceByte skips one space or tab.
func (p *tomlParser) spaceByte() bool {
	if c := p.peek(); c == ' ' || c == '\t' {
		p.pos++
		return true
	}
	return false
}

// escape reads an escape sequence at p.pos (a backslash) into b.
func (p *tomlParser) escape(b *strings.Builder) error {
	if p.pos+1 >= len(p.data) {
		return p.fail("a backslash at the end of the file")
	}
	c := p.data[p.pos+1]
	simple := map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\'}
	if r, ok := simple[c]; ok {
		b.WriteByte(r)
		p.pos += 2
		return nil
	}
	n := map[byte]int{'u': 4, 'U': 8}[c]
	if n == 0 {
		return p.fail("unknown escape \\%c (known: \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX \\UXXXXXXXX)", c)
	}
	if p.pos+2+n > len(p.data) {
		return p.fail("\\%c needs %d hex digits", c, n)
	}
	hex := string(p.data[p.pos+2 : p.pos+2+n])
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || strings.ContainsAny(hex, "+-_") {
		return p.fail("\\%c needs %d hex digits, got %q", c, n, hex)
	}
	r := rune(v)
	if !utf8.ValidRune(r) {
		return p.fail("\\%c%s is not a Unicode scalar value", c, hex)
	}
	b.WriteRune(r)
	p.pos += 2 + n
	return nil
}

// number reads an integer or a float.
func (p *tomlParser) number() (any, error) {
	start := p.pos
	for !p.eof() {
		c := p.data[p.pos]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '+' || c == '-' || c == '.' || c == ':') {
			break
		}
		p.pos++
	}
	tok := string(p.data[start:p.pos])
	p.pos = start
	if tok == "" {
		return nil, p.fail("expected a value, got %q", p.peek())
	}
	if v, ok := tomlInteger(tok); ok {
		p.pos += len(tok)
		return v, nil
	}
	if v, ok := tomlFloat(tok); ok {
		p.pos += len(tok)
		return v, nil
	}
	if len(tok) >= 8 && (tok[4] == '-' || strings.Contains(tok, ":")) {
		return nil, p.fail("dates and times are not read here (%q); quote it as a string", tok)
	}
	return nil, p.fail("%q is not a value: a string needs quotes, a number is like 42, 0x2a, 3.14 or 1e6", tok)
}

// digits reports whether s is digits of base with single underscores
// between them.
func digits(s string, base int) bool {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d int
		switch {
		case c == '_':
			continue
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return false
		}
		if d >= base {
			return false
		}
	}
	return true
}

func tomlInteger(tok string) (int64, bool) {
	for prefix, base := range map[string]int{"0x": 16, "0o": 8, "0b": 2} {
		if rest, ok := strings.CutPrefix(tok, prefix); ok {
			if !digits(rest, base) {
				return 0, false
			}
			v, err := strconv.ParseInt(strings.ReplaceAll(rest, "_", ""), base, 64)
			return v, err == nil
		}
	}
	body := strings.TrimLeft(tok, "+-")
	if len(tok)-len(body) > 1 || !digits(body, 10) || len(body) > 1 && body[0] == '0' {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(tok, "_", ""), 10, 64)
	return v, err == nil
}

func tomlFloat(tok string) (float64, bool) {
	body := tok
	sign := 1.0
	if body != "" && (body[0] == '+' || body[0] == '-') {
		if body[0] == '-' {
			sign = -1
		}
		body = body[1:]
	}
	switch body {
	case "inf":
		return sign * math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	whole, frac, hasFrac := strings.Cut(mant, ".")
	if !digits(whole, 10) || len(whole) > 1 && whole[0] == '0' || hasFrac && !digits(frac, 10) || !hasFrac && !hasExp {
		return 0, false
	}
	if hasExp && !digits(strings.TrimLeft(exp, "+-"), 10) || hasExp && len(exp)-len(strings.TrimLeft(exp, "+-")) > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(tok, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// tomlJSON writes a TOML value as JSON, tables' keys in file order. An
// infinite or NaN float, which JSON cannot hold, is an error.
func tomlJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := writeTOMLJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeTOMLJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case *tomlTable:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(marshalString(k))
			b.WriteByte(':')
			if err := writeTOMLJSON(b, v.vals[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case tomlTables:
		return writeTOMLJSON(b, []any(toAny(v)))
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeTOMLJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case string:
		b.Write(marshalString(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("the value %v cannot be used here", v)
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	default:
		return fmt.Errorf("a TOML value of type %T", v)
	}
	return nil
}

func toAny(ts tomlTables) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}
