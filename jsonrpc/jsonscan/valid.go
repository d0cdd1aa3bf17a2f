package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// validJSON reports whether data is one valid JSON value, exactly as
// json.Valid does (invalid UTF-8 inside strings is let through, as
// encoding/json decodes it to U+FFFD), but quicker on long strings: a
// message of megabytes of text is checked at memory speed.
func validJSON(data []byte) bool {
	v := Scanner{data: data}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.data)
}

// MaxDepth bounds nesting, as encoding/json does.
const MaxDepth = 10000

// A Scanner checks JSON in one pass, from the start of its data. With an
// index size, it also notes where the values of at least that many bytes
// start and end, so that a [Cursor] over one of them ([NewIndexedCursor])
// skips them without scanning: a message is looked at once, however often
// its values are taken apart or passed over.
type Scanner struct {
	data []byte
	i    int

	// index, when indexMin > 0, gathers the values of at least indexMin
	// bytes, for a Cursor to skip them without scanning.
	indexMin int
	index    []span

	tooDeep bool // the value was refused for nesting deeper than MaxDepth
}

// IndexMin is the size from which a value is worth indexing: smaller ones
// are as quick to scan as to look up.
const IndexMin = 96 // more than the byte-by-byte start of Scanner.str

// A span is one indexed value: its bytes are data[start:end], and next is
// the index of the first span after it and all it holds. Spans are in the
// order their values start, so a container comes before what it holds.
// For a string, plain says it has no escapes. Positions fit in an int32:
// longer input is not indexed.
type span struct {
	_ [0]func() // not comparable: no equality function in the binary

	start, end, next int32
	plain            bool
}

// An Index is the spans of one value (a response's result) out of the
// index of its message: positions are relative to the message (base is
// where the value starts) and so are the next fields (first is the
// value's own first span). The zero Index is empty.
type Index struct {
	spans       []span
	base, first int32
}

// open starts the span of a container at start; it returns its index
// (-1 when not indexing).
func (v *Scanner) open(start int) int {
	if v.indexMin <= 0 {
		return -1
	}
	v.index = append(v.index, span{start: int32(start)})
	return len(v.index) - 1
}

// close ends the span k opened, dropping it if it is small (then so was
// everything it holds, already dropped).
func (v *Scanner) close(k int) {
	if k < 0 {
		return
	}
	if v.i-int(v.index[k].start) < v.indexMin {
		v.index = v.index[:k]
		return
	}
	v.index[k].end = int32(v.i)
	v.index[k].next = int32(len(v.index))
}

func (v *Scanner) space() {
	for v.i < len(v.data) && v.data[v.i] <= ' ' {
		switch v.data[v.i] {
		case ' ', '\t', '\r', '\n':
			v.i++
		default:
			return
		}
	}
}

func (v *Scanner) value(depth int) bool {
	if v.i >= len(v.data) {
		return false
	}
	if depth > MaxDepth {
		v.tooDeep = true
		return false
	}
	switch c := v.data[v.i]; {
	case c == '"':
		return v.str()
	case c == '{' || c == '[':
		k := v.open(v.i)
		ok := v.container(depth, c+2) // '}' or ']'
		if ok {
			v.close(k)
		}
		return ok
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return v.number()
	}
	return false
}

// container checks the object (end '}') or array (end ']') at v.i.
func (v *Scanner) container(depth int, end byte) bool {
	d := v.data
	v.i++
	v.space()
	if v.i < len(d) && d[v.i] == end {
		v.i++
		return true
	}
	for {
		v.space()
		if end == '}' { // a member's name and colon
			if v.i >= len(d) || d[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(d) || d[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
		}
		if !v.value(depth + 1) {
			return false
		}
		v.space()
		if v.i >= len(d) {
			return false
		}
		if d[v.i] == end {
			v.i++
			return true
		}
		if d[v.i] != ',' {
			return false
		}
		v.i++
	}
}

func (v *Scanner) literal(s string) bool {
	if len(v.data)-v.i < len(s) || string(v.data[v.i:v.i+len(s)]) != s {
		return false
	}
	v.i += len(s)
	return true
}

// str checks a string starting at the opening quote.
func (v *Scanner) str() bool {
	d := v.data
	start := v.i
	i := v.i + 1
	// Most strings are short and plain: a word at a time, here, first.
	for lim := min(i+24, len(d)-8); i <= lim; i += 8 {
		if m := special(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if d[i] == '"' {
				v.i = i + 1
				return true // too short to be worth indexing
			}
			break
		}
	}
	escaped := false
	for i < len(d) {
		i = plainRun(d, i)
		if i >= len(d) {
			return false
		}
		c := d[i]
		switch {
		case c == '"':
			v.i = i + 1
			if v.indexMin > 0 && v.i-start >= v.indexMin {
				v.index = append(v.index, span{start: int32(start), end: int32(v.i), next: int32(len(v.index) + 1), plain: !escaped})
			}
			return true
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) {
					return false
				}
				for _, h := range d[i+2 : i+6] {
					if !isHex(h) {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		case c < 0x20:
			return false
		default:
			i++
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (v *Scanner) number() bool {
	d := v.data
	i := v.i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	v.i = i
	return true
}
