package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A skill's SKILL.md begins with YAML frontmatter between "---" lines
// (the Agent Skills format). mcpwire reads the part of YAML such
// frontmatter uses: mappings by indentation, block sequences ("- x"),
// flow sequences of scalars ("[a, b]"), plain and quoted scalars (with
// YAML's core schema: null, booleans, numbers), block scalars ("|", ">",
// with chomping) and comments. Anything else (anchors, aliases, tags,
// flow mappings, several documents) is refused: a skill whose
// frontmatter cannot be read for certain is not loaded.

// maxFrontmatter bounds the frontmatter read (bytes), and maxYAMLDepth
// its nesting.
const (
	maxFrontmatter = 64 << 10
	maxYAMLDepth   = 16
)

// SplitFrontmatter returns the YAML frontmatter of a SKILL.md and the
// body after it. A byte order mark is skipped; the first line must be
// "---" and a later line "---" ends the frontmatter.
func SplitFrontmatter(doc []byte) (yaml, body []byte, err error) {
	doc = bytes.TrimPrefix(doc, []byte("\ufeff"))
	first, rest, ok := cutLine(doc)
	if !ok || strings.TrimRight(string(first), " \t") != "---" {
		return nil, nil, errors.New("no frontmatter: the file does not begin with a --- line")
	}
	off := 0
	for off <= len(rest) {
		line, after, more := cutLine(rest[off:])
		if strings.TrimRight(string(line), " \t") == "---" {
			return rest[:off], after, nil
		}
		if !more {
			break
		}
		off = len(rest) - len(after)
		if off > maxFrontmatter {
			return nil, nil, fmt.Errorf("frontmatter longer than %d bytes", maxFrontmatter)
		}
	}
	return nil, nil, errors.New("frontmatter: no closing --- line")
}

// cutLine splits b after its first line (the line without its \n or
// \r\n); more says a newline ended it.
func cutLine(b []byte) (line, rest []byte, more bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	line = b[:i]
	return bytes.TrimSuffix(line, []byte("\r")), b[i+1:], true
}

// ParseFrontmatter reads YAML frontmatter (see above) into JSON-like
// values: map[string]any, []any, string, float64, bool, nil.
func ParseFrontmatter(yaml []byte) (map[string]any, error) {
	if len(yaml) > maxFrontmatter {
		return nil, fmt.Errorf("frontmatter longer than %d bytes", maxFrontmatter)
	}
	p := &yamlParser{}
	for i, raw := range strings.Split(string(yaml), "\n") {
		raw = strings.TrimSuffix(raw, "\r")
		if t := strings.TrimLeft(raw, " "); t != "" && t[0] == '\t' {
			return nil, fmt.Errorf("frontmatter line %d: a tab in the indentation", i+1)
		}
		p.lines = append(p.lines, yamlLine{n: i + 1, text: raw, indent: len(raw) - len(strings.TrimLeft(raw, " "))})
	}
	p.skipBlank()
	if p.pos >= len(p.lines) {
		return map[string]any{}, nil
	}
	v, err := p.block(p.lines[p.pos].indent, 0)
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.pos < len(p.lines) {
		return nil, p.errf("unexpected indentation")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("frontmatter: not a mapping")
	}
	return m, nil
}

type yamlLine struct {
	_ [0]func() // not comparable: no equality function in the binary

	n      int
	text   string
	indent int
}

type yamlParser struct {
	lines []yamlLine
	pos   int
}

func (p *yamlParser) errf(format string, args ...any) error {
	n := len(p.lines)
	if p.pos < len(p.lines) {
		n = p.lines[p.pos].n
	}
	return fmt.Errorf("frontmatter line %d: %s", n, fmt.Sprintf(format, args...))
}

// blank says whether a line holds nothing but spaces or a comment.
func blank(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || t[0] == '#'
}

func (p *yamlParser) skipBlank() {
	for p.pos < len(p.lines) && blank(p.lines[p.pos].text) {
		p.pos++
	}
}

// block reads the mapping or sequence whose lines are at indent.
func (p *yamlParser) block(indent, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, p.errf("nested deeper than %d", maxYAMLDepth)
	}
	p.skipBlank()
	t := strings.TrimSpace(p.lines[p.pos].text)
	if t == "-" || strings.HasPrefix(t, "- ") {
		return p.sequence(indent, depth)
	}
	return p.mapping(indent, depth)
}

func (p *yamlParser) mapping(indent, depth int) (any, error) {
	m := map[string]any{}
	for {
		p.skipBlank()
		if p.pos >= len(p.lines) || p.lines[p.pos].indent < indent {
			return m, nil
		}
		l := p.lines[p.pos]
		if l.indent > indent {
			return nil, p.errf("unexpected indentation")
		}
		key, rest, err := p.key(strings.TrimSpace(l.text))
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, p.errf("the key %q appears twice", key)
		}
		p.pos++
		v, err := p.value(rest, indent, depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
	}
}

func (p *yamlParser) sequence(indent, depth int) (any, error) {
	list := []any{}
	for {
		p.skipBlank()
		if p.pos >= len(p.lines) || p.lines[p.pos].indent < indent {
			return list, nil
		}
		l := p.lines[p.pos]
		t := strings.TrimSpace(l.text)
		if l.indent > indent || (t != "-" && !strings.HasPrefix(t, "- ")) {
			return nil, p.errf("expected a sequence item")
		}
		item := strings.TrimSpace(strings.TrimPrefix(t, "-"))
		if item != "" && !strings.HasPrefix(item, "#") && looksLikeKey(item) {
			return nil, p.errf("mappings inside sequences are not supported")
		}
		p.pos++
		v, err := p.value(item, indent, depth)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
	}
}

// looksLikeKey says whether s starts a "key: value" pair.
func looksLikeKey(s string) bool {
	if s[0] == '"' || s[0] == '\'' || s[0] == '[' {
		return false
	}
	i := strings.Index(s, ":")
	return i > 0 && (i == len(s)-1 || s[i+1] == ' ')
}

// key splits "key: rest".
func (p *yamlParser) key(t string) (string, string, error) {
	if t[0] == '"' || t[0] == '\'' {
		k, n, err := quoted(t)
		if err != nil {
			return "", "", p.errf("%v", err)
		}
		rest := t[n:]
		if !strings.HasPrefix(rest, ":") {
			return "", "", p.errf("expected ':' after the key")
		}
		return k, strings.TrimSpace(rest[1:]), nil
	}
	i := strings.Index(t, ":")
	for i >= 0 && i+1 < len(t) && t[i+1] != ' ' {
		j := strings.Index(t[i+1:], ":")
		if j < 0 {
			i = -1
			break
		}
		i += 1 + j
	}
	if i <= 0 {
		return "", "", p.errf("expected 'key: value'")
	}
	k := t[:i]
	if strings.ContainsAny(k[:1], "&*!|>%@`{[?-") {
		return "", "", p.errf("unsupported YAML in the key %q", k)
	}
	return k, strings.TrimSpace(t[i+1:]), nil
}

// value reads what follows a key or "- ": a scalar on the line, a block
// scalar, or a nested block on the next lines.
func (p *yamlParser) value(rest string, indent, depth int) (any, error) {
	switch {
	case rest == "" || strings.HasPrefix(rest, "#"):
		p.skipBlank()
		if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
			return p.block(p.lines[p.pos].indent, depth+1)
		}
		if p.pos < len(p.lines) && p.lines[p.pos].indent == indent && strings.HasPrefix(strings.TrimSpace(p.lines[p.pos].text), "- ") {
			return p.sequence(indent, depth+1) // a sequence may sit at its key's indentation
		}
		return nil, nil
	case rest[0] == '|' || rest[0] == '>':
		return p.blockScalar(rest, indent)
	}
	return p.scalar(rest)
}

// blockScalar reads a literal (|) or folded (>) scalar.
func (p *yamlParser) blockScalar(head string, indent int) (any, error) {
	style, chomp := head[0], byte(0)
	if h := strings.TrimSpace(strings.SplitN(head[1:], "#", 2)[0]); h != "" {
		if h != "-" && h != "+" {
			return nil, p.errf("unsupported block scalar header %q", head)
		}
		chomp = h[0]
	}
	var lines []string
	body := -1
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		if strings.TrimSpace(l.text) == "" {
			lines = append(lines, "")
			p.pos++
			continue
		}
		if l.indent <= indent || (body >= 0 && l.indent < body) {
			break
		}
		if body < 0 {
			body = l.indent
		}
		lines = append(lines, l.text[body:])
		p.pos++
	}
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var s string
	if style == '|' {
		s = strings.Join(lines, "\n")
	} else {
		var b strings.Builder
		for i, l := range lines {
			switch {
			case i == 0:
			case l == "" || lines[i-1] == "":
				b.WriteByte('\n')
			default:
				b.WriteByte(' ')
			}
			b.WriteString(l)
		}
		s = b.String()
	}
	switch {
	case len(lines) == 0:
	case chomp == '-':
	case chomp == '+':
		s += strings.Repeat("\n", trailing+1)
	default:
		s += "\n"
	}
	return s, nil
}

// scalar reads a scalar, or a flow sequence of scalars, on one line.
func (p *yamlParser) scalar(t string) (any, error) {
	switch t[0] {
	case '"', '\'':
		s, n, err := quoted(t)
		if err != nil {
			return nil, p.errf("%v", err)
		}
		if rest := strings.TrimSpace(t[n:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, p.errf("text after a quoted string")
		}
		return s, nil
	case '[':
		return p.flowSequence(t)
	case '&', '*', '!', '{', '%', '@', '`', '|', '>':
		return nil, p.errf("unsupported YAML %q", t)
	}
	if i := strings.Index(t, " #"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if looksLikeKey(t) {
		return nil, p.errf("a mapping on one line is not supported")
	}
	return plain(t), nil
}

// flowSequence reads "[a, 'b', 3]" (scalars only).
func (p *yamlParser) flowSequence(t string) (any, error) {
	end := strings.LastIndex(t, "]")
	if end < 0 {
		return nil, p.errf("a flow sequence must end on its line")
	}
	if rest := strings.TrimSpace(t[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
		return nil, p.errf("text after a flow sequence")
	}
	inner := strings.TrimSpace(t[1:end])
	list := []any{}
	for inner != "" {
		var item any
		if inner[0] == '"' || inner[0] == '\'' {
			s, n, err := quoted(inner)
			if err != nil {
				return nil, p.errf("%v", err)
			}
			item, inner = s, strings.TrimSpace(inner[n:])
		} else {
			i := strings.IndexByte(inner, ',')
			if i < 0 {
				i = len(inner)
			}
			word := strings.TrimSpace(inner[:i])
			if word == "" || strings.ContainsAny(word[:1], "[]{}&*!") {
				return nil, p.errf("unsupported item in a flow sequence")
			}
			item, inner = plain(word), inner[i:]
		}
		list = append(list, item)
		inner = strings.TrimSpace(inner)
		if inner == "" {
			break
		}
		if inner[0] != ',' {
			return nil, p.errf("expected ',' in a flow sequence")
		}
		inner = strings.TrimSpace(inner[1:])
	}
	return list, nil
}

// quoted reads a quoted scalar at the start of t; n is its length.
func quoted(t string) (string, int, error) {
	q := t[0]
	if q == '\'' {
		var b strings.Builder
		for i := 1; i < len(t); i++ {
			if t[i] == '\'' {
				if i+1 < len(t) && t[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return b.String(), i + 1, nil
			}
			b.WriteByte(t[i])
		}
		return "", 0, errors.New("an unterminated quoted string")
	}
	for i := 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '"':
			s, err := strconv.Unquote(t[:i+1])
			if err != nil {
				return "", 0, fmt.Errorf("a quoted string mcpwire cannot read: %s", t[:i+1])
			}
			return s, i + 1, nil
		}
	}
	return "", 0, errors.New("an unterminated quoted string")
}

// plain is a plain scalar under YAML's core schema.
func plain(s string) any {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && numberLike(s) {
		return f
	}
	return s
}

// numberLike says whether s is a decimal number as YAML's core schema
// writes one (not 0x…, not Inf or NaN spelled as Go reads them).
func numberLike(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' && r != 'e' && r != 'E' && r != '-' && r != '+' {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9' || s[0] == '.'
}
