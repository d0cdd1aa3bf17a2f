package safe

import "strings"

// RedactJSON masks secrets in the string values of a JSON text, never in
// its structure: object keys, numbers, true, false and null stay as they
// are, and a match never begins or ends inside an escape, so valid JSON
// stays valid. Whatever is not JSON (text outside strings that is not
// structure, an unterminated string) is masked as plain text.
func (r *Redactor) RedactJSON(doc []byte) []byte {
	if r.Empty() {
		return doc
	}
	var out []byte
	last := 0 // doc[:last] is in out
	changed := false
	flush := func(from, to int, masked string) {
		out = append(out, doc[last:from]...)
		out = append(out, masked...)
		last = to
		changed = true
	}
	gap := 0 // start of the text since the last string
	for i := 0; i <= len(doc); i++ {
		if i < len(doc) && doc[i] != '"' {
			continue
		}
		if !structureOnly(doc[gap:i]) {
			if m := r.Redact(string(doc[gap:i])); m != string(doc[gap:i]) {
				flush(gap, i, m)
			}
		}
		if i == len(doc) {
			break
		}
		j, ok := stringEnd(doc, i)
		if !ok {
			if m := r.Redact(string(doc[i:])); m != string(doc[i:]) {
				flush(i, len(doc), m)
			}
			break
		}
		k := j
		for k < len(doc) && isSpace(doc[k]) {
			k++
		}
		if k >= len(doc) || doc[k] != ':' {
			content := string(doc[i+1 : j-1])
			if masked, _ := r.scan(content, escapeBoundaries(content), true); masked != content {
				flush(i+1, j-1, masked)
			}
		}
		gap = j
		i = j - 1
	}
	if !changed {
		return doc
	}
	return append(out, doc[last:]...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// structureOnly reports whether b holds nothing but JSON structure:
// punctuation, white space, numbers, true, false and null.
func structureOnly(b []byte) bool {
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case isSpace(c), strings.IndexByte("{}[],:0123456789.eE+-", c) >= 0:
		default:
			rest := string(b[i:])
			for _, w := range []string{"true", "false", "null"} {
				if strings.HasPrefix(rest, w) {
					i += len(w) - 1
					goto next
				}
			}
			return false
		}
	next:
	}
	return true
}

// stringEnd returns the index after the closing quote of the JSON string
// that starts at doc[i]; false when it does not end on its line.
func stringEnd(doc []byte, i int) (int, bool) {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// escapeBoundaries says, for each byte offset of a JSON string's content
// (and its end), whether no escape covers it.
func escapeBoundaries(s string) []bool {
	b := make([]bool, len(s)+1)
	for i := 0; i < len(s); {
		b[i] = true
		if s[i] != '\\' {
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == 'u' {
			i += 6
		} else {
			i += 2
		}
	}
	b[len(s)] = true
	return b
}
