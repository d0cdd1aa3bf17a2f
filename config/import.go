package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// The clients whose MCP configuration [Import] reads, by the names
// `mcpwire import --from` takes.
const (
	ClientClaudeDesktop = "claude-desktop"
	ClientClaudeCode    = "claude-code"
	ClientCursor        = "cursor"
	ClientVSCode        = "vscode"
	ClientWindsurf      = "windsurf"
	ClientGemini        = "gemini"
	ClientZut           = "zut"
	ClientCodex         = "codex" // TOML: [mcp_servers.NAME]
	ClientBlitz         = "blitz" // TOML: [[mcp.servers]] with name; .agents/mcp_config.json
	ClientOrb           = "orb"   // settings.json: mcpServers
)

// ImportClients lists the clients [Import] knows, in a stable order.
func ImportClients() []string {
	return []string{ClientClaudeDesktop, ClientClaudeCode, ClientCursor, ClientVSCode, ClientWindsurf, ClientGemini, ClientZut,
		ClientCodex, ClientBlitz, ClientOrb}
}

// ImportPlaces says where a client keeps its configuration: its user
// files and its project files (relative to the project folder).
type ImportPlaces struct {
	User    []string
	Project []string
}

// ImportLocation is what [ImportPaths] needs to know of the machine.
type ImportLocation struct {
	GOOS     string              // runtime.GOOS
	UserHome string              // the user's home folder
	Dir      string              // the project folder (the working directory)
	Getenv   func(string) string // APPDATA, XDG_CONFIG_HOME, ZUT_HOME, XDG_STATE_HOME
}

// ImportPaths returns the files client keeps its MCP servers in on this
// machine, user files first, then the project's: the places each client
// documents.
//
//	claude-desktop  macOS ~/Library/Application Support/Claude/claude_desktop_config.json,
//	                Windows %APPDATA%\Claude\claude_desktop_config.json,
//	                Linux $XDG_CONFIG_HOME/Claude/claude_desktop_config.json (~/.config)
//	claude-code     ~/.claude.json: "mcpServers" (user scope) and
//	                "projects"[<project folder>]."mcpServers" (local scope);
//	                its project scope is .mcp.json, mcpwire's own
//	cursor          ~/.cursor/mcp.json, <project>/.cursor/mcp.json
//	vscode          the user profile's mcp.json (macOS ~/Library/Application Support/Code/User,
//	                Windows %APPDATA%\Code\User, Linux $XDG_CONFIG_HOME/Code/User),
//	                <project>/.vscode/mcp.json
//	windsurf        ~/.codeium/windsurf/mcp_config.json
//	gemini          ~/.gemini/settings.json, <project>/.gemini/settings.json
//	zut             $ZUT_HOME/mcp.json (else $XDG_STATE_HOME/zut, else macOS
//	                ~/Library/Application Support/zut, Windows %APPDATA%\zut,
//	                others ~/.local/state/zut), <project>/.zut/mcp.json
//	codex           $CODEX_HOME/config.toml (else ~/.codex/config.toml),
//	                <project>/.codex/config.toml
//	blitz           $BLITZ_HOME/config.toml (else ~/.blitz/config.toml),
//	                <project>/.blitz/config.toml, <project>/.agents/mcp_config.json
//	orb             ~/.orb/settings.json, <project>/.orb/settings.json
func ImportPaths(client string, loc ImportLocation) ([]string, error) {
	getenv := loc.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	home := loc.UserHome
	appData := getenv("APPDATA")
	if appData == "" {
		appData = filepath.Join(home, "AppData", "Roaming")
	}
	xdgConfig := getenv("XDG_CONFIG_HOME")
	if xdgConfig == "" {
		xdgConfig = filepath.Join(home, ".config")
	}
	appSupport := filepath.Join(home, "Library", "Application Support")
	osDir := func(mac, win, other string) string {
		switch loc.GOOS {
		case "darwin":
			return mac
		case "windows":
			return win
		}
		return other
	}
	var user, project []string
	switch client {
	case ClientClaudeDesktop:
		user = []string{filepath.Join(osDir(filepath.Join(appSupport, "Claude"), filepath.Join(appData, "Claude"), filepath.Join(xdgConfig, "Claude")), "claude_desktop_config.json")}
	case ClientClaudeCode:
		user = []string{filepath.Join(home, ".claude.json")}
	case ClientCursor:
		user = []string{filepath.Join(home, ".cursor", "mcp.json")}
		project = []string{filepath.Join(".cursor", "mcp.json")}
	case ClientVSCode:
		user = []string{filepath.Join(osDir(filepath.Join(appSupport, "Code", "User"), filepath.Join(appData, "Code", "User"), filepath.Join(xdgConfig, "Code", "User")), "mcp.json")}
		project = []string{filepath.Join(".vscode", "mcp.json")}
	case ClientWindsurf:
		user = []string{filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")}
	case ClientGemini:
		user = []string{filepath.Join(home, ".gemini", "settings.json")}
		project = []string{filepath.Join(".gemini", "settings.json")}
	case ClientZut:
		zutHome := getenv("ZUT_HOME")
		switch {
		case zutHome != "":
		case getenv("XDG_STATE_HOME") != "":
			zutHome = filepath.Join(getenv("XDG_STATE_HOME"), "zut")
		default:
			zutHome = osDir(filepath.Join(appSupport, "zut"), filepath.Join(appData, "zut"), filepath.Join(home, ".local", "state", "zut"))
		}
		user = []string{filepath.Join(zutHome, "mcp.json")}
		project = []string{filepath.Join(".zut", "mcp.json")}
	case ClientCodex:
		user = []string{filepath.Join(orDefault(getenv("CODEX_HOME"), filepath.Join(home, ".codex")), "config.toml")}
		project = []string{filepath.Join(".codex", "config.toml")}
	case ClientBlitz:
		user = []string{filepath.Join(orDefault(getenv("BLITZ_HOME"), filepath.Join(home, ".blitz")), "config.toml")}
		project = []string{filepath.Join(".blitz", "config.toml"), filepath.Join(".agents", "mcp_config.json")}
	case ClientOrb:
		user = []string{filepath.Join(home, ".orb", "settings.json")}
		project = []string{filepath.Join(".orb", "settings.json")}
	default:
		return nil, fmt.Errorf("unknown client %q (known: %s)", client, strings.Join(ImportClients(), ", "))
	}
	out := user
	for _, p := range project {
		out = append(out, filepath.Join(loc.Dir, p))
	}
	return out, nil
}

// orDefault is v, or def when v is "".
func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// ImportEntry is an imported definition, as it is written to a .mcp.json
// file.
type ImportEntry struct {
	Entry // what add writes (no oauth: no client imports one)
	// ImportedFrom is the client's file, for an entry of project origin
	// ([OriginProject]): written with the entry, it keeps it reviewed as
	// the project's text ([Server.ImportedFrom]).
	ImportedFrom   string            `json:"importedFrom,omitempty"`
	EnvVars        []string          `json:"envVars,omitempty"`
	EnvHeaders     map[string]string `json:"envHeaders,omitempty"`
	StartupTimeout float64           `json:"startupTimeout,omitempty"` // seconds
	ToolTimeout    float64           `json:"toolTimeout,omitempty"`    // seconds
	Disabled       bool              `json:"disabled,omitempty"`
	EnabledTools   []string          `json:"enabledTools,omitempty"`
	DisabledTools  []string          `json:"disabledTools,omitempty"`
}

// The origins of an imported definition: whose text it is.
const (
	// OriginUser: the user's own file of the client (its user scope).
	OriginUser = "user"
	// OriginProject: a project's (a repository's .cursor/mcp.json or
	// .vscode/mcp.json, Claude Code's local servers, a file given by
	// hand): someone else's text, reviewed as a project's wherever it is
	// written.
	OriginProject = "project"
)

// originOf is the origin of an entry of a client's scope: only the
// client's user scope is the user's own text.
func originOf(scope string) string {
	if scope == "user" {
		return OriginUser
	}
	return OriginProject
}

// Imported is one server read from another client's configuration.
type Imported struct {
	Name   string // the name it gets here (made valid when it was not)
	Source string // the file it came from
	Scope  string // where in the client: "user", "project", "local" (claude-code) or "file"
	// Origin is whose text it is, OriginUser or OriginProject (every
	// scope but the client's user scope): an entry of project origin
	// carries Entry.ImportedFrom, and its preview masks credentials as a
	// project's review does ([ImportEntry.Reviewed]).
	Origin string
	Entry  ImportEntry
	// Notes say what could not be carried over as it was, and what
	// changed on the way (a renamed server, a translated variable).
	Notes []string
	// Skip, when not empty, says why the server cannot be imported.
	Skip string
}

// ImportOptions are what [Import] needs besides the file.
type ImportOptions struct {
	Scope    string // the file's scope in the client: "user", "project" or "file" (given by hand)
	Dir      string // the project folder: claude-code's key in "projects", ${workspaceFolder}
	UserHome string // for ${userHome}
	// Origin says whose text the file is, OriginUser or OriginProject;
	// "" reads it from the scope (only the client's user scope is the
	// user's own). A file given by hand that is the client's user file
	// is the user's.
	Origin string
}

// Import reads the MCP servers of a client's configuration file (data,
// read from path), in the client's own format, and translates each to a
// definition of mcpwire's. It fails only when the file is not JSON (with
// comments and trailing commas allowed) or not an object; an entry that
// cannot be translated comes back with Skip set.
func Import(client, path string, data []byte, opts ImportOptions) ([]*Imported, error) {
	if !slices.Contains(ImportClients(), client) {
		return nil, fmt.Errorf("unknown client %q (known: %s)", client, strings.Join(ImportClients(), ", "))
	}
	if strings.EqualFold(filepath.Ext(path), ".toml") {
		return importTOML(client, path, data, opts)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(StripJSONC(data)), &root); err != nil || root == nil {
		if err == nil {
			err = fmt.Errorf("the top level is not an object")
		}
		return nil, fmt.Errorf("%s: not a %s configuration: %v", path, client, err)
	}
	type group struct {
		scope string
		raw   json.RawMessage
	}
	var groups []group
	scope := opts.Scope
	switch {
	case client == ClientVSCode && root["servers"] != nil:
		groups = append(groups, group{scope, root["servers"]})
	case client == ClientVSCode && root["mcp"] != nil: // an older settings.json
		var mcp struct {
			Servers json.RawMessage `json:"servers"`
		}
		if err := json.Unmarshal(root["mcp"], &mcp); err != nil {
			return nil, fmt.Errorf("%s: \"mcp\" is not an object: %v", path, err)
		}
		groups = append(groups, group{scope, mcp.Servers})
	default:
		if root["mcpServers"] != nil {
			groups = append(groups, group{scope, root["mcpServers"]})
		}
	}
	if client == ClientClaudeCode && root["projects"] != nil && opts.Dir != "" {
		// Local scope: the servers of this project folder only.
		var projects map[string]struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(root["projects"], &projects) == nil {
			for key, p := range projects {
				if p.MCPServers != nil && samePath(key, opts.Dir) {
					groups = append(groups, group{"local", p.MCPServers})
				}
			}
		}
	}
	excluded := map[string]bool{}
	if client == ClientGemini {
		var mcp struct {
			Excluded []string `json:"excluded"`
		}
		if root["mcp"] != nil && json.Unmarshal(root["mcp"], &mcp) == nil {
			for _, n := range mcp.Excluded {
				excluded[n] = true
			}
		}
	}
	var out []*Imported
	for _, g := range groups {
		names, entries, err := objectInOrder(g.raw)
		if err != nil {
			return nil, fmt.Errorf("%s: the servers are not an object: %v", path, err)
		}
		for i, name := range names {
			im := importEntry(client, path, g.scope, name, entries[i], opts)
			if excluded[name] {
				im.Entry.Disabled = true
				im.Notes = append(im.Notes, "disabled: Gemini CLI's mcp.excluded names it")
			}
			out = append(out, im)
		}
	}
	return out, nil
}

// samePath compares two folder paths as the client would have written
// them (Claude Code keys projects by absolute path).
func samePath(a, b string) bool {
	return filepath.Clean(filepath.FromSlash(a)) == filepath.Clean(filepath.FromSlash(b))
}

// objectInOrder returns the members of a JSON object in file order.
func objectInOrder(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not an object")
	}
	var names []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		names = append(names, tok.(string))
		vals = append(vals, v)
	}
	return names, vals, nil
}

// importEntry translates one entry of a client's file.
func importEntry(client, path, scope, name string, raw json.RawMessage, opts ImportOptions) *Imported {
	im := &Imported{Name: name, Source: path, Scope: scope, Origin: originOf(scope)}
	if opts.Origin != "" && scope == opts.Scope {
		im.Origin = opts.Origin
	}
	if im.Origin == OriginProject {
		im.Entry.ImportedFrom = path
	}
	if err := ValidName(name); err != nil {
		im.Name = validNameFrom(name)
		im.Notes = append(im.Notes, fmt.Sprintf("renamed from %q (%v)", name, err))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		im.Skip = "the entry is not an object"
		return im
	}
	t := &translator{client: client, scope: scope, dir: opts.Dir, userHome: opts.UserHome, im: im}
	e := &im.Entry
	var typ, url, httpURL string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		v := fields[k]
		var err error
		switch k {
		case "type", "transport":
			err = json.Unmarshal(v, &typ)
		case "command":
			err = json.Unmarshal(v, &e.Command)
			e.Command = t.vars("command", e.Command)
		case "args":
			err = json.Unmarshal(v, &e.Args)
			for i := range e.Args {
				e.Args[i] = t.vars("args", e.Args[i])
			}
		case "env":
			err = json.Unmarshal(v, &e.Env)
			for ek, ev := range e.Env {
				e.Env[ek] = t.vars("env "+ek, ev)
			}
		case "cwd":
			err = json.Unmarshal(v, &e.Cwd)
			e.Cwd = t.vars("cwd", e.Cwd)
		case "url", "serverUrl":
			err = json.Unmarshal(v, &url)
			url = t.vars(k, url)
		case "httpUrl":
			err = json.Unmarshal(v, &httpURL)
			httpURL = t.vars(k, httpURL)
		case "headers":
			err = json.Unmarshal(v, &e.Headers)
			for hk, hv := range e.Headers {
				e.Headers[hk] = t.vars("header "+hk, hv)
			}
		case "disabled":
			err = json.Unmarshal(v, &e.Disabled)
		case "enabled":
			var on bool
			err = json.Unmarshal(v, &on)
			e.Disabled = !on
		case "envVars":
			err = json.Unmarshal(v, &e.EnvVars)
		case "envHeaders":
			err = json.Unmarshal(v, &e.EnvHeaders)
		case "bearerTokenEnvVar":
			err = json.Unmarshal(v, &e.BearerTokenEnvVar)
		case "startupTimeout", "startupTimeoutSec", "startupTimeoutMs", "toolTimeout", "toolTimeoutSec", "toolTimeoutMs":
			err = t.timeout(k, v)
		case "enabledTools", "includeTools":
			err = json.Unmarshal(v, &e.EnabledTools)
		case "disabledTools", "excludeTools":
			err = json.Unmarshal(v, &e.DisabledTools)
		case "timeout", "requestTimeout":
			var n float64
			if err = json.Unmarshal(v, &n); err == nil && n > 0 {
				if client == ClientGemini {
					n /= 1000 // milliseconds
				}
				e.Timeout = min(max(n, 1), MaxTimeout.Seconds())
				if e.Timeout != n {
					im.Notes = append(im.Notes, fmt.Sprintf("%s: %g s is out of mcpwire's range; %g s instead", k, n, e.Timeout))
				}
			}
		case "envFile":
			im.Notes = append(im.Notes, "envFile is not read by mcpwire: copy its variables into env (as ${VAR} references, to keep them out of the file)")
		case "trust", "autoApprove", "alwaysAllow":
			im.Notes = append(im.Notes, k+" is not carried over: mcpwire asks for approval of the definition, once")
		default:
			im.Notes = append(im.Notes, fmt.Sprintf("field %q is not carried over", k))
		}
		if err != nil {
			im.Skip = fmt.Sprintf("field %q has the wrong type: %v", k, err)
			return im
		}
	}
	switch typ {
	case "", "stdio", "http", "sse":
	case "streamable-http", "streamableHttp", "streamable_http":
		typ = TypeHTTP
	default:
		im.Skip = fmt.Sprintf("transport %q is not one mcpwire speaks", typ)
		return im
	}
	switch {
	case httpURL != "":
		e.URL, e.Type = httpURL, TypeHTTP
	case url != "" && client == ClientGemini && typ == "":
		e.URL, e.Type = url, TypeSSE // Gemini CLI: url is the SSE transport, httpUrl streamable HTTP
	case url != "":
		e.URL, e.Type = url, typ
	default:
		e.Type = typ
	}
	if e.Type == TypeStdio || (e.Type == "" && e.Command != "") {
		e.Type = "" // stdio is the default with a command
	}
	if e.Type == TypeHTTP {
		e.Type = "" // http is the default with a url
	}
	switch {
	case e.Command == "" && e.URL == "":
		im.Skip = "it has neither a command nor a url"
	case e.Command != "" && e.URL != "":
		im.Skip = "it has both a command and a url"
	}
	if e.Cwd != "" && !filepath.IsAbs(e.Cwd) && !strings.HasPrefix(e.Cwd, "${") {
		base := filepath.Dir(path)
		if scope == "project" || scope == "local" {
			base = opts.Dir
		}
		e.Cwd = filepath.Join(base, e.Cwd)
		im.Notes = append(im.Notes, "cwd made absolute: "+e.Cwd)
	}
	return im
}

// validNameFrom makes a valid server name of name: other characters
// become "-".
func validNameFrom(name string) string {
	b := []byte(name)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || i > 0 && (c == '-' || c == '.')
		if !ok {
			b[i] = '-'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 || b[0] == '-' {
		b = append([]byte("s"), b...)
	}
	return string(b)
}

// A translator turns a client's variable syntax into mcpwire's ${VAR}.
type translator struct {
	client, scope, dir, userHome string
	im                           *Imported
}

// replaceRefs replaces each ${…} reference of v by what repl makes of
// it (given the whole reference and what is between the braces).
func replaceRefs(v string, repl func(ref, inner string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		b.WriteString(repl(v[i:i+j+1], v[i+2:i+j]))
		v = v[i+j+1:]
	}
}

// bracedDollars writes each $NAME of v as ${NAME}.
func bracedDollars(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '$' {
			b.WriteByte(v[i])
			continue
		}
		j := i + 1
		for j < len(v) && (v[j] == '_' || v[j] >= 'A' && v[j] <= 'Z' || v[j] >= 'a' && v[j] <= 'z' || j > i+1 && v[j] >= '0' && v[j] <= '9') {
			j++
		}
		if j == i+1 {
			b.WriteByte('$')
			continue
		}
		b.WriteString("${" + v[i+1:j] + "}")
		i = j - 1
	}
	return b.String()
}

// vars translates the references in one value of field.
func (t *translator) vars(field, v string) string {
	switch t.client {
	case ClientClaudeCode, ClientZut:
		return v // ${VAR} and ${VAR:-default}, as mcpwire's (zut expands them too)
	case ClientGemini:
		// $VAR and ${VAR} (Gemini CLI expands both).
		if strings.Contains(v, "$") && !strings.Contains(v, "${") {
			return bracedDollars(v)
		}
		return v
	case ClientCursor, ClientVSCode, ClientWindsurf:
	default:
		if strings.Contains(v, "${") {
			t.note("%s: %s does not expand variables, but mcpwire will expand the ${…} in it", field, t.client)
		}
		return v
	}
	return replaceRefs(v, func(ref, inner string) string {
		kind, arg, _ := strings.Cut(inner, ":")
		switch {
		case kind == "env" && validVarName(arg):
			return "${" + arg + "}"
		case inner == "userHome" && t.userHome != "":
			return t.userHome
		case inner == "workspaceFolder" || inner == "workspaceRoot":
			if t.scope == "project" || t.scope == "local" {
				return t.dir
			}
			t.note("%s: ${%s} of a user file has no folder here; replaced by the working directory %s", field, inner, t.dir)
			return t.dir
		case inner == "workspaceFolderBasename":
			return filepath.Base(t.dir)
		case inner == "pathSeparator" || inner == "/":
			return string(filepath.Separator)
		case kind == "input" && arg != "":
			name := envNameFrom(arg)
			t.note("%s: ${input:%s} asked you in VS Code; here it is ${%s}: set that variable", field, arg, name)
			return "${" + name + "}"
		case validVarName(inner):
			return ref
		}
		t.note("%s: %s cannot be expanded by mcpwire; edit the definition after the import", field, ref)
		return ref
	})
}

// timeout reads startupTimeout or toolTimeout (seconds; …Ms in
// milliseconds) into the entry, within mcpwire's range.
func (t *translator) timeout(k string, v json.RawMessage) error {
	var n float64
	if err := json.Unmarshal(v, &n); err != nil || n <= 0 {
		return err
	}
	if strings.HasSuffix(k, "Ms") {
		n /= 1000
	}
	got := min(max(n, 0.001), MaxTimeout.Seconds())
	if got != n {
		t.note("%s: %g s is out of mcpwire's range; %g s instead", k, n, got)
	}
	if strings.HasPrefix(k, "startup") {
		t.im.Entry.StartupTimeout = got
	} else {
		t.im.Entry.ToolTimeout = got
	}
	return nil
}

func (t *translator) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(t.im.Notes, n) {
		t.im.Notes = append(t.im.Notes, n)
	}
}

// envNameFrom makes an environment variable name of an input id:
// upper case, other characters "_".
func envNameFrom(id string) string {
	b := []byte(strings.ToUpper(id))
	for i, c := range b {
		if !(c == '_' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
