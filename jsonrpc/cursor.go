package jsonrpc

import "bytes"

// A Cursor takes apart JSON already checked by [Valid] (every raw member
// of a decoded Message is) in one pass: the caller reads the values it
// wants where they stand, and the cursor skips the others, so each byte
// is looked at about once however deep the value. On input that is not
// valid JSON a Cursor fails or gives what it could read, but never panics.
//
// The zero Cursor is empty; [NewCursor] gives one at the start of data.
type Cursor struct {
	data []byte
	i    int
}

// NewCursor returns a Cursor at the start of data.
func NewCursor(data []byte) *Cursor { return &Cursor{data: data} }

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
	c.i = skipValue(c.data, c.i)
	return c.data[start:c.i]
}

// String decodes the string at the cursor as encoding/json does and moves
// past it.
func (c *Cursor) String() (string, error) {
	if c.next() != '"' {
		return "", errMalformed
	}
	start := c.i
	end, plain := scanString(c.data, start)
	if end-start < 2 || c.data[end-1] != '"' {
		return "", errMalformed
	}
	c.i = end
	if plain {
		return string(c.data[start+1 : end-1]), nil
	}
	return unquoteValid(c.data[start:end])
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
	d := c.data
	if c.next() != '{' {
		return errMalformed
	}
	i := skipSpace(d, c.i+1)
	for i < len(d) && d[i] != '}' {
		if d[i] != '"' {
			return errMalformed
		}
		kend, plain := scanString(d, i)
		if kend-i < 2 || d[kend-1] != '"' {
			return errMalformed
		}
		key := d[i+1 : kend-1]
		if !plain && !plainASCII(key) {
			k, err := unquoteValid(d[i:kend])
			if err != nil {
				return err
			}
			key = []byte(k)
		}
		i = skipSpace(d, kend)
		if i >= len(d) || d[i] != ':' {
			return errMalformed
		}
		i = skipSpace(d, i+1)
		if i >= len(d) {
			return errMalformed
		}
		c.i = i
		if err := fn(key); err != nil {
			return err
		}
		if c.i == i { // fn left the value: every value is at least a byte
			c.i = skipValue(d, i)
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
	d := c.data
	if c.next() != '[' {
		return errMalformed
	}
	i := skipSpace(d, c.i+1)
	for i < len(d) && d[i] != ']' {
		c.i = i
		if err := fn(); err != nil {
			return err
		}
		if c.i == i {
			c.i = skipValue(d, i)
			if c.i == i {
				return errMalformed
			}
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
