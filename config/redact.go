package config

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

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

// Redactor returns a Redactor for the secrets of every server of c.
func (c *Config) Redactor() *safe.Redactor {
	var all []string
	for _, s := range c.Servers {
		all = append(all, s.Secrets()...)
	}
	return safe.NewRedactor(all...)
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
	mask := []byte(`"` + safe.Mask + `"`)
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
					shown := safe.RedactURL(m.val.str)
					if strings.ContainsAny(m.val.str, "?#") {
						shown += "?" + safe.Mask
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
