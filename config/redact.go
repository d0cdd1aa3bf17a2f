package config

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// A Secret is one value of a definition that must never be printed, and
// the field it is the value of ("env.TOKEN", "headers.Authorization",
// "oauth.client_secret", "url", or "${VAR}" for a variable's value).
type Secret struct {
	Field string
	Value string
}

// notSecretVars are environment variables whose values are never secrets
// and are part of ordinary output (every path under the home folder):
// their values are not masked when a definition uses them.
var notSecretVars = [...]string{
	"HOME", "USER", "LOGNAME", "USERNAME", "PWD", "OLDPWD",
	"TMPDIR", "TMP", "TEMP", "PATH", "SHELL", "TERM", "LANG",
	"TZ", "HOSTNAME", "USERPROFILE", "APPDATA", "LOCALAPPDATA",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
}

// SecretValues returns the secrets of the definition. Who decides what is
// a secret matters: a project file is someone else's text, and must not be
// able to hide its own text or mask mcpwire's words. So the secrets are:
//
//   - the values that ${VAR} references took from the environment (not
//     their defaults, which the file wrote), in any field of any file,
//     except variables that are never secrets (HOME, USER, PATH, TMPDIR,
//     …);
//   - in the user's own home file (ScopeUser) only, and not in an entry
//     imported from a project ([Server.ProjectText]): env values, header
//     values and the credential after their scheme word ("Bearer <t>"
//     gives <t> too), the OAuth client secret, and the URL's query values
//     and password, as written and as expanded.
//
// Nothing else of a project file is a secret. Arguments are not secrets
// (they show in process lists anyway).
func (s *Server) SecretValues() []Secret {
	var out []Secret
	add := func(field, v string) {
		v = strings.TrimSpace(v)
		if v == "" || strings.Contains(v, "${") && s.Expanded == nil {
			return
		}
		for _, f := range SecretForms(v) {
			out = append(out, Secret{field, f})
		}
	}
	addURL := func(raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add("url", v)
			}
		}
		if p, ok := u.User.Password(); ok {
			add("url", p)
		}
	}
	user := s.Scope == ScopeUser && !s.ProjectText()
	if user {
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			if !strings.Contains(s.Env[k], "${") {
				add("env."+k, s.Env[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
			if !strings.Contains(s.Headers[k], "${") {
				add("headers."+k, s.Headers[k])
			}
		}
		if s.OAuth != nil && !strings.Contains(s.OAuth.ClientSecret, "${") {
			add("oauth.client_secret", s.OAuth.ClientSecret)
		}
		if !strings.Contains(s.URL, "${") {
			addURL(s.URL)
		}
	}
	if x := s.Expanded; x != nil {
		for _, name := range slices.Sorted(maps.Keys(x.Vars)) {
			if !slices.Contains(notSecretVars[:], name) {
				out = append(out, Secret{"${" + name + "}", x.Vars[name]})
			}
		}
		if user {
			for _, k := range slices.Sorted(maps.Keys(x.Env)) {
				add("env."+k, x.Env[k])
			}
			for _, k := range slices.Sorted(maps.Keys(x.Headers)) {
				add("headers."+k, x.Headers[k])
			}
			addURL(x.URL)
		}
	}
	return out
}

// SecretForms returns the forms of a secret value v that output may
// carry: v itself, trimmed, and the credential after a scheme word
// ("Bearer <token>", "Basic <credentials>", "token <t>") alone too.
func SecretForms(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	out := []string{v}
	if _, cred, ok := strings.Cut(v, " "); ok {
		if cred = strings.TrimSpace(cred); cred != "" {
			out = append(out, cred)
		}
	}
	return out
}

// Secrets returns the values of [Server.SecretValues], sorted, each once.
func (s *Server) Secrets() []string {
	var out []string
	for _, sv := range s.SecretValues() {
		out = append(out, sv.Value)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ShortSecrets returns the fields whose secret is too short for a
// redactor to mask (safe.TooShort): `get` and `doctor` warn about them.
func (s *Server) ShortSecrets() []string {
	var out []string
	for _, sv := range s.SecretValues() {
		if safe.TooShort(sv.Value) && !slices.Contains(out, sv.Field) {
			out = append(out, sv.Field)
		}
	}
	return out
}

// Redactor returns a Redactor for the secrets of every server of c.
func (c *Config) Redactor() *safe.Redactor {
	var all []string
	for _, s := range c.Servers {
		all = append(all, s.Secrets()...)
	}
	return safe.NewRedactor(all...)
}
