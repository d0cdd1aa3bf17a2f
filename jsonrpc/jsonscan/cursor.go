package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// A Cursor takes apart JSON already checked by [Valid] (every raw member
// of a decoded JSON-RPC message is) in one pass: the caller reads the values it
// wants where they stand, and the cursor skips the others, so each byte
// is looked at about once however deep the value. On input that is not
// valid JSON a Cursor fails or gives what it could read, but never panics.
//
// The zero Cursor is empty; [NewCursor] gives one at the start of data.
type Cursor struct {
	data []byte
	i    int

	// index lists the large values of data, when known (see
	// NewIndexedCursor); t is the first of them not behind the cursor.
	index Index
	t     int
}

// NewCursor returns a Cursor at the start of data.
func NewCursor(data []byte) *Cursor { return &Cursor{data: data} }

// NewIndexedCursor returns a Cursor at the start of data, a value whose
// large values ix lists (from [Scanner.Object]): it skips them without
// scanning them, and takes a long string without escapes as it stands.
func NewIndexedCursor(data []byte, ix Index) *Cursor { return &Cursor{data: data, index: ix} }

// indexed returns the end of the value at the cursor and the index of the
// span after it and all it holds, if it is in the index; plain says a
// string has no escapes.
func (c *Cursor) indexed() (end, next int, plain, ok bool) {
	ix := &c.index
	at := int32(c.i) + ix.base
	for c.t < len(ix.spans) && ix.spans[c.t].start < at {
		c.t++ // behind the cursor: a long member name, scanned instead
	}
	if c.t < len(ix.spans) && ix.spans[c.t].start == at {
		sp := &ix.spans[c.t]
		return int(sp.end - ix.base), int(sp.next - ix.first), sp.plain, true
	}
	return 0, 0, false, false
}

// skip moves past the value at the cursor (at c.i, spaces skipped).
func (c *Cursor) skip() {
	if end, next, _, ok := c.indexed(); ok {
		c.i, c.t = end, next
		return
	}
	c.i = skipValue(c.data, c.i)
}

// enter moves into the container at the cursor: past its own span, if it
// has one, so that the spans of what it holds come next.
func (c *Cursor) enter() {
	if _, _, _, ok := c.indexed(); ok {
		c.t++
	}
}

// next moves past spaces and returns the byte at the cursor (0 at the end).
func (c *Cursor) next() byte {
	c.i = skipSpace(c.data, c.i)
	if c.i >= len(c.data) {
		return 0
	}
	return c.data[c.i]
}

// Null reports whether the value at the cursor is null, and if so moves
// past it.
func (c *Cursor) Null() bool {
	if c.next() == 'n' && bytes.HasPrefix(c.data[c.i:], []byte("null")) {
		c.i += 4
		return true
	}
	return false
}

// Kind returns the first byte of the value at the cursor: '{', '[', '"',
// 't', 'f', 'n', '-' or a digit (0 at the end of the input).
func (c *Cursor) Kind() byte { return c.next() }

// Raw returns the bytes of the value at the cursor (aliasing the input)
// and moves past it.
func (c *Cursor) Raw() []byte {
	if c.next() == 0 {
		return nil
	}
	start := c.i
	c.skip()
	return c.data[start:c.i]
}

// String decodes the string at the cursor as encoding/json does and moves
// past it.
func (c *Cursor) String() (string, error) {
	tok, plain, err := c.stringToken()
	switch {
	case err != nil:
		return "", err
	case plain:
		return string(tok[1 : len(tok)-1]), nil
	}
	return UnquoteValid(tok)
}

// AppendString appends the string at the cursor, decoded as String
// decodes it, to dst and moves past it: many strings decoded into one
// buffer can become one string, one allocation for them all.
func (c *Cursor) AppendString(dst []byte) ([]byte, error) {
	tok, plain, err := c.stringToken()
	switch {
	case err != nil:
		return dst, err
	case plain:
		return append(dst, tok[1:len(tok)-1]...), nil
	}
	return appendUnquoted(dst, tok)
}

// stringToken returns the string token at the cursor and moves past it;
// plain says its body is the string it spells (valid UTF-8, no escapes).
func (c *Cursor) stringToken() (tok []byte, plain bool, err error) {
	if c.next() != '"' {
		return nil, false, errMalformed
	}
	start := c.i
	if end, next, noEscapes, ok := c.indexed(); ok {
		// A long string: its end is known, and whether it has escapes.
		c.i, c.t = end, next
		tok = c.data[start:end]
		return tok, noEscapes && utf8.Valid(tok[1:len(tok)-1]), nil
	}
	end, plain := scanString(c.data, start)
	if end-start < 2 || c.data[end-1] != '"' {
		return nil, false, errMalformed
	}
	c.i = end
	return c.data[start:end], plain, nil
}

// scanString returns the end of the string token at d[i] (just past its
// closing quote, or len(d)), and whether it is short plain ASCII with no
// escapes: then its body is the string it spells. Short strings, the
// most of them, are looked at byte by byte; others take the word-at-a-time
// path.
func scanString(d []byte, i int) (end int, plain bool) {
	for j, lim := i+1, min(i+33, len(d)); j < lim; j++ {
		c := d[j]
		if c == '"' {
			return j + 1, true
		}
		if c == '\\' || c >= 0x80 {
			break
		}
	}
	return skipString(d, i), false
}

// Object calls fn for each member of the object at the cursor, in order,
// with the member's name and the cursor at the member's value, then moves
// past the object. fn may read the value (with String, Raw, Object,
// Array, Null); a value fn leaves alone is skipped. The name aliases the
// input when it is plain ASCII: copy it to keep it. Object stops at the
// first error fn returns.
func (c *Cursor) Object(fn func(key []byte) error) error {
	return c.items('{', '}', func() error {
		key, err := c.key()
		if err != nil {
			return err
		}
		at := c.i
		if err := fn(key); err != nil {
			return err
		}
		if c.i == at { // fn left the value
			c.skip()
		}
		return nil
	})
}

// key reads a member's name and colon at the cursor, and leaves the cursor
// at the member's value.
func (c *Cursor) key() ([]byte, error) {
	d, i := c.data, c.i
	if d[i] != '"' {
		return nil, errMalformed
	}
	kend, plain := scanString(d, i)
	if kend-i < 2 || d[kend-1] != '"' {
		return nil, errMalformed
	}
	key := d[i+1 : kend-1]
	if !plain && !plainASCII(key) {
		k, err := UnquoteValid(d[i:kend])
		if err != nil {
			return nil, err
		}
		key = []byte(k)
	}
	i = skipSpace(d, kend)
	if i >= len(d) || d[i] != ':' {
		return nil, errMalformed
	}
	i = skipSpace(d, i+1)
	if i >= len(d) {
		return nil, errMalformed
	}
	c.i = i
	return key, nil
}

// items calls item for each member or element of the container at the
// cursor (open and close are its brackets), with the cursor at it, then
// moves past the container. item moves the cursor past what it reads.
func (c *Cursor) items(open, close byte, item func() error) error {
	d := c.data
	if c.next() != open {
		return errMalformed
	}
	c.enter()
	i := skipSpace(d, c.i+1)
	for i < len(d) && d[i] != close {
		c.i = i
		if err := item(); err != nil {
			return err
		}
		if c.i == i { // nothing read: not JSON
			return errMalformed
		}
		i = skipSpace(d, c.i)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
		}
	}
	if i >= len(d) {
		return errMalformed
	}
	c.i = i + 1
	return nil
}

// plainASCII reports whether a string's body is ASCII with no escapes:
// its bytes are the name it spells.
func plainASCII(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// Array calls fn for each element of the array at the cursor, in order,
// with the cursor at the element, then moves past the array; the same
// terms as Object.
func (c *Cursor) Array(fn func() error) error {
	return c.items('[', ']', func() error {
		at := c.i
		if err := fn(); err != nil {
			return err
		}
		if c.i == at { // fn left the element
			c.skip()
		}
		return nil
	})
}
