package manager

import (
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/transport"
)

// varWords returns the words of text that look like environment
// variable names: an upper-case letter, then two or more of A-Z 0-9 _.
func varWords(text string) []string {
	word := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 'a' && c <= 'z'
	}
	var out []string
	for i := 0; i < len(text); {
		if !word(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && word(text[j]) {
			j++
		}
		w := text[i:j]
		if len(w) >= 3 && w[0] >= 'A' && w[0] <= 'Z' && strings.ToUpper(w) == w {
			out = append(out, w)
		}
		i = j
	}
	return out
}

// UnpassedVars returns the variables of environ (the caller's
// environment, as os.Environ gives it) that a stdio server of spec does
// not get (the policy of transport.ChildEnv, then spec.Env) and that
// text (its stderr, its error) names: what a server that failed for want
// of GITHUB_TOKEN was missing. Sorted; none for another transport.
func UnpassedVars(environ []string, spec *Spec, text string) []string {
	if spec == nil || spec.Transport != "stdio" || text == "" {
		return nil
	}
	passed := map[string]bool{}
	for _, kv := range transport.ChildEnv(environ, spec.Env) {
		name, _, _ := strings.Cut(kv, "=")
		passed[strings.ToUpper(name)] = true
	}
	set := map[string]bool{}
	for _, kv := range environ {
		if name, v, ok := strings.Cut(kv, "="); ok && v != "" {
			set[name] = true
		}
	}
	var out []string
	for _, w := range varWords(text) {
		if set[w] && !passed[strings.ToUpper(w)] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// unpassedHint says, for a person, which variables a stdio server did
// not get and how to pass them.
func unpassedHint(vars []string) string {
	return "the server mentions " + strings.Join(vars, ", ") + ", set in your environment but not passed to stdio servers: " +
		"add them to the definition's envVars (or env: {\"" + vars[0] + "\": \"${" + vars[0] + "}\"}), or give --env " + vars[0] + "=… to an ad-hoc target"
}

// UnpassedHint is [UnpassedVars] as a hint for a person; "" when there
// are none.
func UnpassedHint(environ []string, spec *Spec, text string) string {
	if vars := UnpassedVars(environ, spec, text); len(vars) > 0 {
		return unpassedHint(vars)
	}
	return ""
}
