package jsonscan

import "math"

// NewScanner returns a Scanner at the start of data that indexes the
// values of indexMin bytes or more (0: none). Input too short for an
// index to pay, or too long for its positions, is not indexed.
func NewScanner(data []byte, indexMin int) *Scanner {
	s := &Scanner{data: data, indexMin: indexMin}
	switch {
	case indexMin <= 0:
	case len(data) > math.MaxInt32:
		s.indexMin = 0 // positions would not fit a span
	case len(data) < 8*indexMin:
		s.indexMin = 0 // as quick to scan again
	default:
		// Room for a value in 128 bytes (a list of small objects); one
		// large value (a long text) needs one span.
		s.index = make([]span, 0, min(len(data)/128, 1024))
	}
	return s
}

// Pos returns the position of the scanner in its data.
func (v *Scanner) Pos() int { return v.i }

// SkipSpace moves past white space.
func (v *Scanner) SkipSpace() { v.space() }

// Peek returns the byte at the scanner, or 0 at the end of the data.
func (v *Scanner) Peek() byte {
	if v.i >= len(v.data) {
		return 0
	}
	return v.data[v.i]
}

// Advance moves past one byte (a bracket or comma the caller checked).
func (v *Scanner) Advance() { v.i++ }

// Value checks the JSON value at the scanner, nested depth deep, and
// moves past it. It reports whether the value is valid.
func (v *Scanner) Value(depth int) bool { return v.value(depth) }

// TooDeep reports whether a value was refused for nesting deeper than
// MaxDepth.
func (v *Scanner) TooDeep() bool { return v.tooDeep }

// Object checks the object at the scanner (which must be at its '{'),
// nested depth deep, and moves past it, calling member for each member in
// order: key is its name as it stands between the quotes (escapes not
// decoded), tok the name's token with its quotes (for Unquote), val the
// member's value, and ix the index of val's large values. It reports
// whether the object is valid JSON; member is not called for a member
// that is not.
func (v *Scanner) Object(depth int, member func(key, tok, val []byte, ix Index)) bool {
	d := v.data
	v.i++
	v.space()
	if v.i < len(d) && d[v.i] == '}' {
		v.i++
		return true
	}
	for {
		v.space()
		ks := v.i
		if v.i >= len(d) || d[v.i] != '"' || !v.str() {
			return false
		}
		ke := v.i
		v.space()
		if v.i >= len(d) || d[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		vs, k0 := v.i, len(v.index)
		if !v.value(depth + 1) {
			return false
		}
		member(d[ks+1:ke-1], d[ks:ke], d[vs:v.i], Index{spans: v.index[k0:len(v.index):len(v.index)], base: int32(vs), first: int32(k0)})
		v.space()
		if v.i >= len(d) {
			return false
		}
		if d[v.i] == '}' {
			v.i++
			return true
		}
		if d[v.i] != ',' {
			return false
		}
		v.i++
	}
}

// Members walks the members of the object at the start of data, which
// need not be valid JSON, as far as they go: for each, member gets its
// name as it stands between the quotes and its value's bytes (a value is
// skipped without looking into it, with no depth limit), until member
// returns false or the input stops making sense.
func Members(data []byte, member func(key, val []byte) bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	for i++; ; {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != '"' {
			return
		}
		ks := i
		i = skipString(data, i)
		if i > len(data) || i-ks < 2 || data[i-1] != '"' {
			return
		}
		key := data[ks+1 : i-1]
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return
		}
		vs := i
		i = skipValue(data, i)
		if i > len(data) || !member(key, data[vs:i]) {
			return
		}
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i++
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && data[i] <= ' ' {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the end of the JSON value starting at data[i]; data is
// known to be valid JSON.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// skipString returns the index just past the string starting at data[i]
// (len(data) when it is not closed).
func skipString(data []byte, i int) int {
	i++
	// Most strings are short: byte by byte until the first escape.
	for lim := min(i+32, len(data)); i < lim; i++ {
		if c := data[i]; c == '"' {
			return i + 1
		} else if c == '\\' {
			break
		}
	}
	for i < len(data) {
		i = quoteRun(data, i)
		if i >= len(data) {
			return len(data)
		}
		if data[i] == '\\' {
			i += 2
			continue
		}
		return i + 1
	}
	return len(data)
}
