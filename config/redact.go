package config

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// MinSecretLen is the length under which a configured value is not masked
// in free text by a [Redactor]: "1", "true" or "dev" as env values cannot
// be secrets worth the name, and masking every "1" would mangle output.
// [MaskedJSON] masks every value, whatever its length.
const MinSecretLen = 6

// Mask replaces a secret in output.
const Mask = "***"

// Secrets returns every secret of the definition, as written and as
// expanded: env values, header values, the credential of each header value
// ("Bearer <token>" gives the token too), the OAuth client secret, and the
// values of the URL's query. Arguments are not secrets (they show in
// process lists anyway); put secrets in env or headers.
func (s *Server) Secrets() []string {
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if v == "" {
			return
		}
		out = append(out, v)
		// "Bearer <token>", "Basic <credentials>", "token <t>": the
		// credential alone too.
		if _, cred, ok := strings.Cut(v, " "); ok {
			if cred = strings.TrimSpace(cred); cred != "" {
				out = append(out, cred)
			}
		}
	}
	addURL := func(raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
			}
		}
		if p, ok := u.User.Password(); ok {
			add(p)
		}
	}
	for _, v := range s.Env {
		add(v)
	}
	for _, v := range s.Headers {
		add(v)
	}
	if s.OAuth != nil {
		add(s.OAuth.ClientSecret)
	}
	addURL(s.URL)
	if x := s.Expanded; x != nil {
		for _, v := range x.Env {
			add(v)
		}
		for _, v := range x.Headers {
			add(v)
		}
		addURL(x.URL)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A Redactor masks known secrets in text. The zero value and nil mask
// nothing. It is safe for concurrent use once built.
type Redactor struct {
	r *strings.Replacer
}

// NewRedactor returns a Redactor for the given secrets. Secrets shorter
// than MinSecretLen are ignored; each secret is also masked in its
// JSON-escaped and URL-escaped forms.
func NewRedactor(secrets ...string) *Redactor {
	var all []string
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		all = append(all, s)
		if j := string(bytes.Trim(marshalString(s), `"`)); j != s {
			all = append(all, j)
		}
		if q := url.QueryEscape(s); q != s {
			all = append(all, q)
		}
		if p := url.PathEscape(s); p != s {
			all = append(all, p)
		}
	}
	if len(all) == 0 {
		return &Redactor{}
	}
	// Longest first, so that a secret containing another is masked whole.
	slices.SortFunc(all, func(a, b string) int { return len(b) - len(a) })
	all = slices.Compact(all)
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Mask)
	}
	return &Redactor{r: strings.NewReplacer(pairs...)}
}

// Redact returns s with every secret replaced by "***".
func (r *Redactor) Redact(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Redactor returns a Redactor for the secrets of every server of c.
func (c *Config) Redactor() *Redactor {
	var all []string
	for _, s := range c.Servers {
		all = append(all, s.Secrets()...)
	}
	return NewRedactor(all...)
}

// MaskedJSON returns s's entry as written, indented, with every env value,
// header value and the OAuth client secret replaced by "***", and the URL
// reduced to scheme://host:port/path (plus "?***" when it had a query):
// what `mcpwire get` shows. Unknown fields are kept as written.
func MaskedJSON(s *Server) ([]byte, error) {
	root, err := parseJSON(s.Raw)
	if err != nil {
		return nil, err
	}
	type edit struct {
		start, end int
		text       []byte
	}
	var edits []edit
	mask := []byte(`"` + Mask + `"`)
	maskValues := func(n *jnode) {
		if n.kind != '{' {
			edits = append(edits, edit{n.start, n.end, mask})
			return
		}
		for _, m := range n.members {
			edits = append(edits, edit{m.val.start, m.val.end, mask})
		}
	}
	if root.kind == '{' {
		for _, m := range root.members {
			switch m.key {
			case "env", "headers":
				maskValues(m.val)
			case "oauth":
				if m.val.kind == '{' {
					for _, o := range m.val.members {
						if o.key == "client_secret" {
							edits = append(edits, edit{o.val.start, o.val.end, mask})
						}
					}
				}
			case "url", "httpUrl", "serverUrl":
				if m.val.kind == '"' {
					shown := RedactURL(m.val.str)
					if strings.ContainsAny(m.val.str, "?#") {
						shown += "?" + Mask
					}
					edits = append(edits, edit{m.val.start, m.val.end, marshalString(shown)})
				}
			}
		}
	}
	out := s.Raw
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	for _, e := range edits {
		out = splice(out, e.start, e.end, e.text)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, out, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
