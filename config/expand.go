package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Expand is ExpandLookup with getenv, for which "" means unset (getenv
// cannot tell): an empty variable then takes its default, and without one
// is an error. nil means no variable is set.
func (s *Server) Expand(getenv func(string) string) (*Expanded, error) {
	if getenv == nil {
		return s.ExpandLookup(nil)
	}
	return s.ExpandLookup(LookupFromGetenv(getenv))
}

// LookupFromGetenv makes a lookup function of getenv, for which the empty
// string means unset.
func LookupFromGetenv(getenv func(string) string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
}

// ExpandLookup returns the definition with ${VAR} and ${VAR:-default}
// expanded in command, each arg, cwd, env values, url and header values;
// lookup finds variables as os.LookupEnv does (nil means none is set).
//
// Expansion happens once: a value that contains ${X}, whether it came from
// the environment or from a default, is kept literally. ${VAR} of a
// variable that is set, even to the empty string, is its value; of an
// unset one, an error (*ExpandError naming server, field and variable,
// never a value). ${VAR:-default} is the default when the variable is
// unset; a variable set to "" stays empty (unlike a shell's :-, as
// magi-code's rule says). Other uses of $ are kept as written: $VAR
// without braces, $$, a lone $. A "${" without a closing "}" or with
// anything but a name ([A-Za-z_][A-Za-z0-9_]*) optionally followed by
// ":-default" is an error.
//
// The variables envVars names are added to env (those that are set);
// each header of envHeaders takes the value of its variable, and
// bearerTokenEnvVar gives "Authorization: Bearer <value>"; a variable
// they name that is unset is an error, as for ${VAR}. Roots are made
// absolute against the directory of s.Source, like cwd.
//
// After expansion the URL is checked again against the URL rules, the
// command must not be empty and header values must not hold line breaks.
// A relative cwd is made absolute against the directory of s.Source; a
// project entry without cwd runs in the project folder; a relative command
// path is made absolute against the cwd (or, without one, the directory of
// s.Source). That is what [Server.WorkDir] and the approval digest cover.
func (s *Server) ExpandLookup(lookup func(string) (string, bool)) (*Expanded, error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	// Every value taken from the environment is recorded: it is a secret,
	// whatever the file (Server.Secrets).
	vars := map[string]string{}
	envLookup := lookup
	lookup = func(k string) (string, bool) {
		v, ok := envLookup(k)
		if ok && v != "" {
			vars[k] = v
		}
		return v, ok
	}
	var firstErr error
	exp := func(field, v string) string {
		out, p := expandString(v, lookup)
		if p != nil && firstErr == nil {
			firstErr = &ExpandError{Server: s.Name, Field: field, Var: p.name, Msg: p.msg}
		}
		return out
	}
	x := &Expanded{Vars: vars}
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
	if sb := s.Sandbox; sb != nil && !sb.Off {
		home := func() string { h, _ := envLookup("HOME"); return h } // not a secret
		x.SandboxRead = expandPaths("sandbox.read", sb.Read, exp, home)
		x.SandboxWrite = expandPaths("sandbox.write", sb.Write, exp, home)
	}
	x.URL = exp("url", s.URL)
	if s.Headers != nil {
		x.Headers = make(map[string]string, len(s.Headers))
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			x.Headers[k] = exp("headers."+k, s.Headers[k])
		}
	}
	for _, name := range s.EnvVars {
		if v, ok := lookup(name); ok {
			if x.Env == nil {
				x.Env = map[string]string{}
			}
			if _, given := x.Env[name]; !given { // env's own value wins
				x.Env[name] = v
			}
		}
	}
	fromEnv := func(field, name string) (string, bool) {
		v, ok := lookup(name)
		if !ok && firstErr == nil {
			firstErr = &ExpandError{Server: s.Name, Field: field, Var: name,
				Msg: fmt.Sprintf("variable %s is not set; set it, or remove %s", name, field)}
		}
		return v, ok
	}
	for _, k := range slices.Sorted(maps.Keys(s.EnvHeaders)) {
		if v, ok := fromEnv("envHeaders."+k, s.EnvHeaders[k]); ok {
			if x.Headers == nil {
				x.Headers = map[string]string{}
			}
			x.Headers[k] = v
		}
	}
	if s.BearerTokenEnvVar != "" {
		if v, ok := fromEnv("bearerTokenEnvVar", s.BearerTokenEnvVar); ok {
			if strings.TrimSpace(v) == "" && firstErr == nil {
				firstErr = &ExpandError{Server: s.Name, Field: "bearerTokenEnvVar", Var: s.BearerTokenEnvVar,
					Msg: fmt.Sprintf("variable %s is empty: no token to send", s.BearerTokenEnvVar)}
			}
			if x.Headers == nil {
				x.Headers = map[string]string{}
			}
			x.Headers["Authorization"] = "Bearer " + v
		}
	}
	for _, r := range s.Roots {
		if !filepath.IsAbs(r) && s.Source != "" {
			r = filepath.Join(filepath.Dir(s.Source), r)
		}
		x.Roots = append(x.Roots, filepath.Clean(r))
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
		if err := checkURL(x.URL, s.AllowHTTP); err != nil {
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
	_ [0]func() // not comparable: no equality function in the binary

	name string // the variable, "" for a malformed reference
	msg  string
}

// expandString expands ${VAR} and ${VAR:-default} in v, once.
func expandString(v string, lookup func(string) (string, bool)) (string, *expandProblem) {
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
		val, set := lookup(name)
		switch {
		case !set && !hasDef:
			return "", &expandProblem{name: name, msg: fmt.Sprintf("variable %s is not set and has no default; set it, or write ${%s:-default}", name, name)}
		case hasDef && !set:
			val = def // unset only: a variable set to "" stays empty (magi-code's rule)
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
