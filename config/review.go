package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// ReviewJSON returns s's entry as written in its file, indented: what a
// person reviews before approving it (`mcpwire get`, `mcpwire approve`).
// Nothing is masked or expanded here: ${VAR} references show as written
// (they are not secrets), literal values in full, so that what is
// approved is what runs. Callers print it through their redactor, which
// masks the secrets of the user's own file ([Server.Secrets]).
//
// One exception: a password in a URL (user:password@, which the URL rules
// refuse anyway) shows as "***".
func ReviewJSON(s *Server) ([]byte, error) {
	raw := []byte(s.Raw)
	if root, err := parseJSON(raw); err == nil && root.kind == '{' {
		for i := len(root.members) - 1; i >= 0; i-- {
			m := root.members[i]
			if mem := lookupMember(m.key); mem == nil || mem.name != "url" || m.val.kind != '"' {
				continue
			}
			if u, err := url.Parse(m.val.str); err == nil && u.User != nil {
				if _, has := u.User.Password(); has {
					u.User = url.UserPassword(u.User.Username(), "***")
					shown := strings.Replace(u.String(), "%2A%2A%2A@", "***@", 1)
					raw = splice(raw, m.val.start, m.val.end, marshalString(shown))
				}
			}
		}
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("server %q: %v", s.Name, err)
	}
	return b.Bytes(), nil
}

// loaderEnv are environment variables that change how a program loads or
// starts (preloaded libraries, startup scripts, module paths, runtime
// options): set by a definition, they run code of the definition's author
// in whatever the command is. Names ending in "*" are prefixes.
var loaderEnv = []string{
	"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_*", "BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND",
	"NODE_OPTIONS", "NODE_PATH", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB",
	"RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GCONV_PATH", "LUA_INIT", "PHPRC", "PATH",
}

// loaderVar reports whether an env name is one of loaderEnv.
func loaderVar(name string) bool {
	for _, v := range loaderEnv {
		if p, ok := strings.CutSuffix(v, "*"); ok && strings.HasPrefix(name, p) || name == v {
			return true
		}
	}
	return false
}

// ReviewWarnings returns, in words, what a person should know before
// approving s: env variables that change how programs load or start, a
// command or folder relative to the file's folder, and the user's
// environment variables (${VAR}) that the definition sends to a host in a
// header or its URL, or hands to the server in env or arguments.
func ReviewWarnings(s *Server) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if loaderVar(k) {
			out = append(out, fmt.Sprintf("env %s changes how programs load or start: it can run code of this file's author in %s", k, firstWord(s.Command)))
		}
	}
	host := ""
	if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
		host = u.Host
	}
	if host == "" {
		host = "the server"
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		if vars := varNames(s.Headers[k]); len(vars) > 0 {
			out = append(out, fmt.Sprintf("header %s sends your environment (%s) to %s", k, strings.Join(vars, ", "), host))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.EnvHeaders)) {
		out = append(out, fmt.Sprintf("header %s sends your environment (${%s}) to %s", k, s.EnvHeaders[k], host))
	}
	if s.BearerTokenEnvVar != "" {
		out = append(out, fmt.Sprintf("header Authorization sends your environment (${%s}) to %s", s.BearerTokenEnvVar, host))
	}
	if vars := varNames(s.URL); len(vars) > 0 {
		out = append(out, fmt.Sprintf("the URL sends your environment (%s) to %s", strings.Join(vars, ", "), host))
	}
	if s.OAuth != nil {
		if vars := varNames(s.OAuth.ClientSecret); len(vars) > 0 {
			out = append(out, fmt.Sprintf("oauth.client_secret sends your environment (%s) to the authorization server", strings.Join(vars, ", ")))
		}
	}
	if s.Scope == ScopeProject {
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			if vars := varNames(s.Env[k]); len(vars) > 0 {
				out = append(out, fmt.Sprintf("env %s hands your environment (%s) to the server", k, strings.Join(vars, ", ")))
			}
		}
		if len(s.EnvVars) > 0 {
			names := make([]string, len(s.EnvVars))
			for i, n := range s.EnvVars {
				names[i] = "${" + n + "}"
			}
			out = append(out, fmt.Sprintf("envVars hand your environment (%s) to the server", strings.Join(names, ", ")))
		}
		var argVars []string
		for _, a := range s.Args {
			argVars = append(argVars, varNames(a)...)
		}
		if len(argVars) > 0 {
			slices.Sort(argVars)
			out = append(out, fmt.Sprintf("args hand your environment (%s) to the server", strings.Join(slices.Compact(argVars), ", ")))
		}
	}
	if s.Type == TypeStdio && (strings.ContainsRune(s.Command, '/') || strings.ContainsRune(s.Command, '\\')) && !strings.HasPrefix(s.Command, "/") && !strings.Contains(s.Command, ":") {
		out = append(out, fmt.Sprintf("the command %s is a file relative to %s", firstWord(s.Command), orCaller(s.WorkDir(), s)))
	}
	return out
}

func firstWord(cmd string) string {
	if cmd == "" {
		return "the server"
	}
	return cmd
}

// orCaller names the folder a relative command is taken from.
func orCaller(dir string, s *Server) string {
	if dir != "" {
		return dir
	}
	if s.Source != "" {
		return s.Source[:max(0, strings.LastIndexAny(s.Source, `/\`))]
	}
	return "the working directory"
}

// varNames returns the names of the ${VAR} references in v, in order,
// each once.
func varNames(v string) []string {
	var out []string
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			return out
		}
		rest := v[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 {
			return out
		}
		name, _, _ := strings.Cut(rest[:j], ":-")
		if validVarName(name) && !slices.Contains(out, "${"+name+"}") {
			out = append(out, "${"+name+"}")
		}
		v = rest[j+1:]
	}
}
