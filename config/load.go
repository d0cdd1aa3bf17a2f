package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FileName is the name of a server file, in the home folder (user scope)
// and in the working directory (project scope).
const FileName = ".mcp.json"

// Home returns the home folder: $MCPWIRE_HOME, else
// $XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire. getenv looks variables
// up (nil means os.Getenv). The folder is not created.
func Home(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("MCPWIRE_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Abs(filepath.Join(x, "mcpwire"))
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the home folder: %v; set MCPWIRE_HOME", err)
	}
	return filepath.Join(u, ".config", "mcpwire"), nil
}

// LoadOptions says where Load reads from. The zero value reads the home
// folder of [Home] and the working directory with os.Getenv.
type LoadOptions struct {
	Home string // the home folder; "" = Home(Getenv)
	Dir  string // the working directory; "" = os.Getwd()
	// LookupEnv finds variables for ${VAR} expansion (and Home), as
	// os.LookupEnv does: a variable set to "" expands to "". nil means
	// Getenv, for which "" means unset; both nil mean os.LookupEnv.
	LookupEnv func(key string) (string, bool)
	Getenv    func(key string) string
}

// A Config is the servers of both scopes, merged.
type Config struct {
	// Servers in a stable order: the user file's entries in file order,
	// then the project file's; a project entry that replaces a user entry
	// of the same name takes the project's place.
	Servers []*Server
	// Warnings are things that are not errors but must be seen: unknown
	// fields, each with file, line and column.
	Warnings []string
	// Files are the files read, user first.
	Files []File
}

// A File is one server file Load looked at.
type File struct {
	Path   string // canonical absolute path
	Scope  string // ScopeUser or ScopeProject
	Exists bool
	Err    error // a *FileError when the file could not be used; its servers are missing
}

// Server returns the server named name, or nil.
func (c *Config) Server(name string) *Server {
	for _, s := range c.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Load reads <Home>/.mcp.json (scope user) and <Dir>/.mcp.json (scope
// project; the directory itself only, no parent search). A missing file is
// no error. A project entry replaces the user entry of the same name, whole.
// Every entry is validated, enabled or not; enabled valid entries are then
// expanded with Getenv (see [Server.Expand]).
//
// A file that cannot be used at all (not JSON, the top level or mcpServers
// not an object, unreadable) fails as a whole: Load then returns the Config
// with the other file's servers AND an error joining the *FileError values
// (also in Config.Files). Callers that want all or nothing stop at the
// error; list-like callers may show both.
func Load(opts LoadOptions) (*Config, error) {
	lookup := opts.LookupEnv
	switch {
	case lookup != nil:
	case opts.Getenv != nil:
		lookup = LookupFromGetenv(opts.Getenv)
	default:
		lookup = os.LookupEnv
	}
	getenv := func(k string) string { v, _ := lookup(k); return v }
	home := opts.Home
	if home == "" {
		h, err := Home(getenv)
		if err != nil {
			return nil, err
		}
		home = h
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the working directory: %v", err)
		}
		dir = wd
	}
	// Files are named as reached (absolute, symbolic links kept): a
	// project whose .mcp.json links elsewhere is still its own source.
	userPath, err := filepath.Abs(filepath.Join(home, FileName))
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %v", home, err)
	}
	projPath, err := filepath.Abs(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %v", dir, err)
	}
	// The working directory may be the home folder under another name.
	sameDir := projPath == userPath
	if ch, err1 := canonicalPath(home); err1 == nil {
		if cd, err2 := canonicalPath(dir); err2 == nil && ch == cd {
			sameDir = true
		}
	}

	c := &Config{}
	var errs []error
	var user, proj []*Server
	for _, f := range []struct {
		path, scope string
		out         *[]*Server
	}{{userPath, ScopeUser, &user}, {projPath, ScopeProject, &proj}} {
		if f.scope == ScopeProject && sameDir {
			break // the working directory is the home folder
		}
		file := File{Path: f.path, Scope: f.scope}
		data, err := os.ReadFile(f.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			file.Exists = true
			file.Err = &FileError{Path: f.path, Err: fmt.Errorf("reading: %v", err)}
		default:
			file.Exists = true
			pf, err := parseFile(f.path, f.scope, data)
			if err != nil {
				file.Err = err
			} else {
				*f.out = pf.servers
				c.Warnings = append(c.Warnings, pf.warnings...)
			}
		}
		if file.Err != nil {
			errs = append(errs, file.Err)
		}
		c.Files = append(c.Files, file)
	}

	replaced := make(map[string]bool)
	for _, s := range proj {
		replaced[s.Name] = true
	}
	for _, s := range user {
		if !replaced[s.Name] {
			c.Servers = append(c.Servers, s)
		}
	}
	c.Servers = append(c.Servers, proj...)

	for _, s := range c.Servers {
		if !s.Enabled || s.Err != nil {
			continue
		}
		x, err := s.ExpandLookup(lookup)
		if err != nil {
			s.Err = err
			continue
		}
		s.Expanded = x
	}
	return c, errors.Join(errs...)
}

// canonicalPath makes p absolute and resolves symbolic links in it (in
// its directory when the file itself does not exist).
func canonicalPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %v", p, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs)), nil
	}
	return abs, nil
}

// A parsedFile is one server file read.
type parsedFile struct {
	root       *jnode   // nil for an empty file
	containers []*jnode // the mcpServers and servers objects present, in file order
	servers    []*Server
	warnings   []string
}

// rootKeys are the members of the top level that hold servers.
var rootKeys = [...]string{"mcpServers", "servers"}

// parseFile reads a server file. It fails only when the file as a whole
// cannot be used; wrong entries get their Err.
func parseFile(path, scope string, data []byte) (*parsedFile, error) {
	pf := &parsedFile{}
	if len(bytes.TrimSpace(data)) == 0 {
		return pf, nil // an empty file holds no servers
	}
	root, err := parseJSON(data)
	if err != nil {
		var se *jsonSyntaxError
		fe := &FileError{Path: path, Syntax: true, Err: err}
		if errors.As(err, &se) {
			fe.Line, fe.Col = lineCol(data, se.offset)
		}
		return nil, fe
	}
	if root.kind != '{' {
		l, c := lineCol(data, root.start)
		return nil, &FileError{Path: path, Line: l, Col: c, Err: fmt.Errorf("the top level must be an object, got %s", root.kindName())}
	}
	pf.root = root
	seen := make(map[string]bool)
	for _, m := range root.members {
		known := m.key == rootKeys[0] || m.key == rootKeys[1]
		l, c := lineCol(data, m.keyStart)
		if !known {
			pf.warnings = append(pf.warnings, fmt.Sprintf("%s:%d:%d: unknown top-level field %q ignored", path, l, c, m.key))
			continue
		}
		if seen[m.key] {
			return nil, &FileError{Path: path, Line: l, Col: c, Err: fmt.Errorf("%s given twice", m.key)}
		}
		seen[m.key] = true
		if m.val.kind != '{' {
			l, c := lineCol(data, m.val.start)
			return nil, &FileError{Path: path, Line: l, Col: c, Err: fmt.Errorf("%s must be an object, got %s", m.key, m.val.kindName())}
		}
		pf.containers = append(pf.containers, m.val)
	}

	// Entries of both containers, by name, in file order; a name given
	// twice is one invalid server at the place of its first definition,
	// read from its last (the one a JSON reader would keep).
	var order []string
	defs := make(map[string][]*jmember)
	for _, cont := range pf.containers {
		for i := range cont.members {
			m := &cont.members[i]
			if defs[m.key] == nil {
				order = append(order, m.key)
			}
			defs[m.key] = append(defs[m.key], m)
		}
	}
	for _, name := range order {
		ms := defs[name]
		last := ms[len(ms)-1]
		s := parseEntry(path, scope, data, name, last, &pf.warnings)
		if len(ms) > 1 {
			l1, c1 := lineCol(data, ms[0].keyStart)
			l2, c2 := lineCol(data, ms[1].keyStart)
			s.Err = &FieldError{File: path, Server: name, Line: l2, Col: c2,
				Msg: fmt.Sprintf("defined more than once in this file (first at line %d, column %d); keep one", l1, c1)}
		}
		pf.servers = append(pf.servers, s)
	}
	return pf, nil
}

// entryParser reads one server entry.
type entryParser struct {
	data     []byte
	file     string
	s        *Server
	warnings *[]string
}

// fail records the entry's first error, at byte offset off.
func (p *entryParser) fail(off int, field, format string, args ...any) {
	if p.s.Err != nil {
		return
	}
	l, c := lineCol(p.data, off)
	p.s.Err = &FieldError{File: p.file, Server: p.s.Name, Field: field, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
}

func (p *entryParser) warn(off int, field string) {
	l, c := lineCol(p.data, off)
	*p.warnings = append(*p.warnings, fmt.Sprintf("%s:%d:%d: server %q: unknown field %q ignored", p.file, l, c, p.s.Name, field))
}

func (p *entryParser) str(n *jnode, field string) (string, bool) {
	if n.kind != '"' {
		p.fail(n.start, field, "must be a string, got %s", n.kindName())
		return "", false
	}
	if strings.IndexByte(n.str, 0) >= 0 {
		p.fail(n.start, field, "must not contain a NUL character")
		return "", false
	}
	return n.str, true
}

func (p *entryParser) boolean(n *jnode, field string) (bool, bool) {
	if n.kind != 't' && n.kind != 'f' {
		p.fail(n.start, field, "must be true or false, got %s", n.kindName())
		return false, false
	}
	return n.kind == 't', true
}

func (p *entryParser) strList(n *jnode, field string) []string {
	if n.kind != '[' {
		p.fail(n.start, field, "must be an array of strings, got %s", n.kindName())
		return nil
	}
	out := make([]string, 0, len(n.elems))
	for i, e := range n.elems {
		v, _ := p.str(e, fmt.Sprintf("%s[%d]", field, i))
		out = append(out, v)
	}
	return out
}

// strMap reads an object of strings; check validates each name.
func (p *entryParser) strMap(n *jnode, field string, check func(string) string) map[string]string {
	if n.kind != '{' {
		p.fail(n.start, field, "must be an object of strings, got %s", n.kindName())
		return nil
	}
	out := make(map[string]string, len(n.members))
	for _, m := range n.members {
		f := field + "." + m.key
		if _, dup := out[m.key]; dup {
			p.fail(m.keyStart, f, "given twice")
		}
		if msg := check(m.key); msg != "" {
			p.fail(m.keyStart, f, "%s", msg)
		}
		v, _ := p.str(m.val, f)
		out[m.key] = v
	}
	return out
}

// ValidName reports whether name can name a server: 1 to 64 characters
// from A-Z a-z 0-9 _ - ., starting with a letter, digit or underscore. The
// name is used in file names (OAuth tokens) and tool names.
func ValidName(name string) error {
	if name == "" {
		return errors.New("a server name must not be empty")
	}
	if len(name) > 64 {
		return errors.New("a server name must be at most 64 characters")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '-' || c == '.')
		if !ok {
			return fmt.Errorf("server name %q: use letters, digits, _ - and . only, not starting with - or .", name)
		}
	}
	return nil
}

func envNameProblem(k string) string {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return "is not a valid environment variable name"
	}
	return ""
}

func headerNameProblem(k string) string {
	if k == "" {
		return "is not a valid header name"
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return "is not a valid header name"
		}
	}
	return ""
}

// parseEntry reads and validates one entry. It always returns a Server.
func parseEntry(file, scope string, data []byte, name string, m *jmember, warnings *[]string) *Server {
	s := &Server{
		Name: name, Source: file, Scope: scope,
		Raw:     append(json.RawMessage(nil), data[m.val.start:m.val.end]...),
		Enabled: true, Timeout: DefaultTimeout,
	}
	s.Line, s.Col = lineCol(data, m.keyStart)
	p := &entryParser{data: data, file: file, s: s, warnings: warnings}
	if err := ValidName(name); err != nil {
		p.fail(m.keyStart, "", "%v", err)
	}
	e := m.val
	if e.kind != '{' {
		p.fail(e.start, "", "must be an object, got %s", e.kindName())
		return s
	}
	seen := make(map[string]bool)
	var (
		typ, typField           string
		typAt                   int
		cmdAt, urlAt            = -1, -1
		urlField                string
		urlVal                  *jnode
		allowAt                 = -1
		enabled, disabled       *bool
		oauthAt                 = -1
		bearerAt                = -1
		stdioOnly, httpOnly     []string
		stdioOnlyAt, httpOnlyAt []int
		timeoutField            = map[string]string{} // canonical field → the name it was given as
	)
	// alias checks that a field and its aliases are given once.
	alias := func(f *jmember, canonical string) bool {
		if other, ok := timeoutField[canonical]; ok {
			p.fail(f.keyStart, f.key, "the same as %s, already given; keep one", other)
			return false
		}
		timeoutField[canonical] = f.key
		return true
	}
	for _, f := range e.members {
		if seen[f.key] {
			p.fail(f.keyStart, f.key, "given twice")
		}
		seen[f.key] = true
		v := f.val
		switch f.key {
		case "type", "transport":
			t, ok := p.str(v, f.key)
			if !ok {
				break
			}
			switch t {
			case "stdio":
			case "http", "streamable-http", "streamableHttp":
				t = TypeHTTP
			case "sse":
			default:
				p.fail(v.start, f.key, "must be \"stdio\", \"http\" (or \"streamable-http\") or \"sse\"")
				continue
			}
			if typ != "" && typ != t {
				p.fail(f.keyStart, f.key, "disagrees with %s", typField)
			}
			typ, typField, typAt = t, f.key, f.keyStart
		case "command":
			s.Command, _ = p.str(v, f.key)
			if v.kind == '"' && strings.TrimSpace(s.Command) == "" {
				p.fail(v.start, f.key, "must not be empty")
			}
			cmdAt = f.keyStart
		case "args":
			s.Args = p.strList(v, f.key)
			stdioOnly, stdioOnlyAt = append(stdioOnly, f.key), append(stdioOnlyAt, f.keyStart)
		case "env":
			s.Env = p.strMap(v, f.key, envNameProblem)
			stdioOnly, stdioOnlyAt = append(stdioOnly, f.key), append(stdioOnlyAt, f.keyStart)
		case "cwd":
			s.Cwd, _ = p.str(v, f.key)
			stdioOnly, stdioOnlyAt = append(stdioOnly, f.key), append(stdioOnlyAt, f.keyStart)
		case "url", "httpUrl", "serverUrl":
			if urlAt >= 0 {
				p.fail(f.keyStart, f.key, "the URL is already given as %s", urlField)
				break
			}
			s.URL, _ = p.str(v, f.key)
			urlAt, urlField, urlVal = f.keyStart, f.key, v
		case "allowHttp":
			s.AllowHTTP, _ = p.boolean(v, f.key)
			allowAt = f.keyStart
			httpOnly, httpOnlyAt = append(httpOnly, f.key), append(httpOnlyAt, f.keyStart)
		case "headers":
			s.Headers = p.strMap(v, f.key, headerNameProblem)
			for _, hm := range v.members {
				if strings.ContainsAny(hm.val.str, "\r\n") {
					p.fail(hm.val.start, "headers."+hm.key, "must not contain line breaks")
				}
			}
			httpOnly, httpOnlyAt = append(httpOnly, f.key), append(httpOnlyAt, f.keyStart)
		case "oauth":
			s.OAuth = p.oauth(v)
			oauthAt = f.keyStart
			httpOnly, httpOnlyAt = append(httpOnly, f.key), append(httpOnlyAt, f.keyStart)
		case "timeout", "timeoutMs":
			if alias(&f, "timeout") {
				if d, ok := p.duration(v, f.key, f.key == "timeoutMs"); ok {
					s.Timeout = d
				}
			}
		case "startupTimeout", "startupTimeoutSec":
			if alias(&f, "startupTimeout") {
				s.StartupTimeout, _ = p.duration(v, f.key, false)
			}
		case "toolTimeout", "toolTimeoutSec":
			if alias(&f, "toolTimeout") {
				s.ToolTimeout, _ = p.duration(v, f.key, false)
			}
		case "roots":
			s.Roots = p.strList(v, f.key)
			for i, r := range s.Roots {
				if strings.TrimSpace(r) == "" {
					p.fail(v.elems[i].start, fmt.Sprintf("roots[%d]", i), "must not be empty")
				}
			}
		case "envVars":
			s.EnvVars = p.strList(v, f.key)
			for i, n := range s.EnvVars {
				if msg := envNameProblem(n); msg != "" {
					p.fail(v.elems[i].start, fmt.Sprintf("envVars[%d]", i), "%s", msg)
				}
			}
			stdioOnly, stdioOnlyAt = append(stdioOnly, f.key), append(stdioOnlyAt, f.keyStart)
		case "envHeaders":
			s.EnvHeaders = p.strMap(v, f.key, headerNameProblem)
			for _, hm := range v.members {
				if msg := envNameProblem(hm.val.str); hm.val.kind == '"' && msg != "" {
					p.fail(hm.val.start, "envHeaders."+hm.key, "%s", msg)
				}
			}
			httpOnly, httpOnlyAt = append(httpOnly, f.key), append(httpOnlyAt, f.keyStart)
		case "bearerTokenEnvVar":
			s.BearerTokenEnvVar, _ = p.str(v, f.key)
			if msg := envNameProblem(s.BearerTokenEnvVar); v.kind == '"' && msg != "" {
				p.fail(v.start, f.key, "%s", msg)
			}
			bearerAt = f.keyStart
			httpOnly, httpOnlyAt = append(httpOnly, f.key), append(httpOnlyAt, f.keyStart)
		case "protocolVersion":
			pv, ok := p.str(v, f.key)
			if ok && !slices.Contains(ProtocolVersions, pv) {
				p.fail(v.start, f.key, "must be one of %s", strings.Join(ProtocolVersions, ", "))
				break
			}
			s.ProtocolVersion = pv
		case "shutdownTimeout":
			s.ShutdownTimeout, _ = p.duration(v, f.key, false)
		case "maxMessageBytes":
			if v.kind != '0' {
				p.fail(v.start, f.key, "must be a number of bytes, got %s", v.kindName())
				break
			}
			n, err := strconv.ParseInt(string(p.data[v.start:v.end]), 10, 64)
			if err != nil || n < MinMaxMessageBytes || n > MaxMaxMessageBytes {
				p.fail(v.start, f.key, "must be a whole number of bytes from %d to %d", int64(MinMaxMessageBytes), int64(MaxMaxMessageBytes))
				break
			}
			s.MaxMessageBytes = n
		case "enabled":
			if b, ok := p.boolean(v, f.key); ok {
				enabled = &b
			}
		case "disabled":
			if b, ok := p.boolean(v, f.key); ok {
				disabled = &b
			}
		case "required":
			s.Required, _ = p.boolean(v, f.key)
		case "enabledTools":
			s.EnabledTools = p.strList(v, f.key)
		case "disabledTools":
			s.DisabledTools = p.strList(v, f.key)
		default:
			p.warn(f.keyStart, f.key)
		}
	}

	switch {
	case enabled != nil && disabled != nil && *enabled == *disabled:
		p.fail(e.start, "enabled", "enabled and disabled disagree; keep one")
	case enabled != nil:
		s.Enabled = *enabled
	case disabled != nil:
		s.Enabled = !*disabled
	}

	hasCmd, hasURL := cmdAt >= 0, urlAt >= 0
	switch typ {
	case "":
		switch {
		case hasCmd && hasURL:
			p.fail(urlAt, urlField, "command and url exclude each other: give command (stdio) or url (http), not both")
		case hasCmd:
			typ = TypeStdio
		case hasURL:
			typ = TypeHTTP
		default:
			p.fail(m.keyStart, "", "needs command (a stdio server) or url (an http server)")
		}
	case TypeStdio:
		if !hasCmd {
			p.fail(typAt, typField, "a stdio server needs command")
		}
		if hasURL {
			p.fail(urlAt, urlField, "is for http servers; this one is stdio")
		}
	default:
		if !hasURL {
			p.fail(typAt, typField, "an %s server needs url", typ)
		}
		if hasCmd {
			p.fail(cmdAt, "command", "is for stdio servers; this one is %s", typ)
		}
	}
	s.Type = typ
	if typ == TypeStdio {
		for i, f := range httpOnly {
			p.fail(httpOnlyAt[i], f, "is for http servers; this one is stdio")
		}
	} else if typ != "" {
		for i, f := range stdioOnly {
			p.fail(stdioOnlyAt[i], f, "is for stdio servers; this one is %s", typ)
		}
	}
	// The URL rules, with the entry's allowHttp wherever it stands.
	if urlVal != nil && urlVal.kind == '"' && !strings.Contains(s.URL, "${") {
		if err := checkURL(s.URL, s.AllowHTTP); err != nil {
			p.fail(urlVal.start, urlField, "%v", err)
		}
	}
	// allowHttp is for servers without tokens: none crosses plain http.
	if s.AllowHTTP && !strings.HasPrefix(strings.ToLower(s.URL), "https://") {
		token := oauthAt >= 0 || bearerAt >= 0
		for _, hs := range []map[string]string{s.Headers, s.EnvHeaders} {
			for k := range hs {
				token = token || strings.EqualFold(k, "Authorization")
			}
		}
		if token {
			p.fail(allowAt, "allowHttp", "a token (oauth, bearerTokenEnvVar or an Authorization header) never crosses plain http to another host; use https, or drop the token")
		}
	}
	if oauthAt >= 0 {
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") {
				p.fail(oauthAt, "oauth", "oauth and a static Authorization header exclude each other; keep one")
			}
		}
	}
	if bearerAt >= 0 {
		if oauthAt >= 0 {
			p.fail(bearerAt, "bearerTokenEnvVar", "oauth and bearerTokenEnvVar exclude each other; keep one")
		}
		for _, hs := range []map[string]string{s.Headers, s.EnvHeaders} {
			for k := range hs {
				if strings.EqualFold(k, "Authorization") {
					p.fail(bearerAt, "bearerTokenEnvVar", "bearerTokenEnvVar and an Authorization header exclude each other; keep one")
				}
			}
		}
	}
	for k := range s.EnvHeaders {
		if _, both := s.Headers[k]; both {
			p.fail(m.keyStart, "envHeaders."+k, "the header is also in headers; keep one")
		}
	}
	return s
}

// duration reads a timeout: a number of seconds (of milliseconds when ms)
// more than 0 and at most MaxTimeout.
func (p *entryParser) duration(v *jnode, field string, ms bool) (time.Duration, bool) {
	unit, name := float64(time.Second), "seconds"
	if ms {
		unit, name = float64(time.Millisecond), "milliseconds"
	}
	if v.kind != '0' {
		p.fail(v.start, field, "must be a number of %s, got %s", name, v.kindName())
		return 0, false
	}
	var n float64
	if err := json.Unmarshal(p.data[v.start:v.end], &n); err != nil || math.IsNaN(n) || n <= 0 || n*unit > float64(MaxTimeout) {
		max := MaxTimeout.Seconds()
		if ms {
			max = float64(MaxTimeout.Milliseconds())
		}
		p.fail(v.start, field, "must be more than 0 and at most %d %s", int(max), name)
		return 0, false
	}
	return time.Duration(math.Round(n * unit)), true
}

// oauth reads the "oauth" object.
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
		switch f.key {
		case "client_id":
			o.ClientID, _ = p.str(f.val, field)
		case "client_secret":
			o.ClientSecret, _ = p.str(f.val, field)
		case "scopes":
			o.Scopes = p.strList(f.val, field)
		case "authorization_server", "client_metadata_url":
			u, ok := p.str(f.val, field)
			if !ok {
				break
			}
			if err := checkURL(u, false); err != nil {
				p.fail(f.val.start, field, "%v", err)
			}
			if f.key == "authorization_server" {
				o.AuthorizationServer = u
			} else {
				o.ClientMetadataURL = u
			}
		default:
			p.warn(f.keyStart, field)
		}
	}
	return o
}
