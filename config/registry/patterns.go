package registry

import "strings"

// The registry's few text patterns, matched by hand. They were regular
// expressions; the regexp package and its tables were the only reason the
// binary linked them (FuzzPatterns holds these to the expressions they
// replace).

// nameByte reports whether c is a letter, a digit or one of extra.
func nameByte(c byte, extra string) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0
}

// allBytes reports whether s is not empty and each byte is a nameByte.
func allBytes(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i], extra) {
			return false
		}
	}
	return s != ""
}

// validRegistryName is `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`: a namespace,
// a slash and a name.
func validRegistryName(s string) bool {
	ns, name, ok := strings.Cut(s, "/")
	return ok && allBytes(ns, ".-") && allBytes(name, "._-")
}

// validSHA256 is `^[a-f0-9]{64}$`: a SHA-256 in lower-case hex.
func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// replaceRefs replaces each reference open+NAME+"}" of s whose NAME (a
// run of letters, digits and _ . -) accept takes by f(the reference), as
// regexp's ReplaceAllStringFunc would: left to right, none overlapping.
func replaceRefs(s, open string, accept func(name string) bool, f func(ref string) string) string {
	var b strings.Builder
	at := 0 // s[:at] is written
	for from := 0; ; {
		i := strings.Index(s[from:], open)
		if i < 0 {
			break
		}
		i += from
		j := i + len(open)
		for j < len(s) && nameByte(s[j], "_.-") {
			j++
		}
		if j < len(s) && s[j] == '}' && accept(s[i+len(open):j]) {
			b.WriteString(s[at:i])
			b.WriteString(f(s[i : j+1]))
			at, from = j+1, j+1
			continue
		}
		from = i + 1
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}

// anyName accepts every NAME of a `{NAME}` reference.
func anyName(name string) bool { return name != "" }

// manifestName accepts an MCPB manifest's `${__dirname}` and
// `${user_config.KEY}`.
func manifestName(name string) bool {
	key, ok := strings.CutPrefix(name, "user_config.")
	return name == "__dirname" || ok && key != ""
}
