package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Valid reports whether data is one valid JSON value, exactly as
// json.Valid does, at memory speed on long strings.
func Valid(data []byte) bool { return validJSON(data) }

// errMalformed is returned by the scanners for input that is not JSON.
var errMalformed = errors.New("jsonscan: malformed JSON")

// Unquote decodes a JSON string token (with its quotes) as encoding/json
// does, invalid UTF-8 and lone surrogates becoming U+FFFD, at memory speed
// for the runs between escapes.
func Unquote(tok []byte) (string, error) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return "", errMalformed
	}
	body := tok[1 : len(tok)-1]
	if i := plainRun(body, 0); i == len(body) && utf8.Valid(body) {
		return string(body), nil
	}
	out, err := appendUnquoted(make([]byte, 0, len(body)), tok)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// appendUnquoted appends what the JSON string token tok decodes to (as
// Unquote decodes it) to out.
func appendUnquoted(out, tok []byte) ([]byte, error) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return out, errMalformed
	}
	body := tok[1 : len(tok)-1]
	i := plainRun(body, 0)
	start := 0
	for {
		out = appendValidUTF8(out, body[start:i])
		if i == len(body) {
			return out, nil
		}
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			return out, errMalformed // a raw quote or control character
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
				return out, errMalformed
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
			return out, errMalformed
		}
		start = i
		i = plainRun(body, i)
	}
}

// UnquoteValid is Unquote for a token of valid JSON, which holds no raw
// control character: one without escapes is only checked for UTF-8 (both
// searches at memory speed) and copied.
func UnquoteValid(tok []byte) (string, error) {
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), nil
	}
	return Unquote(tok)
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
// i in s (len(s) if none). Short runs (member names, small values) are
// found a word at a time; long ones at memory speed by the runtime's
// vectorized IndexByte.
func quoteRun(s []byte, i int) int {
	for end := i + 16; i+8 <= len(s) && i < end; i += 8 {
		if m := quoteOrBackslash(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i+8 > len(s) {
		for ; i < len(s); i++ {
			if c := s[i]; c == '"' || c == '\\' {
				return i
			}
		}
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
// a quote, a backslash or a control character (len(s) if none), a word at
// a time, and 32 bytes at a time past the first word.
func plainRun(s []byte, i int) int {
	if i+8 <= len(s) {
		if m := special(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
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
		if m := special(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
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

// Word-at-a-time tests (the bytes are little-endian, so the lowest set
// bit marks the first byte found; bits above it may be false alarms).

// special has a high bit set in each byte of x that is below 0x20, a
// quote or a backslash (and maybe in the bytes after such a one).
func special(x uint64) uint64 {
	q := x ^ (lo8 * '"')
	bs := x ^ (lo8 * '\\')
	return ((x - lo8*0x20) | (q - lo8) | (bs - lo8)) &^ x & hi8
}

// quoteOrBackslash has a high bit set in each byte of x that is a quote
// or a backslash (and maybe in the bytes after such a one).
func quoteOrBackslash(x uint64) uint64 {
	q := x ^ (lo8 * '"')
	bs := x ^ (lo8 * '\\')
	return ((q - lo8) | (bs - lo8)) &^ x & hi8
}
