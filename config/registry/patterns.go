package registry

import (
	"strings"
)

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

// URLVars recovers the {variables} of a remote's URL template from a URL
// made of it (what install wrote), so that an upgrade binds them again:
// each variable's value by name, each the shortest that fits from the
// left (as a regular expression's (.*?) would); nil when the URL is not
// made of the template, when the template has no variable, or when it
// is too ambiguous to match within a bound (repeated names next to each
// other over a long URL). A variable named twice must have one value.
func URLVars(template, url string) map[string]string {
	vars, _ := matchURLVars(template, url)
	return vars
}

// matchURLVars is URLVars, and says whether the match gave up at its
// bound of steps.
func matchURLVars(template, url string) (vars map[string]string, gaveUp bool) {
	const mark = "\x00"
	if strings.Contains(template, mark) {
		return nil, false
	}
	var names []string
	holes := replaceRefs(template, "{", anyName, func(ref string) string {
		names = append(names, ref[1:len(ref)-1])
		return mark
	})
	if len(names) == 0 {
		return nil, false
	}
	lits := strings.Split(holes, mark) // len(names)+1 literals around the holes
	rest, ok := strings.CutPrefix(url, lits[0])
	if !ok {
		return nil, false
	}
	m := &urlMatch{url: rest, lits: lits[1:], first: make([]int, len(names)), vals: make([]string, len(names)), dead: map[[2]int]bool{}, steps: 1 << 18}
	seen := make(map[string]int, len(names))
	for i, n := range names {
		j, ok := seen[n]
		if !ok {
			j, seen[n] = i, i
		}
		m.first[i] = j
		m.repeats = m.repeats || ok
	}
	if !m.from(0, 0) {
		return nil, m.steps <= 0
	}
	vars = map[string]string{}
	for i, name := range names {
		vars[name] = m.vals[i]
	}
	return vars, false
}

// urlMatch matches holes, each followed by its literal, against url.
type urlMatch struct {
	url     string
	lits    []string // lits[k] follows hole k; the last ends the URL
	first   []int    // of each hole, the first hole of its name
	vals    []string
	repeats bool            // a name is of several holes: they must agree
	dead    map[[2]int]bool // (position, hole) known not to match, when no name repeats
	steps   int             // ends left to try (each call and each end is one): a pathological template gives up
}

// from matches hole k and what follows it from url[at:].
func (m *urlMatch) from(at, k int) bool {
	if m.dead[[2]int{at, k}] || m.steps <= 0 {
		return false
	}
	m.steps--
	lit := m.lits[k]
	if k == len(m.lits)-1 {
		if end := len(m.url) - len(lit); end >= at && strings.HasSuffix(m.url, lit) && m.agrees(k, m.url[at:end]) {
			m.vals[k] = m.url[at:end]
			return true
		}
	} else {
		for end := at; end+len(lit) <= len(m.url); end++ {
			if m.steps--; m.steps <= 0 {
				return false // gave up: not marked dead, since not tried
			}
			if !strings.HasPrefix(m.url[end:], lit) || !m.agrees(k, m.url[at:end]) {
				continue
			}
			m.vals[k] = m.url[at:end]
			if m.from(end+len(lit), k+1) {
				return true
			}
		}
	}
	if !m.repeats {
		m.dead[[2]int{at, k}] = true
	}
	return false
}

// agrees says whether v may be hole k's value: the same as that of the
// first hole of its name, if that is an earlier one. It takes constant
// time, so that a template of many holes costs no more per step.
func (m *urlMatch) agrees(k int, v string) bool {
	i := m.first[k]
	return i == k || m.vals[i] == v
}
