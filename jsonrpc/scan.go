package jsonrpc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// Valid reports whether data is one valid JSON value, exactly as
// json.Valid does, at memory speed on long strings.
func Valid(data []byte) bool { return validJSON(data) }

// errMalformed is returned by the scanners for input that is not JSON.
var errMalformed = errors.New("jsonrpc: malformed JSON")

// EachMember calls fn for each member of the JSON object obj, in order,
// with the member's name and its value's bytes (which alias obj). It stops
// at the first error fn returns. It is meant for input already checked by
// Valid (every raw member of a decoded Message is); on other input it
// fails or gives what it could read, but never panics.
func EachMember(obj []byte, fn func(key string, value []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errMalformed
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] != '}' {
		if obj[i] != '"' {
			return errMalformed
		}
		kend := skipString(obj, i)
		key, err := Unquote(obj[i:kend])
		if err != nil {
			return err
		}
		i = skipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return errMalformed
		}
		i = skipSpace(obj, i+1)
		if i >= len(obj) {
			return errMalformed
		}
		vend := skipValue(obj, i)
		if err := fn(key, obj[i:vend]); err != nil {
			return err
		}
		i = skipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	if i >= len(obj) {
		return errMalformed
	}
	return nil
}

// EachElement calls fn for each element of the JSON array arr, in order,
// with the element's bytes (aliasing arr); the same terms as EachMember.
func EachElement(arr []byte, fn func(value []byte) error) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return errMalformed
	}
	i = skipSpace(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		end := skipValue(arr, i)
		if end == i {
			return errMalformed
		}
		if err := fn(arr[i:end]); err != nil {
			return err
		}
		i = skipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
		}
	}
	if i >= len(arr) {
		return errMalformed
	}
	return nil
}

// Unquote decodes a JSON string token (with its quotes) as encoding/json
// does, invalid UTF-8 and lone surrogates becoming U+FFFD, at memory speed
// for the runs between escapes.
func Unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", errMalformed
	}
	body := tok[1 : len(tok)-1]
	i := plainRun(body, 0)
	if i == len(body) && utf8.Valid(body) {
		return string(body), nil
	}
	out := make([]byte, 0, len(body))
	start := 0
	for {
		out = appendValidUTF8(out, body[start:i])
		if i == len(body) {
			return string(out), nil
		}
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			return "", errMalformed // a raw quote or control character
		}
		switch e := body[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
			i += 2
		case 'b':
			out, i = append(out, '\b'), i+2
		case 'f':
			out, i = append(out, '\f'), i+2
		case 'n':
			out, i = append(out, '\n'), i+2
		case 'r':
			out, i = append(out, '\r'), i+2
		case 't':
			out, i = append(out, '\t'), i+2
		case 'u':
			r, ok := hex4(body, i+2)
			if !ok {
				return "", errMalformed
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2, ok2 = hex4(body, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", errMalformed
		}
		start = i
		i = plainRun(body, i)
	}
}

// hex4 reads four hex digits at s[i:].
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendValidUTF8 appends s with each invalid byte as U+FFFD, as
// encoding/json decodes strings.
func appendValidUTF8(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// Word-at-a-time helpers: a byte of x is below n, or equal to n.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// quoteRun returns the index of the first quote or backslash at or after
// i in s (len(s) if none). Both searches run at memory speed (the
// runtime's vectorized IndexByte).
func quoteRun(s []byte, i int) int {
	// Most strings (member names, short values) end within a few bytes:
	// look at those one by one before calling out.
	for end := min(i+16, len(s)); i < end; i++ {
		if c := s[i]; c == '"' || c == '\\' {
			return i
		}
	}
	if i >= len(s) {
		return len(s)
	}
	q := bytes.IndexByte(s[i:], '"')
	if q < 0 {
		q = len(s) - i
	}
	if b := bytes.IndexByte(s[i:i+q], '\\'); b >= 0 {
		return i + b
	}
	return i + q
}

// plainRun returns the index of the first byte at or after i in s that is
// a quote, a backslash or a control character (len(s) if none), 32 bytes
// at a time.
func plainRun(s []byte, i int) int {
	for i+32 <= len(s) {
		a := binary.LittleEndian.Uint64(s[i:])
		b := binary.LittleEndian.Uint64(s[i+8:])
		c := binary.LittleEndian.Uint64(s[i+16:])
		d := binary.LittleEndian.Uint64(s[i+24:])
		if special(a)|special(b)|special(c)|special(d) != 0 {
			break
		}
		i += 32
	}
	for i+8 <= len(s) {
		if special(binary.LittleEndian.Uint64(s[i:])) != 0 {
			break
		}
		i += 8
	}
	for i < len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
		i++
	}
	return i
}

// special has a high bit set in each byte of x that is below 0x20, a
// quote or a backslash (and maybe in the bytes after such a one).
func special(x uint64) uint64 {
	q := x ^ (lo8 * '"')
	bs := x ^ (lo8 * '\\')
	return ((x - lo8*0x20) | (q - lo8) | (bs - lo8)) &^ x & hi8
}
