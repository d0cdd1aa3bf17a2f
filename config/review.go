package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// ReviewJSON returns s's entry as written in its file, indented: what a
// person reviews before approving it (`mcpwire get`, `mcpwire approve`).
// Nothing is expanded here: ${VAR} references show as written (they are
// not secrets), literal values in full, so that what is approved is what
// runs. Callers print it through their redactor, which masks the secrets
// of the user's own file ([Server.Secrets]).
//
// Two exceptions. A password in a URL (user:password@, which the URL
// rules refuse anyway) shows as "***". And in project text
// ([Server.ProjectText]), a literal credential (an env or header value,
// the OAuth client secret or a URL query value, under a name that holds
// one by convention: [safe.CredentialName]) shows as [safe.MaskCredential]
// does: "Bear…(21)", its references kept ("Bearer ${TOKEN}" in full);
// [ReviewWarnings] says that the file holds it.
func ReviewJSON(s *Server) ([]byte, error) {
	raw := []byte(s.Raw)
	if root, err := parseJSON(raw); err == nil && root.kind == '{' {
		raw = applyMasks(raw, reviewMasks(s, root))
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("server %q: %v", s.Name, err)
	}
	return b.Bytes(), nil
}

// A reviewMask replaces the string value at data[start:end].
type reviewMask struct {
	_ [0]func() // not comparable: no equality function in the binary

	field      string // "env.TOKEN", "headers.Authorization", "oauth.client_secret", "url"
	start, end int
	shown      string
}

// reviewMasks finds what ReviewJSON masks in the entry root.
func reviewMasks(s *Server, root *jnode) []reviewMask {
	var out []reviewMask
	add := func(field string, v *jnode, shown string) {
		if shown != v.str {
			out = append(out, reviewMask{field: field, start: v.start, end: v.end, shown: shown})
		}
	}
	project := s.ProjectText()
	for _, m := range root.members {
		switch m.key {
		case "url", "httpUrl", "serverUrl":
			if m.val.kind == '"' {
				add("url", m.val, reviewURL(m.val.str, project))
			}
		case "env", "headers":
			if !project || m.val.kind != '{' {
				continue
			}
			for _, e := range m.val.members {
				if e.val.kind == '"' && safe.CredentialName(e.key) {
					add(m.key+"."+e.key, e.val, maskLiterals(e.val.str))
				}
			}
		case "oauth":
			if !project || m.val.kind != '{' {
				continue
			}
			if o, _ := m.val.lookup("client_secret"); o != nil && o.val.kind == '"' {
				add("oauth.client_secret", o.val, maskLiterals(o.val.str))
			}
		}
	}
	return out
}

// applyMasks splices the masks into data, last first.
func applyMasks(data []byte, masks []reviewMask) []byte {
	// sort.Slice, not slices.SortFunc: one sort for every struct type
	// instead of a dozen functions each in the binary.
	sort.Slice(masks, func(i, j int) bool { return masks[i].start > masks[j].start })
	for _, m := range masks {
		data = splice(data, m.start, m.end, marshalString(m.shown))
	}
	return data
}

// reviewURL is a URL as a review shows it: a password as "***", and in
// project text the literal values of query parameters that hold
// credentials masked.
func reviewURL(raw string, project bool) string {
	shown := raw
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "***")
			shown = strings.Replace(u.String(), "%2A%2A%2A@", "***@", 1)
		}
	}
	base, query, ok := strings.Cut(shown, "?")
	if !project || !ok {
		return shown
	}
	frag := ""
	query, f, hasFrag := strings.Cut(query, "#")
	if hasFrag {
		frag = "#" + f
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		k, v, ok := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if ok && err == nil && safe.CredentialName(name) {
			params[i] = k + "=" + maskLiterals(v)
		}
	}
	return base + "?" + strings.Join(params, "&") + frag
}

// maskLiterals masks the literal parts of a credential value, keeping its
// ${VAR} references and a scheme word before one ("Bearer ${TOKEN}" shows
// as written, "Bearer proj-token-xyz" as "Bear…(21)"); the default of a
// reference is literal text too ("${T:-sk-l…(12)}"). A part without a
// letter or digit (a ":" between two references) is kept.
func maskLiterals(v string) string {
	var b strings.Builder
	for v != "" {
		i := strings.Index(v, "${")
		j := -1
		if i >= 0 {
			j = strings.IndexByte(v[i:], '}')
		}
		if i < 0 || j < 0 {
			b.WriteString(maskPart(v))
			break
		}
		b.WriteString(maskPart(v[:i]))
		ref := v[i : i+j+1]
		if name, def, ok := strings.Cut(ref[2:len(ref)-1], ":-"); ok {
			ref = "${" + name + ":-" + maskPart(def) + "}" // a default is literal text
		}
		b.WriteString(ref)
		v = v[i+j+1:]
	}
	return b.String()
}

// maskPart masks one literal part of a credential value.
func maskPart(p string) string {
	word := strings.ToLower(strings.TrimSpace(p))
	if strings.IndexFunc(p, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 ||
		(word == "bearer" || word == "basic" || word == "token") && strings.HasSuffix(p, " ") {
		return p
	}
	return safe.MaskCredential(p)
}

// Reviewed returns e as a review of project text shows it: the literal
// credentials of its env and header values masked, as [ReviewJSON] masks
// them. e itself is left as it is (it is what gets written).
func (e ImportEntry) Reviewed() ImportEntry {
	mask := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			if safe.CredentialName(k) {
				v = maskLiterals(v)
			}
			out[k] = v
		}
		return out
	}
	e.Env, e.Headers = mask(e.Env), mask(e.Headers)
	e.URL = reviewURL(e.URL, true)
	return e
}

// literalCredentials are the fields of project text whose literal
// credentials ReviewJSON masks, with the form shown.
func literalCredentials(s *Server) []reviewMask {
	root, err := parseJSON([]byte(s.Raw))
	if err != nil || root.kind != '{' || !s.ProjectText() {
		return nil
	}
	var out []reviewMask
	for _, m := range reviewMasks(s, root) {
		if m.field != "url" || strings.Contains(m.shown, "…(") {
			out = append(out, m)
		}
	}
	return out
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
	if s.ImportedFrom != "" {
		out = append(out, fmt.Sprintf("imported from %s, a project's file: reviewed as the project's text, not as yours", s.ImportedFrom))
	}
	if s.ProjectText() {
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
	for _, m := range literalCredentials(s) {
		out = append(out, fmt.Sprintf("%s is a literal credential (shown as %s): the project file holds it in clear, for everyone who has the file; a ${VAR} reference would keep it out", m.field, m.shown))
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
