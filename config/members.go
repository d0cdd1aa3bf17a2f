package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A member is one member of a server definition: the one table that the
// parser ([parseEntry]), the approval digest ([Digest]), the review
// ([ReviewJSON]) and the reference (docs/config.md, checked by a test)
// all read. A member not in the table is unknown: a warning, and covered
// by the digest as written.
type member struct {
	name    string   // the canonical name
	aliases []string // other names read as the same member
	typ     string   // the JSON type, in the reference's words
	only    string   // TypeStdio or TypeHTTP (http and sse) when only that transport takes it
	digest  coverage // how the approval digest covers it
	// typeKey marks command and url: they decide the transport, and the
	// type checks name them rather than the only-rule.
	typeKey bool
	// aliasOnce: a second name of the member beside the first is an
	// error ("the same as timeoutMs, already given").
	aliasOnce bool
	read      func(p *entryParser, f *jmember)
}

// A coverage is how the approval digest covers a member.
type coverage int

const (
	canonical  coverage = iota // a field of canonicalDef, aliases resolved
	asWritten                  // in canonicalDef.Other, as written
	notCovered                 // left out: it only turns a server on or off or narrows what it offers
)

// members are the members of a server definition, in the reference's
// order.
var members = []member{
	{name: "type", aliases: []string{"transport"}, typ: "string", read: (*entryParser).readType},
	{name: "command", typ: "string", only: TypeStdio, typeKey: true, read: (*entryParser).readCommand},
	{name: "args", typ: "array of strings", only: TypeStdio, read: func(p *entryParser, f *jmember) {
		p.s.Args = p.strList(f.val, f.key)
	}},
	{name: "env", typ: "object of strings", only: TypeStdio, read: func(p *entryParser, f *jmember) {
		p.s.Env = p.strMap(f.val, f.key, envNameProblem)
	}},
	{name: "cwd", typ: "string", only: TypeStdio, read: func(p *entryParser, f *jmember) {
		p.s.Cwd, _ = p.str(f.val, f.key)
	}},
	{name: "envVars", typ: "array of strings", only: TypeStdio, read: (*entryParser).readEnvVars},
	{name: "url", aliases: []string{"httpUrl", "serverUrl"}, typ: "string", only: TypeHTTP, typeKey: true, read: (*entryParser).readURL},
	{name: "headers", typ: "object of strings", only: TypeHTTP, read: (*entryParser).readHeaders},
	{name: "envHeaders", typ: "object of strings", only: TypeHTTP, read: (*entryParser).readEnvHeaders},
	{name: "bearerTokenEnvVar", typ: "string", only: TypeHTTP, read: (*entryParser).readBearer},
	{name: "oauth", typ: "object", only: TypeHTTP, read: func(p *entryParser, f *jmember) {
		p.s.OAuth = p.oauth(f.val)
		p.oauthAt = f.keyStart
	}},
	{name: "headersHelper", typ: "string", only: TypeHTTP, digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.HeadersHelper, _ = p.str(f.val, f.key)
		if f.val.kind == '"' && strings.TrimSpace(p.s.HeadersHelper) == "" {
			p.fail(f.val.start, f.key, "must not be empty")
		}
	}},
	{name: "tls", typ: "object", only: TypeHTTP, digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.TLS = p.tls(f.val)
	}},
	{name: "allowHttp", typ: "boolean", only: TypeHTTP, digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.AllowHTTP, _ = p.boolean(f.val, f.key)
		p.allowAt = f.keyStart
	}},
	{name: "timeout", aliases: []string{"timeoutMs"}, typ: "number", aliasOnce: true, read: func(p *entryParser, f *jmember) {
		if d, ok := p.duration(f.val, f.key, f.key == "timeoutMs"); ok {
			p.s.Timeout = d
		}
	}},
	{name: "startupTimeout", aliases: []string{"startupTimeoutSec"}, typ: "number", aliasOnce: true, read: func(p *entryParser, f *jmember) {
		p.s.StartupTimeout, _ = p.duration(f.val, f.key, false)
	}},
	{name: "toolTimeout", aliases: []string{"toolTimeoutSec"}, typ: "number", aliasOnce: true, read: func(p *entryParser, f *jmember) {
		p.s.ToolTimeout, _ = p.duration(f.val, f.key, false)
	}},
	{name: "shutdownTimeout", typ: "number", digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.ShutdownTimeout, _ = p.duration(f.val, f.key, false)
	}},
	{name: "roots", typ: "array of strings", read: (*entryParser).readRoots},
	{name: "protocolVersion", typ: "string", digest: asWritten, read: (*entryParser).readProtocolVersion},
	{name: "maxMessageBytes", typ: "number", digest: asWritten, read: (*entryParser).readMaxMessageBytes},
	{name: "maxRetries", typ: "number", digest: asWritten, read: (*entryParser).readMaxRetries},
	{name: "importedFrom", typ: "string", digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.ImportedFrom, _ = p.str(f.val, f.key)
	}},
	{name: "registry", typ: "object of strings", digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.Registry = p.strMap(f.val, f.key, registryKeyProblem)
	}},
	{name: "pin", typ: "string", digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.Pin = p.choice(f, PinEnforce, PinWarn, PinOff)
	}},
	{name: "newTools", typ: "string", digest: asWritten, read: func(p *entryParser, f *jmember) {
		p.s.NewTools = p.choice(f, NewToolsOffer, NewToolsHold)
	}},
	{name: "prefix", typ: "string", digest: asWritten, read: (*entryParser).readPrefix},
	{name: "sandbox", typ: "boolean or object", only: TypeStdio, digest: asWritten, read: (*entryParser).readSandboxMember},
	{name: "enabled", typ: "boolean", digest: notCovered, read: func(p *entryParser, f *jmember) {
		if b, ok := p.boolean(f.val, f.key); ok {
			p.enabled = &b
		}
	}},
	{name: "disabled", typ: "boolean", digest: notCovered, read: func(p *entryParser, f *jmember) {
		if b, ok := p.boolean(f.val, f.key); ok {
			p.disabled = &b
		}
	}},
	{name: "required", typ: "boolean", digest: notCovered, read: func(p *entryParser, f *jmember) {
		p.s.Required, _ = p.boolean(f.val, f.key)
	}},
	{name: "enabledTools", typ: "array of strings", digest: notCovered, read: func(p *entryParser, f *jmember) {
		p.s.EnabledTools = p.strList(f.val, f.key)
	}},
	{name: "disabledTools", typ: "array of strings", digest: notCovered, read: func(p *entryParser, f *jmember) {
		p.s.DisabledTools = p.strList(f.val, f.key)
	}},
}

// An oauthMember is one member of a definition's "oauth" object.
type oauthMember struct {
	name string
	typ  string // the JSON type, in the reference's words
	read func(p *entryParser, o *OAuth, v *jnode, field string)
}

// oauthMembers are the members of a definition's "oauth" object, in the
// reference's order. The digest covers them all.
var oauthMembers = []oauthMember{
	{"client_id", "string", func(p *entryParser, o *OAuth, v *jnode, field string) { o.ClientID, _ = p.str(v, field) }},
	{"client_secret", "string", func(p *entryParser, o *OAuth, v *jnode, field string) { o.ClientSecret, _ = p.str(v, field) }},
	{"scopes", "array of strings", func(p *entryParser, o *OAuth, v *jnode, field string) { o.Scopes = p.strList(v, field) }},
	{"authorization_server", "string", func(p *entryParser, o *OAuth, v *jnode, field string) {
		o.AuthorizationServer, _ = p.httpsURL(v, field)
	}},
	{"client_metadata_url", "string", func(p *entryParser, o *OAuth, v *jnode, field string) {
		o.ClientMetadataURL, _ = p.httpsURL(v, field)
	}},
	{"callbackPort", "number", func(p *entryParser, o *OAuth, v *jnode, field string) {
		n, err := strconv.Atoi(string(p.data[v.start:v.end]))
		if v.kind != '0' || err != nil || n < 1 || n > 65535 {
			p.fail(v.start, field, "must be a port number from 1 to 65535")
			return
		}
		o.CallbackPort = n
	}},
	{"authServerMetadataUrl", "string", func(p *entryParser, o *OAuth, v *jnode, field string) {
		o.AuthServerMetadataURL, _ = p.httpsURL(v, field)
	}},
}

// memberIndex finds a member by any of its names.
var memberIndex = func() map[string]*member {
	idx := make(map[string]*member)
	for i := range members {
		m := &members[i]
		for _, n := range m.names() {
			idx[n] = m
		}
	}
	return idx
}()

// names returns the member's canonical name and its aliases.
func (m *member) names() []string {
	return append([]string{m.name}, m.aliases...)
}

// Members returns the canonical names of the members of a server
// definition, in the reference's order (docs/config.md).
func Members() []string {
	out := make([]string, len(members))
	for i, m := range members {
		out[i] = m.name
	}
	return out
}

// registryKeyProblem checks a key of a "registry" provenance object.
func registryKeyProblem(k string) string {
	if k == "" {
		return "is not a name"
	}
	return ""
}

// lookupMember returns the member a key of an entry names, or nil.
func lookupMember(key string) *member { return memberIndex[key] }

func (p *entryParser) readType(f *jmember) {
	v := f.val
	t, ok := p.str(v, f.key)
	if !ok {
		return
	}
	switch t {
	case "stdio":
	case "http", "streamable-http", "streamableHttp":
		t = TypeHTTP
	case "sse":
	default:
		p.fail(v.start, f.key, "must be \"stdio\", \"http\" (or \"streamable-http\") or \"sse\"")
		return
	}
	if p.typ != "" && p.typ != t {
		p.fail(f.keyStart, f.key, "disagrees with %s", p.typField)
	}
	p.typ, p.typField, p.typAt = t, f.key, f.keyStart
}

func (p *entryParser) readCommand(f *jmember) {
	v := f.val
	p.s.Command, _ = p.str(v, f.key)
	if v.kind == '"' && strings.TrimSpace(p.s.Command) == "" {
		p.fail(v.start, f.key, "must not be empty")
	}
	p.cmdAt = f.keyStart
}

func (p *entryParser) readURL(f *jmember) {
	if p.urlAt >= 0 {
		p.fail(f.keyStart, f.key, "the URL is already given as %s", p.urlField)
		return
	}
	p.s.URL, _ = p.str(f.val, f.key)
	p.urlAt, p.urlField, p.urlVal = f.keyStart, f.key, f.val
}

func (p *entryParser) readHeaders(f *jmember) {
	v := f.val
	p.s.Headers = p.strMap(v, f.key, headerNameProblem)
	for _, hm := range v.members {
		if strings.ContainsAny(hm.val.str, "\r\n") {
			p.fail(hm.val.start, "headers."+hm.key, "must not contain line breaks")
		}
	}
}

func (p *entryParser) readEnvVars(f *jmember) {
	v := f.val
	p.s.EnvVars = p.strList(v, f.key)
	for i, n := range p.s.EnvVars {
		if msg := envNameProblem(n); msg != "" {
			p.fail(v.elems[i].start, fmt.Sprintf("envVars[%d]", i), "%s", msg)
		}
	}
}

func (p *entryParser) readEnvHeaders(f *jmember) {
	v := f.val
	p.s.EnvHeaders = p.strMap(v, f.key, headerNameProblem)
	for _, hm := range v.members {
		if msg := envNameProblem(hm.val.str); hm.val.kind == '"' && msg != "" {
			p.fail(hm.val.start, "envHeaders."+hm.key, "%s", msg)
		}
	}
}

func (p *entryParser) readBearer(f *jmember) {
	v := f.val
	p.s.BearerTokenEnvVar, _ = p.str(v, f.key)
	if msg := envNameProblem(p.s.BearerTokenEnvVar); v.kind == '"' && msg != "" {
		p.fail(v.start, f.key, "%s", msg)
	}
	p.bearerAt = f.keyStart
}

func (p *entryParser) readRoots(f *jmember) {
	v := f.val
	p.s.Roots = p.strList(v, f.key)
	for i, r := range p.s.Roots {
		if strings.TrimSpace(r) == "" {
			p.fail(v.elems[i].start, fmt.Sprintf("roots[%d]", i), "must not be empty")
		}
	}
}

func (p *entryParser) readProtocolVersion(f *jmember) {
	v := f.val
	pv, ok := p.str(v, f.key)
	if ok && !slices.Contains(ProtocolVersions, pv) {
		p.fail(v.start, f.key, "must be one of %s", strings.Join(ProtocolVersions, ", "))
		return
	}
	p.s.ProtocolVersion = pv
}

func (p *entryParser) readMaxMessageBytes(f *jmember) {
	v := f.val
	if v.kind != '0' {
		p.fail(v.start, f.key, "must be a number of bytes, got %s", v.kindName())
		return
	}
	n, err := strconv.ParseInt(string(p.data[v.start:v.end]), 10, 64)
	if err != nil || n < MinMaxMessageBytes || n > MaxMaxMessageBytes {
		p.fail(v.start, f.key, "must be a whole number of bytes from %d to %d", int64(MinMaxMessageBytes), int64(MaxMaxMessageBytes))
		return
	}
	p.s.MaxMessageBytes = n
}

// MaxMaxRetries is the largest maxRetries.
const MaxMaxRetries = 100

// readMaxRetries reads maxRetries: a whole number, at most
// MaxMaxRetries; 0 or less means no retry.
func (p *entryParser) readMaxRetries(f *jmember) {
	v := f.val
	if v.kind != '0' {
		p.fail(v.start, f.key, "must be a whole number of retries, got %s", v.kindName())
		return
	}
	n, err := strconv.Atoi(string(p.data[v.start:v.end]))
	if err != nil || n > MaxMaxRetries {
		p.fail(v.start, f.key, "must be a whole number of retries, at most %d (0 or less: fail fast)", MaxMaxRetries)
		return
	}
	p.s.MaxRetries = n
	if n <= 0 {
		p.s.MaxRetries = -1 // none; 0 means not given
	}
}

// choice reads a string member that must be one of choices.
func (p *entryParser) choice(f *jmember, choices ...string) string {
	v, ok := p.str(f.val, f.key)
	if ok && !slices.Contains(choices, v) {
		p.fail(f.val.start, f.key, "must be %s", strings.Join(choices, " or "))
		return ""
	}
	return v
}

// MaxPrefixLen is the longest "prefix" of a definition, in bytes.
const MaxPrefixLen = 32

func (p *entryParser) readPrefix(f *jmember) {
	v, ok := p.str(f.val, f.key)
	if !ok {
		return
	}
	valid := v != "" && len(v) <= MaxPrefixLen && !strings.Contains(v, "__") && !strings.HasSuffix(v, "_")
	for i := 0; valid && i < len(v); i++ {
		c := v[i]
		valid = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	if !valid {
		p.fail(f.val.start, f.key, "must be 1 to %d characters of A-Z a-z 0-9 _ -, without \"__\" and not ending in \"_\"", MaxPrefixLen)
		return
	}
	p.s.Prefix = v
}
