package safe

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf8"
)

// Mask replaces a secret in output.
const Mask = "***"

// MinSecretLen is the shortest secret, in characters, that a [Redactor]
// masks. A shorter value cannot be masked without hiding ordinary text
// ("1", "dev", "yes"); [TooShort] tells callers to warn about it instead.
const MinSecretLen = 4

// maxBackslashes bounds the run of backslashes read as one JSON escape
// (an escape escaped again, inside a JSON string inside a JSON string):
// \u0026, \\u0026, \\\\u0026, …
const maxBackslashes = 8

// maxBasic bounds the base64 credentials after "Basic " that are decoded.
const maxBasic = 8 << 10

// TooShort reports whether secret is not empty but shorter than
// [MinSecretLen] characters, so that a [Redactor] cannot mask it.
func TooShort(secret string) bool {
	n := utf8.RuneCountInString(secret)
	return n > 0 && n < MinSecretLen
}

// A Redactor masks secrets in text, as "***", in every form a secret takes
// in output:
//
//   - as it is;
//   - JSON-escaped, in any mix of escapes: \u0026, \u003c, \u00e9, \/,
//     \", \n, …, also escaped again (\\u0026) inside a JSON string that is
//     itself inside a JSON string;
//   - URL-escaped: %XX (either case) for any byte, + for a space;
//   - inside base64 credentials after "Basic " (an Authorization header):
//     the whole credential is masked when its decoded text holds a secret.
//
// Secrets shorter than [MinSecretLen] characters are not masked. The zero
// value and nil mask nothing. A Redactor is immutable and safe for
// concurrent use.
type Redactor struct {
	secrets []string
	first   [256]bool // bytes a match can start with
	basic   bool      // look for Basic credentials
}

// NewRedactor returns a Redactor for secrets. Empty and short values are
// left out; duplicates count once.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if utf8.RuneCountInString(s) >= MinSecretLen {
			r.secrets = append(r.secrets, s)
			if !utf8.ValidString(s) {
				// Output cannot carry invalid UTF-8 as it is: encoders
				// (encoding/json among them) put U+FFFD for each such
				// byte, and Sanitize shows it as \xHH. Those forms
				// are the secret too.
				r.secrets = append(r.secrets, invalidBytesAs(s, false), invalidBytesAs(s, true))
			}
		}
	}
	slices.Sort(r.secrets)
	r.secrets = slices.Compact(r.secrets)
	for _, s := range r.secrets {
		r.first[s[0]] = true
		if s[0] == ' ' {
			r.first['+'] = true
		}
	}
	if len(r.secrets) > 0 {
		r.first['%'] = true
		r.first['\\'] = true
		r.first['b'] = true
		r.first['B'] = true
		r.basic = true
	}
	return r
}

// invalidBytesAs returns s with each byte that is not part of valid UTF-8
// written as U+FFFD, or as \xHH when hex is set (as Sanitize shows it).
func invalidBytesAs(s string, hex bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r != utf8.RuneError || n > 1:
			b.WriteString(s[i : i+n])
		case hex:
			writeHexByte(&b, s[i])
		default:
			b.WriteRune(utf8.RuneError)
		}
		i += n
	}
	return b.String()
}

// With returns a Redactor for r's secrets and more.
func (r *Redactor) With(more ...string) *Redactor {
	if r == nil {
		return NewRedactor(more...)
	}
	return NewRedactor(append(slices.Clone(r.secrets), more...)...)
}

// Empty reports whether r masks nothing.
func (r *Redactor) Empty() bool { return r == nil || len(r.secrets) == 0 }

// Redact returns s with every secret, in every form, replaced by "***".
func (r *Redactor) Redact(s string) string {
	if r.Empty() {
		return s
	}
	out, _ := r.scan(s, nil, true)
	return out
}

// scan masks the secrets of t. When final is false it stops at the first
// place where a secret may begin but t ends before it can be told, and
// returns how much of t it consumed; a stream keeps the rest for the next
// write. boundary, when non-nil, says where a match may begin and end
// (inside a JSON string: not inside an escape).
func (r *Redactor) scan(t string, boundary []bool, final bool) (string, int) {
	var b strings.Builder
	last := 0
	for i := 0; i < len(t); i++ {
		if !r.first[t[i]] || boundary != nil && !boundary[i] {
			continue
		}
		from, end, partial := r.matchAt(t, i, boundary)
		if partial && !final {
			b.WriteString(t[last:i])
			return b.String(), i
		}
		if end > i {
			b.WriteString(t[last:from])
			b.WriteString(Mask)
			last = end
			i = end - 1
		}
	}
	if last == 0 {
		return t, len(t)
	}
	b.WriteString(t[last:])
	return b.String(), len(t)
}

// matchAt returns t[from:end], what to mask of the longest secret (or
// Basic credentials holding one) that starts at t[i:], with end == i when
// there is none; and whether t ends before a longer one can be ruled out.
func (r *Redactor) matchAt(t string, i int, boundary []bool) (from, end int, partial bool) {
	from, end = i, i
	for _, s := range r.secrets {
		e, p := matchSecret(t, i, s, boundary)
		end = max(end, e)
		partial = partial || p
	}
	if r.basic && end == i && (t[i] == 'b' || t[i] == 'B') {
		f, e, p := r.matchBasic(t, i)
		if e > i {
			from, end = f, e
		}
		partial = partial || p
	}
	return from, end, partial
}

// matchBasic matches "Basic <base64>" at t[i:] whose decoded credentials
// hold a secret; it returns where the base64 starts and ends (the word
// "Basic" stays).
func (r *Redactor) matchBasic(t string, i int) (from, end int, partial bool) {
	const word = "basic"
	rest := t[i:]
	if len(rest) < len(word) {
		return i, i, strings.EqualFold(rest, word[:len(rest)])
	}
	if !strings.EqualFold(rest[:len(word)], word) {
		return i, i, false
	}
	j := i + len(word)
	k := j
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k == len(t) {
		return i, i, true
	}
	if k == j {
		return i, i, false
	}
	start := k
	var enc []byte
	for k < len(t) && k-start < maxBasic {
		c := t[k]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			enc = append(enc, c)
		case c == '-': // base64url
			enc = append(enc, '+')
		case c == '_':
			enc = append(enc, '/')
		case c == '=':
		case c == '\\' && k+1 < len(t) && t[k+1] == '/': // JSON's \/
			enc = append(enc, '/')
			k++
		case c == '\\' && k+1 == len(t):
			return i, i, true
		default:
			goto done
		}
		k++
	}
done:
	if k == len(t) && k-start < maxBasic {
		partial = true
	}
	if len(enc) < 6 { // less than MinSecretLen bytes
		return i, i, partial
	}
	dec := make([]byte, base64.RawStdEncoding.DecodedLen(len(enc)))
	n, err := base64.RawStdEncoding.Decode(dec, enc)
	if err != nil {
		// A cut credential: decode what is whole.
		n, _ = base64.RawStdEncoding.Decode(dec, enc[:len(enc)/4*4])
	}
	dec = dec[:n]
	if len(dec) > 0 && r.redactDecoded(string(dec)) {
		return start, k, partial
	}
	return i, i, partial
}

// redactDecoded reports whether decoded Basic credentials hold a secret in
// an escaped form (client_secret_basic URL-encodes the secret first).
func (r *Redactor) redactDecoded(s string) bool {
	for i := 0; i < len(s); i++ {
		for _, sec := range r.secrets {
			if e, _ := matchSecret(s, i, sec, nil); e > i {
				return true
			}
		}
	}
	return false
}

// matchSecret returns the end of the longest encoding of secret at t[i:]
// (i when none), and whether t ends before every encoding can be ruled
// out. It follows all encodings at once: ends is the set of places one
// rune further.
func matchSecret(t string, i int, secret string, boundary []bool) (end int, partial bool) {
	first, _ := utf8.DecodeRuneInString(secret)
	if c := t[i]; c != '\\' && c != '%' && c != '+' && rune(c) != first && !(first >= utf8.RuneSelf && c >= utf8.RuneSelf) {
		return i, false
	}
	var bufA, bufB [8]int
	ends := append(bufA[:0], i)
	next := bufB[:0]
	for k := 0; k < len(secret); {
		r, n := utf8.DecodeRuneInString(secret[k:])
		raw := secret[k : k+n]
		k += n
		next = next[:0]
		for _, p := range ends {
			var cut bool
			if r == utf8.RuneError && n == 1 {
				next, cut = stepBytes(t, p, []byte(raw), next) // a byte of invalid UTF-8
			} else {
				next, cut = stepRune(t, p, r, next)
			}
			partial = partial || cut
		}
		if len(next) == 0 {
			return i, partial
		}
		slices.Sort(next)
		next = slices.Compact(next)
		ends, next = next, ends
	}
	end = i
	for _, e := range ends {
		if e > end && (boundary == nil || boundary[e]) {
			end = e
		}
	}
	return end, partial
}

// stepRune appends to ends the places after each encoding of r at t[p:]:
// its UTF-8 bytes each as they are or as %XX (+ for a space), or a JSON
// escape (\uXXXX, a surrogate pair, or a short escape) after a run of
// backslashes. cut says t ended inside an encoding that fit so far.
func stepRune(t string, p int, r rune, ends []int) (_ []int, cut bool) {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	ends, cut = stepBytes(t, p, buf[:n], ends)
	if p >= len(t) {
		return ends, true
	}
	if t[p] != '\\' {
		return ends, cut
	}
	q := p
	for q < len(t) && t[q] == '\\' && q-p < maxBackslashes {
		q++
		if q == len(t) {
			return ends, true
		}
		if e, c, ok := jsonEscape(t, q, r); ok {
			ends = append(ends, e)
		} else if c {
			cut = true
		}
	}
	return ends, cut
}

// stepBytes matches the bytes b at t[p:], each as it is or %XX.
func stepBytes(t string, p int, b []byte, ends []int) ([]int, bool) {
	if len(b) == 0 {
		return append(ends, p), false
	}
	if p >= len(t) {
		return ends, true
	}
	cut := false
	c := b[0]
	if t[p] == c || c == ' ' && t[p] == '+' {
		var x bool
		ends, x = stepBytes(t, p+1, b[1:], ends)
		cut = cut || x
	}
	if t[p] == '%' {
		switch {
		case p+3 <= len(t):
			if hexByte(t[p+1], t[p+2]) == int(c) {
				var x bool
				ends, x = stepBytes(t, p+3, b[1:], ends)
				cut = cut || x
			}
		case p+2 == len(t):
			cut = cut || hexPrefix(t[p+1], c>>4)
		default:
			cut = true
		}
	}
	return ends, cut
}

// jsonEscape matches the escape letter and what follows it at t[q:] (the
// backslashes are behind q) as r.
func jsonEscape(t string, q int, r rune) (end int, cut, ok bool) {
	switch c := t[q]; c {
	case 'u':
		if r > 0xffff {
			hi, lo := utf16Pair(r)
			e, cut, ok := hex4(t, q+1, hi)
			if !ok {
				return 0, cut, false
			}
			// the low half after its own run of backslashes
			p := e
			for p < len(t) && t[p] == '\\' && p-e < maxBackslashes {
				p++
			}
			if p == len(t) {
				return 0, true, false
			}
			if p == e || t[p] != 'u' {
				return 0, false, false
			}
			return hex4(t, p+1, lo)
		}
		return hex4(t, q+1, r)
	case '"', '\\', '/', '\'':
		if rune(c) == r {
			return q + 1, false, true
		}
	case 'b', 'f', 'n', 'r', 't':
		if short := "\b\f\n\r\t"[strings.IndexByte("bfnrt", c)]; rune(short) == r {
			return q + 1, false, true
		}
	}
	return 0, false, false
}

// hex4 matches four hex digits of v at t[p:].
func hex4(t string, p int, v rune) (end int, cut, ok bool) {
	const digits = "0123456789abcdef"
	for k := 0; k < 4; k++ {
		if p+k >= len(t) {
			return 0, true, false
		}
		want := digits[(v>>(4*(3-k)))&0xf]
		c := t[p+k]
		if c >= 'A' && c <= 'F' {
			c += 'a' - 'A'
		}
		if c != want {
			return 0, false, false
		}
	}
	return p + 4, false, true
}

func utf16Pair(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func hexByte(a, b byte) int {
	x, y := hexVal(a), hexVal(b)
	if x < 0 || y < 0 {
		return -1
	}
	return x<<4 | y
}

func hexPrefix(a byte, hi byte) bool { return hexVal(a) == int(hi) }
