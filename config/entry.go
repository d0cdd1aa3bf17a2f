package config

import (
	"encoding/json"
	"strings"
)

// entryParser reads one server entry: the members of [members] each
// read themselves into s and into the positions kept here, which the
// checks across members (the transport, the tokens) then use.
type entryParser struct {
	data     []byte
	file     string
	s        *Server
	warnings *[]string

	typ, typField string
	typAt         int
	cmdAt, urlAt  int // -1 when not given
	urlField      string
	urlVal        *jnode
	allowAt       int // allowHttp; -1 when not given
	oauthAt       int
	bearerAt      int
	// given are the members given, in file order (the only-rules check them).
	given             []*jmember
	enabled, disabled *bool
}

// parseEntry reads and validates one entry. It always returns a Server.
func parseEntry(file, scope string, data []byte, name string, m *jmember, warnings *[]string) *Server {
	s := &Server{
		Name: name, Source: file, Scope: scope,
		Raw:     append(json.RawMessage(nil), data[m.val.start:m.val.end]...),
		Enabled: true, Timeout: DefaultTimeout,
	}
	s.Line, s.Col = lineCol(data, m.keyStart)
	p := &entryParser{data: data, file: file, s: s, warnings: warnings,
		cmdAt: -1, urlAt: -1, allowAt: -1, oauthAt: -1, bearerAt: -1}
	if err := ValidName(name); err != nil {
		p.fail(m.keyStart, "", "%v", err)
	}
	e := m.val
	if e.kind != '{' {
		p.fail(e.start, "", "must be an object, got %s", e.kindName())
		return s
	}
	p.readMembers(e)
	p.resolveEnabled(e)
	p.resolveType(m)
	p.checkURL()
	p.checkTokens()
	for k := range s.EnvHeaders {
		if _, both := s.Headers[k]; both {
			p.fail(m.keyStart, "envHeaders."+k, "the header is also in headers; keep one")
		}
	}
	return s
}

// readMembers reads each member of the entry e through its row of
// [members]; an unknown one is a warning.
func (p *entryParser) readMembers(e *jnode) {
	seen := make(map[string]bool)
	aliasGiven := map[string]string{} // canonical name → the name it was given as
	for i := range e.members {
		f := &e.members[i]
		if seen[f.key] {
			p.fail(f.keyStart, f.key, "given twice")
		}
		seen[f.key] = true
		mem := lookupMember(f.key)
		if mem == nil {
			p.warn(f.keyStart, f.key)
			continue
		}
		if mem.aliasOnce {
			if other, ok := aliasGiven[mem.name]; ok {
				p.fail(f.keyStart, f.key, "the same as %s, already given; keep one", other)
				continue
			}
			aliasGiven[mem.name] = f.key
		}
		mem.read(p, f)
		if mem.only != "" && !mem.typeKey {
			p.given = append(p.given, f)
		}
	}
}

// resolveEnabled applies enabled and disabled, which must agree.
func (p *entryParser) resolveEnabled(e *jnode) {
	switch {
	case p.enabled != nil && p.disabled != nil && *p.enabled == *p.disabled:
		p.fail(e.start, "enabled", "enabled and disabled disagree; keep one")
	case p.enabled != nil:
		p.s.Enabled = *p.enabled
	case p.disabled != nil:
		p.s.Enabled = !*p.disabled
	}
}

// resolveType decides the transport from type, command and url, and
// checks that the members given are the transport's.
func (p *entryParser) resolveType(m *jmember) {
	hasCmd, hasURL := p.cmdAt >= 0, p.urlAt >= 0
	typ := p.typ
	switch typ {
	case "":
		switch {
		case hasCmd && hasURL:
			p.fail(p.urlAt, p.urlField, "command and url exclude each other: give command (stdio) or url (http), not both")
		case hasCmd:
			typ = TypeStdio
		case hasURL:
			typ = TypeHTTP
		default:
			p.fail(m.keyStart, "", "needs command (a stdio server) or url (an http server)")
		}
	case TypeStdio:
		if !hasCmd {
			p.fail(p.typAt, p.typField, "a stdio server needs command")
		}
		if hasURL {
			p.fail(p.urlAt, p.urlField, "is for http servers; this one is stdio")
		}
	default:
		if !hasURL {
			p.fail(p.typAt, p.typField, "an %s server needs url", typ)
		}
		if hasCmd {
			p.fail(p.cmdAt, "command", "is for stdio servers; this one is %s", typ)
		}
	}
	p.s.Type = typ
	if typ == "" {
		return
	}
	// http-only members first, then stdio-only ones, each in file order.
	for _, only := range []string{TypeHTTP, TypeStdio} {
		for _, f := range p.given {
			if lookupMember(f.key).only != only {
				continue
			}
			switch {
			case only == TypeHTTP && typ == TypeStdio:
				p.fail(f.keyStart, f.key, "is for http servers; this one is stdio")
			case only == TypeStdio && typ != TypeStdio:
				p.fail(f.keyStart, f.key, "is for stdio servers; this one is %s", typ)
			}
		}
	}
}

// checkURL applies the URL rules, with the entry's allowHttp wherever it
// stands.
func (p *entryParser) checkURL() {
	if p.urlVal != nil && p.urlVal.kind == '"' && !strings.Contains(p.s.URL, "${") {
		if err := checkURL(p.s.URL, p.s.AllowHTTP); err != nil {
			p.fail(p.urlVal.start, p.urlField, "%v", err)
		}
	}
}

// checkTokens applies the rules of tokens: none crosses plain http, and
// one way of sending Authorization at a time.
func (p *entryParser) checkTokens() {
	s := p.s
	hasAuth := func(hs ...map[string]string) bool {
		for _, h := range hs {
			for k := range h {
				if strings.EqualFold(k, "Authorization") {
					return true
				}
			}
		}
		return false
	}
	// allowHttp is for servers without tokens: none crosses plain http.
	if s.AllowHTTP && !strings.HasPrefix(strings.ToLower(s.URL), "https://") {
		if p.oauthAt >= 0 || p.bearerAt >= 0 || hasAuth(s.Headers, s.EnvHeaders) {
			p.fail(p.allowAt, "allowHttp", "a token (oauth, bearerTokenEnvVar or an Authorization header) never crosses plain http to another host; use https, or drop the token")
		}
	}
	if p.oauthAt >= 0 && hasAuth(s.Headers) {
		p.fail(p.oauthAt, "oauth", "oauth and a static Authorization header exclude each other; keep one")
	}
	for _, hs := range []map[string]string{s.Headers, s.EnvHeaders} {
		for k := range hs {
			if p.oauthAt >= 0 && strings.EqualFold(k, "Proxy-Authorization") {
				p.fail(p.oauthAt, "oauth", "oauth and a Proxy-Authorization header exclude each other, as with Authorization; keep one")
			}
		}
	}
	if p.bearerAt >= 0 {
		if p.oauthAt >= 0 {
			p.fail(p.bearerAt, "bearerTokenEnvVar", "oauth and bearerTokenEnvVar exclude each other; keep one")
		}
		if hasAuth(s.Headers, s.EnvHeaders) {
			p.fail(p.bearerAt, "bearerTokenEnvVar", "bearerTokenEnvVar and an Authorization header exclude each other; keep one")
		}
	}
}

// oauth reads the "oauth" object through [oauthMembers].
func (p *entryParser) oauth(v *jnode) *OAuth {
	if v.kind != '{' {
		p.fail(v.start, "oauth", "must be an object, got %s", v.kindName())
		return nil
	}
	o := &OAuth{}
	seen := make(map[string]bool)
	for _, f := range v.members {
		field := "oauth." + f.key
		if seen[f.key] {
			p.fail(f.keyStart, field, "given twice")
		}
		seen[f.key] = true
		known := false
		for _, om := range oauthMembers {
			if om.name == f.key {
				om.read(p, o, f.val, field)
				known = true
			}
		}
		if !known {
			p.warn(f.keyStart, field)
		}
	}
	return o
}

// tls reads the "tls" object: ca, cert and key, file paths; cert and key
// go together.
func (p *entryParser) tls(v *jnode) *TLS {
	if v.kind != '{' {
		p.fail(v.start, "tls", "must be an object, got %s", v.kindName())
		return nil
	}
	t := &TLS{}
	seen := make(map[string]bool)
	for _, f := range v.members {
		field := "tls." + f.key
		if seen[f.key] {
			p.fail(f.keyStart, field, "given twice")
		}
		seen[f.key] = true
		var dst *string
		switch f.key {
		case "ca":
			dst = &t.CA
		case "cert":
			dst = &t.Cert
		case "key":
			dst = &t.Key
		default:
			p.warn(f.keyStart, field)
			continue
		}
		*dst, _ = p.str(f.val, field)
		if f.val.kind == '"' && strings.TrimSpace(*dst) == "" {
			p.fail(f.val.start, field, "must not be empty")
		}
	}
	if (t.Cert == "") != (t.Key == "") {
		p.fail(v.start, "tls", "cert and key go together: give both (a client certificate and its key) or neither")
	}
	return t
}
