package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolNameLen is the longest qualified tool name, in bytes.
const MaxToolNameLen = 64

// qualify returns mcp__<server>__<tool>: components of [A-Za-z0-9_-]
// without "__" inside, the server part not ending in "_", at most 64 bytes.
// A name that had to change gets a stable 8-character hash suffix of the
// original names.
func qualify(server, tool string) string {
	s, sOK := sanitize(server)
	s = strings.TrimRight(s, "_")
	if s == "" {
		s, sOK = "server", false
	}
	t, tOK := sanitize(tool)
	if t == "" {
		t, tOK = "tool", false
	}
	name := "mcp__" + s + "__" + t
	if sOK && tOK && s == server && len(name) <= MaxToolNameLen {
		return name
	}
	return withHash(s, t, hashOf(server, tool))
}

// withHash builds mcp__<s>__<t>_<hash>, cutting s and t to fit 64 bytes.
func withHash(s, t, hash string) string {
	const fixed = len("mcp__") + len("__") + 1 + 8
	room := MaxToolNameLen - fixed
	if len(s)+len(t) > room {
		// Keep the tool's name longer: it is what a model reads.
		sMax := min(len(s), max(room/3, room-len(t)))
		s = strings.TrimRight(s[:sMax], "_")
		if s == "" {
			s = "s"
		}
		t = t[:min(len(t), room-len(s))]
	}
	t = strings.TrimRight(t, "_")
	if t == "" {
		t = "t"
	}
	return "mcp__" + s + "__" + t + "_" + hash
}

// qualifyPrefixed returns <prefix>__<tool> for a definition's "prefix"
// (config checks it: [A-Za-z0-9_-], no "__", at most 32 bytes), by the
// rules of qualify: a tool name that had to change gets a stable hash
// suffix of the original names.
func qualifyPrefixed(prefix, server, tool string) string {
	if prefix == "" {
		return qualify(server, tool)
	}
	t, tOK := sanitize(tool)
	if t == "" {
		t, tOK = "tool", false
	}
	name := prefix + "__" + t
	if tOK && len(name) <= MaxToolNameLen {
		return name
	}
	return withPrefixHash(prefix, t, hashOf(prefix, server, tool))
}

// withPrefixHash builds <prefix>__<t>_<hash>, cutting t to fit 64 bytes.
func withPrefixHash(prefix, t, hash string) string {
	room := max(MaxToolNameLen-len(prefix)-len("__")-1-8, 1)
	t = strings.TrimRight(t[:min(len(t), room)], "_")
	if t == "" {
		t = "t"
	}
	return prefix + "__" + t + "_" + hash
}

// hashOf is a stable 8-hex-digit hash of the original names (and any
// extra parts, used to break collisions).
func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// sanitize maps s to [A-Za-z0-9_-], with runs of "_" longer than one
// folded (so "__" never appears inside); ok says s was already so.
func sanitize(s string) (string, bool) {
	var b strings.Builder
	ok := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			b.WriteByte(c)
		case c == '_':
			if strings.HasSuffix(b.String(), "_") {
				ok = false
				continue
			}
			b.WriteByte(c)
		default:
			ok = false
			if !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	return b.String(), ok
}

// qualifyAll names every (server, tool) pair, breaking collisions with
// hash suffixes. pairs must be in a stable order; the result is the same
// for the same input.
func qualifyAll(pairs [][2]string) []string { return qualifyFrom(pairs, nil, nil) }

// qualifyFrom is qualifyAll with each pair's name qualified alone given in
// bases (nil: computed here), and the prefix of each pair's definition
// in prefixes (nil: none).
func qualifyFrom(pairs [][2]string, bases, prefixes []string) []string {
	out := make([]string, len(pairs))
	seen := make(map[string]int, len(pairs))
	for i, p := range pairs {
		var n string
		if bases != nil {
			n = bases[i]
		} else {
			n = qualifyPrefixed(prefixOf(prefixes, i), p[0], p[1])
		}
		if _, dup := seen[n]; dup {
			prefix := prefixOf(prefixes, i)
			s, _ := sanitize(p[0])
			t, _ := sanitize(p[1])
			s = strings.TrimRight(s, "_")
			for k := 1; ; k++ {
				h := hashOf(p[0], p[1], strings.Repeat("#", k))
				if prefix != "" {
					n = withPrefixHash(prefix, t, h)
				} else {
					n = withHash(s, t, h)
				}
				if _, dup := seen[n]; !dup {
					break
				}
			}
		}
		seen[n] = i
		out[i] = n
	}
	return out
}

// prefixOf is prefixes[i], "" without prefixes.
func prefixOf(prefixes []string, i int) string {
	if prefixes == nil {
		return ""
	}
	return prefixes[i]
}

// QualifiedName is the name the Manager would offer an item called name
// (a tool, or a prompt for a program that serves them, as mcpwire serve
// does) of the server named server: mcp__<server>__<name>, or
// <prefix>__<name> for a definition's prefix, by the rules of tool names
// (64 bytes, a stable hash suffix when the name had to change).
func QualifiedName(server, prefix, name string) string {
	return qualifyPrefixed(prefix, server, name)
}
