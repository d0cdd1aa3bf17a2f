package registry

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Values are what the user gave for a server's inputs: environment
// variables (--env) and headers (--header) by name, and Vars (--var) for
// URL variables, arguments (by valueHint, or name without its dashes)
// and the {variables} of a value. A name given several times is a
// repeated value.
type Values struct {
	Env, Headers, Vars map[string][]string
}

// A Missing is an input that is required and has no value.
type Missing struct {
	Kind        string   `json:"kind"` // "env", "header", "var"
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Secret      bool     `json:"secret,omitempty"`
	Choices     []string `json:"choices,omitempty"`
}

// Flag returns how the user gives m on the command line.
func (m Missing) Flag() string {
	switch m.Kind {
	case "env":
		return "--env " + m.Name + "=…"
	case "header":
		return "--header '" + m.Name + ": …'"
	}
	return "--var " + m.Name + "=…"
}

// A binder binds the inputs of one package or remote.
type binder struct {
	vals     Values
	missing  []Missing
	secrets  []string // variables the definition reads from the environment
	warnings []string
	problems []string
	bound    url.Values // the --var values bound, secrets' left out
}

// given returns the user's values of an input.
func (b *binder) given(kind, name string) []string {
	var m map[string][]string
	switch kind {
	case "env":
		m = b.vals.Env
	case "header":
		m = b.vals.Headers
	default:
		m = b.vals.Vars
	}
	return m[name]
}

// bind returns the values of one input (several when repeated), or nil
// when it has none and needs none. varName is the environment variable a
// secret is read from.
func (b *binder) bind(kind, name, varName string, in Input, repeated bool) []string {
	vals := b.given(kind, name)
	if !repeated && len(vals) > 1 {
		b.problems = append(b.problems, fmt.Sprintf("%s %s is given %d times; it takes one value", kind, name, len(vals)))
		vals = vals[:1]
	}
	if in.IsSecret {
		if len(vals) > 0 {
			b.warnings = append(b.warnings, fmt.Sprintf("%s %s is a secret: it is written as ${%s}, not as the value given; set %s in the environment", kind, name, varName, varName))
		}
		if !slices.Contains(b.secrets, varName) {
			b.secrets = append(b.secrets, varName)
		}
		if in.Value != "" {
			return []string{b.expand(in)}
		}
		return []string{"${" + varName + "}"}
	}
	if kind == "var" && len(vals) > 0 {
		if b.bound == nil {
			b.bound = url.Values{}
		}
		b.bound[name] = vals
	}
	if len(vals) == 0 && in.Value != "" {
		return []string{b.expand(in)}
	}
	if len(vals) == 0 && in.Default != "" {
		vals = []string{in.Default}
	}
	if len(vals) == 0 {
		if in.IsRequired {
			b.missing = append(b.missing, Missing{Kind: kind, Name: name, Description: in.Description, Choices: in.Choices})
		}
		return nil
	}
	for _, v := range vals {
		if len(in.Choices) > 0 && !slices.Contains(in.Choices, v) {
			b.problems = append(b.problems, fmt.Sprintf("%s %s: %q is not one of %s", kind, name, v, strings.Join(in.Choices, ", ")))
		}
	}
	return vals
}

// expand fills the {variables} of an input's fixed value; a brace that
// names no variable stays as written (the schema's rule).
func (b *binder) expand(in Input) string {
	return replaceRefs(in.Value, "{", anyName, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := in.Variables[name]
		if !ok {
			return m
		}
		got := b.bind("var", name, envName(name), v, false)
		if len(got) == 0 {
			return ""
		}
		return got[0]
	})
}

// envName turns an input's name into an environment variable's: upper
// case, and anything but letters, digits and _ as _.
func envName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}

// args binds a list of arguments into command-line words.
func (b *binder) args(list []Argument) []string {
	var out []string
	for _, a := range list {
		switch a.Type {
		case "positional":
			key := a.ValueHint
			if key == "" {
				key = a.Name
			}
			out = append(out, b.bind("var", key, envName(key), a.Input, a.IsRepeated)...)
		case "named":
			if a.Name == "" {
				b.problems = append(b.problems, "a named argument has no name")
				continue
			}
			key := strings.TrimLeft(a.Name, "-")
			vals := b.bind("var", key, envName(key), a.Input, a.IsRepeated)
			for _, v := range vals {
				out = append(out, a.Name, v)
			}
		default:
			b.problems = append(b.problems, fmt.Sprintf("argument %q: unknown type %q", a.Name, a.Type))
		}
	}
	return out
}

// keyValues binds headers or environment variables.
func (b *binder) keyValues(kind string, list []KeyValueInput) map[string]string {
	out := map[string]string{}
	for _, kv := range list {
		if kv.Name == "" {
			b.problems = append(b.problems, kind+" with no name")
			continue
		}
		varName := kv.Name
		if kind == "header" {
			varName = envName(kv.Name)
		}
		if v := b.bind(kind, kv.Name, varName, kv.Input, false); len(v) > 0 {
			out[kv.Name] = v[0]
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
