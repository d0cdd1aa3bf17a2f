package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Expand returns the definition with ${VAR} and ${VAR:-default} expanded in
// command, each arg, cwd, env values, url and header values; getenv looks
// variables up (nil means none is set).
//
// Expansion happens once: a value that contains ${X}, whether it came from
// the environment or from a default, is kept literally. A variable that is
// unset or empty takes its default; without a default it is an error
// (*ExpandError naming server, field and variable, never a value). Other
// uses of $ are kept as written: $VAR without braces, $$, a lone $. A "${"
// without a closing "}" or with anything but a name ([A-Za-z_][A-Za-z0-9_]*)
// optionally followed by ":-default" is an error.
//
// After expansion the URL is checked again against the URL rules, the
// command must not be empty and header values must not hold line breaks.
// A relative cwd is made absolute against the directory of s.Source; a
// project entry without cwd runs in the project folder; a relative command
// path is made absolute against the cwd (or, without one, the directory of
// s.Source). That is what [Server.WorkDir] and the approval digest cover.
func (s *Server) Expand(getenv func(string) string) (*Expanded, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var firstErr error
	exp := func(field, v string) string {
		out, p := expandString(v, getenv)
		if p != nil && firstErr == nil {
			firstErr = &ExpandError{Server: s.Name, Field: field, Var: p.name, Msg: p.msg}
		}
		return out
	}
	x := &Expanded{}
	x.Command = exp("command", s.Command)
	for i, a := range s.Args {
		x.Args = append(x.Args, exp(fmt.Sprintf("args[%d]", i), a))
	}
	if s.Env != nil {
		x.Env = make(map[string]string, len(s.Env))
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			x.Env[k] = exp("env."+k, s.Env[k])
		}
	}
	if s.Cwd != "" {
		x.Cwd = exp("cwd", s.Cwd)
		if x.Cwd != "" && !filepath.IsAbs(x.Cwd) && s.Source != "" {
			x.Cwd = filepath.Join(filepath.Dir(s.Source), x.Cwd)
		}
	}
	if s.Type == TypeStdio && s.Source != "" {
		dir := filepath.Dir(s.Source)
		if x.Cwd == "" && s.Scope == ScopeProject {
			x.Cwd = dir // a project's server runs in the project folder
		}
		// A relative command path ("./server.sh", "bin/x") is the one of
		// the folder it runs in, or of the defining file's folder: never
		// of whatever folder the caller happens to be in.
		if (strings.ContainsRune(x.Command, '/') || strings.ContainsRune(x.Command, filepath.Separator)) && !filepath.IsAbs(x.Command) {
			base := x.Cwd
			if base == "" {
				base = dir
			}
			x.Command = filepath.Join(base, x.Command)
		}
	}
	x.URL = exp("url", s.URL)
	if s.Headers != nil {
		x.Headers = make(map[string]string, len(s.Headers))
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			x.Headers[k] = exp("headers."+k, s.Headers[k])
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}

	after := func(field, msg string) error {
		return &ExpandError{Server: s.Name, Field: field, Msg: "after expansion: " + msg}
	}
	switch s.Type {
	case TypeStdio:
		if strings.TrimSpace(x.Command) == "" {
			return nil, after("command", "is empty")
		}
		if strings.IndexByte(x.Command, 0) >= 0 {
			return nil, after("command", "contains a NUL character")
		}
		for i, a := range x.Args {
			if strings.IndexByte(a, 0) >= 0 {
				return nil, after(fmt.Sprintf("args[%d]", i), "contains a NUL character")
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x.Env)) {
			if strings.IndexByte(x.Env[k], 0) >= 0 {
				return nil, after("env."+k, "contains a NUL character")
			}
		}
	case TypeHTTP, TypeSSE:
		if err := checkURL(x.URL, false); err != nil {
			return nil, after("url", err.Error())
		}
		for _, k := range slices.Sorted(maps.Keys(x.Headers)) {
			if strings.ContainsAny(x.Headers[k], "\r\n\x00") {
				return nil, after("headers."+k, "contains a line break or NUL character")
			}
		}
	}
	return x, nil
}

// expandProblem is why a value could not be expanded.
type expandProblem struct {
	name string // the variable, "" for a malformed reference
	msg  string
}

// expandString expands ${VAR} and ${VAR:-default} in v, once.
func expandString(v string, getenv func(string) string) (string, *expandProblem) {
	if !strings.Contains(v, "${") {
		return v, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String(), nil
		}
		b.WriteString(v[:i])
		rest := v[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return "", &expandProblem{msg: "has a \"${\" without a closing \"}\""}
		}
		name, def, hasDef := strings.Cut(rest[:j], ":-")
		if !validVarName(name) {
			return "", &expandProblem{msg: "has a reference that is not ${NAME} or ${NAME:-default} (NAME: letters, digits and _)"}
		}
		val := getenv(name)
		if val == "" {
			if !hasDef {
				return "", &expandProblem{name: name, msg: fmt.Sprintf("variable %s is not set and has no default; set it, or write ${%s:-default}", name, name)}
			}
			val = def
		}
		b.WriteString(val)
		v = rest[j+1:]
	}
}

func validVarName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
