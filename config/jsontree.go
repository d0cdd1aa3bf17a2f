package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// This file holds a small JSON reader that keeps byte offsets, member order
// and duplicate members, and a splicing editor on top of it. Reading a file
// with it gives line:column positions for errors; editing a file with it
// changes only the bytes of the member touched, so every other entry keeps
// its order, its formatting and its unknown fields.

// A jnode is one JSON value with its place in the document.
type jnode struct {
	kind       byte // '{' object, '[' array, '"' string, '0' number, 't' true, 'f' false, 'n' null
	start, end int  // byte offsets of the value: data[start:end]
	members    []jmember
	elems      []*jnode
	str        string // the decoded string, for kind '"'
}

// A jmember is one member of an object.
type jmember struct {
	_ [0]func() // not comparable: no equality function in the binary

	key              string
	keyStart, keyEnd int // the key with its quotes
	val              *jnode
}

// kindName names a node's kind for error messages.
func (n *jnode) kindName() string {
	switch n.kind {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}

// lookup returns the last member named key and how many members have that
// name.
func (n *jnode) lookup(key string) (*jmember, int) {
	var found *jmember
	count := 0
	for i := range n.members {
		if n.members[i].key == key {
			found = &n.members[i]
			count++
		}
	}
	return found, count
}

// jsonSyntaxError is a document that is not JSON, at a byte offset.
type jsonSyntaxError struct {
	offset int
	msg    string
}

func (e *jsonSyntaxError) Error() string { return e.msg }

// parseJSON reads one JSON document. The standard decoder checks the
// grammar first, so the scanner below only meets valid JSON; it still
// checks every bound and reports rather than panics.
func parseJSON(data []byte) (*jnode, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset)
			if off > 0 {
				off-- // Offset is after the byte that failed
			}
			return nil, &jsonSyntaxError{offset: off, msg: se.Error()}
		}
		return nil, &jsonSyntaxError{offset: len(data), msg: "not valid JSON"}
	}
	s := &jscanner{data: data}
	s.skipSpace()
	n, err := s.value()
	if err != nil {
		return nil, err
	}
	s.skipSpace()
	if s.pos != len(data) {
		return nil, &jsonSyntaxError{offset: s.pos, msg: "data after the top-level value"}
	}
	return n, nil
}

type jscanner struct {
	data []byte
	pos  int
}

func (s *jscanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jscanner) fail(msg string) error {
	return &jsonSyntaxError{offset: s.pos, msg: msg}
}

func (s *jscanner) value() (*jnode, error) {
	if s.pos >= len(s.data) {
		return nil, s.fail("unexpected end of JSON input")
	}
	start := s.pos
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		return s.string()
	case c == 't' && bytes.HasPrefix(s.data[s.pos:], []byte("true")):
		s.pos += 4
		return &jnode{kind: 't', start: start, end: s.pos}, nil
	case c == 'f' && bytes.HasPrefix(s.data[s.pos:], []byte("false")):
		s.pos += 5
		return &jnode{kind: 'f', start: start, end: s.pos}, nil
	case c == 'n' && bytes.HasPrefix(s.data[s.pos:], []byte("null")):
		s.pos += 4
		return &jnode{kind: 'n', start: start, end: s.pos}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		for s.pos < len(s.data) && bytes.IndexByte([]byte("+-0123456789.eE"), s.data[s.pos]) >= 0 {
			s.pos++
		}
		return &jnode{kind: '0', start: start, end: s.pos}, nil
	}
	return nil, s.fail("unexpected character")
}

func (s *jscanner) string() (*jnode, error) {
	start := s.pos
	s.pos++ // opening quote
	escaped := false
	for {
		if s.pos >= len(s.data) {
			return nil, s.fail("unterminated string")
		}
		c := s.data[s.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			escaped = true
			s.pos++
		}
		s.pos++
	}
	s.pos++ // closing quote
	n := &jnode{kind: '"', start: start, end: s.pos}
	if !escaped {
		n.str = string(s.data[start+1 : s.pos-1])
		if !jsonValidUTF8(n.str) {
			// Decode as the standard library does (invalid bytes become
			// U+FFFD) so that every reader sees the same string.
			if err := json.Unmarshal(s.data[start:s.pos], &n.str); err != nil {
				return nil, s.fail("invalid string")
			}
		}
		return n, nil
	}
	if err := json.Unmarshal(s.data[start:s.pos], &n.str); err != nil {
		return nil, s.fail("invalid string")
	}
	return n, nil
}

func (s *jscanner) object() (*jnode, error) {
	n := &jnode{kind: '{', start: s.pos}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		n.end = s.pos
		return n, nil
	}
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, s.fail("expected a member name")
		}
		k, err := s.string()
		if err != nil {
			return nil, err
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, s.fail("expected ':'")
		}
		s.pos++
		s.skipSpace()
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: k.str, keyStart: k.start, keyEnd: k.end, val: v})
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, s.fail("unterminated object")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			n.end = s.pos
			return n, nil
		default:
			return nil, s.fail("expected ',' or '}'")
		}
	}
}

func (s *jscanner) array() (*jnode, error) {
	n := &jnode{kind: '[', start: s.pos}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		n.end = s.pos
		return n, nil
	}
	for {
		s.skipSpace()
		v, err := s.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		s.skipSpace()
		if s.pos >= len(s.data) {
			return nil, s.fail("unterminated array")
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			n.end = s.pos
			return n, nil
		default:
			return nil, s.fail("expected ',' or ']'")
		}
	}
}

// jsonValidUTF8 reports whether s holds no invalid UTF-8 and no control
// characters (which valid JSON cannot hold unescaped anyway).
func jsonValidUTF8(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' {
			return false
		}
	}
	return true
}

// lineCol turns a byte offset into a 1-based line and a 1-based byte
// column.
func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// ---- editing ----

// splice returns data with data[start:end] replaced by text.
func splice(data []byte, start, end int, text []byte) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(text))
	out = append(out, data[:start]...)
	out = append(out, text...)
	return append(out, data[end:]...)
}

// marshalString encodes s as a JSON string without HTML escaping.
func marshalString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// lineIndent returns the leading white space of the line holding off.
func lineIndent(data []byte, off int) string {
	ls := bytes.LastIndexByte(data[:off], '\n') + 1
	i := ls
	for i < off && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return string(data[ls:i])
}

// formatValue lays raw out to sit after a member name at memberIndent.
func formatValue(raw []byte, compact bool, memberIndent, unit string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	var b bytes.Buffer
	if compact {
		if err := json.Compact(&b, raw); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	if err := json.Indent(&b, raw, memberIndent, unit); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// setMember sets obj's member key to raw: it replaces the value of an
// existing member in place, or adds the member after the last one, in the
// layout the object already has.
func setMember(data []byte, obj *jnode, key string, raw []byte) ([]byte, error) {
	if m, n := obj.lookup(key); n > 1 {
		return nil, fmt.Errorf("member %q appears %d times", key, n)
	} else if n == 1 {
		memberIndent := lineIndent(data, m.keyStart)
		compact := !bytes.Contains(data[obj.start:obj.end], []byte("\n"))
		text, err := formatValue(raw, compact, memberIndent, indentUnit(data, obj))
		if err != nil {
			return nil, err
		}
		return splice(data, m.val.start, m.val.end, text), nil
	}
	return insertMember(data, obj, key, raw)
}

// indentUnit guesses one level of indentation from the object's layout.
func indentUnit(data []byte, obj *jnode) string {
	if len(obj.members) > 0 {
		parent := lineIndent(data, obj.start)
		first := obj.members[0]
		if bytes.Contains(data[obj.start:first.keyStart], []byte("\n")) {
			mi := lineIndent(data, first.keyStart)
			if len(mi) > len(parent) && mi[:len(parent)] == parent {
				return mi[len(parent):]
			}
		}
	}
	if bytes.Contains(data, []byte("\n\t")) {
		return "\t"
	}
	return "  "
}

// insertMember adds "key": raw as the last member of obj.
func insertMember(data []byte, obj *jnode, key string, raw []byte) ([]byte, error) {
	k := marshalString(key)
	unit := indentUnit(data, obj)
	if len(obj.members) == 0 {
		parent := lineIndent(data, obj.start)
		compact := !bytes.Contains(data, []byte("\n"))
		val, err := formatValue(raw, compact, parent+unit, unit)
		if err != nil {
			return nil, err
		}
		var text []byte
		if compact {
			text = fmt.Appendf(nil, "{%s:%s}", k, val)
		} else {
			text = fmt.Appendf(nil, "{\n%s%s%s: %s\n%s}", parent, unit, k, val, parent)
		}
		return splice(data, obj.start, obj.end, text), nil
	}
	first := obj.members[0]
	last := obj.members[len(obj.members)-1]
	sep := data[obj.start+1 : first.keyStart]
	colon := data[first.keyEnd:first.val.start]
	compact := !bytes.Contains(sep, []byte("\n"))
	val, err := formatValue(raw, compact, lineIndent(data, first.keyStart), unit)
	if err != nil {
		return nil, err
	}
	text := make([]byte, 0, len(sep)+len(k)+len(colon)+len(val)+1)
	text = append(text, ',')
	text = append(text, sep...)
	text = append(text, k...)
	text = append(text, colon...)
	text = append(text, val...)
	return splice(data, last.val.end, last.val.end, text), nil
}

// deleteMember removes obj.members[i] and the separator next to it.
func deleteMember(data []byte, obj *jnode, i int) []byte {
	switch {
	case len(obj.members) == 1:
		return splice(data, obj.start, obj.end, []byte("{}"))
	case i > 0:
		return splice(data, obj.members[i-1].val.end, obj.members[i].val.end, nil)
	default:
		return splice(data, obj.members[0].keyStart, obj.members[1].keyStart, nil)
	}
}

// setPath sets the member at path (object keys from the root) to raw,
// creating the objects on the way. Every object on the way must be an
// object already, or be missing.
func setPath(data []byte, path []string, raw []byte) ([]byte, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("the top level is a %s, not an object", root.kindName())
	}
	cur := root
	for i, key := range path[:len(path)-1] {
		m, n := cur.lookup(key)
		if n > 1 {
			return nil, fmt.Errorf("member %q appears %d times", key, n)
		}
		if n == 0 {
			// Build the rest of the path around raw and add it here.
			nested := raw
			for j := len(path) - 1; j > i; j-- {
				nested = fmt.Appendf(nil, "{%s:%s}", marshalString(path[j]), nested)
			}
			return insertMember(data, cur, key, nested)
		}
		if m.val.kind != '{' {
			return nil, fmt.Errorf("%q is a %s, not an object", key, m.val.kindName())
		}
		cur = m.val
	}
	return setMember(data, cur, path[len(path)-1], raw)
}
