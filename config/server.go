package config

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Transport types of a [Server].
const (
	TypeStdio = "stdio" // a child process speaking newline-delimited JSON-RPC
	TypeHTTP  = "http"  // streamable HTTP ("streamable-http" in a file is the same)
	TypeSSE   = "sse"   // the legacy HTTP+SSE transport of 2024-11-05
)

// Scopes of a [Server]: the file it was read from.
const (
	ScopeUser    = "user"    // <home>/.mcp.json
	ScopeProject = "project" // ./.mcp.json
)

// ProtocolVersions are the MCP revisions a definition may pin with
// "protocolVersion", newest first (protocol.SupportedVersions; a test
// keeps the two lists equal).
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Timeouts of a [Server].
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 300 * time.Second

	// DefaultShutdownTimeout is each wait of a server's stop (see
	// Server.ShutdownTimeout) when shutdownTimeout is not given; it may be
	// MaxTimeout at most.
	DefaultShutdownTimeout = 2 * time.Second
)

// Message sizes of a [Server]: the largest message (a stdio line, an HTTP
// body, an SSE event) read from it, unless maxMessageBytes says otherwise.
const (
	DefaultMaxMessageBytes = 256 << 20
	// DefaultMaxRetries bounds a server's reconnects and stream
	// resumptions in a row when maxRetries is not given.
	DefaultMaxRetries  = 5
	MinMaxMessageBytes = 1 << 10
	MaxMaxMessageBytes = 1 << 40
)

// A Server is one entry of a .mcp.json file, as written (unexpanded).
//
// An entry whose structure is wrong still gives a Server, with Err set and
// the fields that could be read filled in; the other entries of its file
// stay usable.
type Server struct {
	Name string
	// Source is the absolute path of the file that defines the server, as
	// it was reached: symbolic links are not resolved, so that a folder
	// whose .mcp.json links to another folder's file is a place of its own
	// (approvals are per source).
	Source string
	Scope  string // ScopeUser or ScopeProject
	Line   int    // position of the entry's name in Source (1-based; Col counts bytes)
	Col    int

	Type    string // TypeStdio, TypeHTTP or TypeSSE ("" only when Err says why)
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	Headers map[string]string
	OAuth   *OAuth // nil when the entry has no "oauth"
	// HeadersHelper is a command line ("headersHelper", run by the
	// shell in the folder of the defining file) that prints headers to
	// send, "Name: value" a line or one JSON object: tokens an
	// organization's own tool mints. It runs before the first request and
	// again after a 401; the approval covers it.
	HeadersHelper string
	// TLS holds the files of "tls": a CA bundle to trust and a client
	// certificate (mTLS); nil when the entry has none.
	TLS *TLS

	Timeout time.Duration // per request; DefaultTimeout when not given ("timeout" in seconds, or "timeoutMs")
	// StartupTimeout bounds the start (connect or spawn, initialize, the
	// first list): "startupTimeout" (or "startupTimeoutSec") in seconds; 0
	// when not given (the caller's default).
	StartupTimeout time.Duration
	// ToolTimeout bounds each tool call: "toolTimeout" (or
	// "toolTimeoutSec") in seconds; 0 when not given (Timeout).
	ToolTimeout time.Duration
	// Roots are the directories offered to the server as its roots
	// ("roots"; relative to the file's directory); none when not given.
	Roots []string
	// EnvVars are names of variables of the environment passed through to
	// a stdio server ("envVars"; those set).
	EnvVars []string
	// EnvHeaders are HTTP headers whose values come from variables
	// ("envHeaders": header name → variable name).
	EnvHeaders map[string]string
	// BearerTokenEnvVar names a variable whose value is sent as
	// "Authorization: Bearer <value>" ("bearerTokenEnvVar").
	BearerTokenEnvVar string
	// AllowHTTP ("allowHttp") allows plain http to a host that is not
	// loopback (a CI service container, a compose network): the person
	// opted in, and is warned each time. Never with a token: oauth, an
	// Authorization header or bearerTokenEnvVar then are an error.
	AllowHTTP bool
	// ProtocolVersion pins the MCP revision spoken ("protocolVersion"; one
	// of ProtocolVersions); "" lets the client detect the server's era.
	ProtocolVersion string
	// ShutdownTimeout is each wait of a server's stop: for a stdio server
	// after closing its stdin and after SIGTERM, for an HTTP server the
	// DELETE that ends its session ("shutdownTimeout", seconds; 0 when
	// not given: DefaultShutdownTimeout).
	ShutdownTimeout time.Duration
	// MaxMessageBytes is the largest message read from the server
	// ("maxMessageBytes"; 0 when not given: DefaultMaxMessageBytes).
	MaxMessageBytes int64
	// MaxRetries bounds the reconnects in a row after the server failed
	// and the resumptions of a broken stream ("maxRetries"; 0 when not
	// given: DefaultMaxRetries; -1 for 0 or less: none, fail fast).
	MaxRetries int
	Enabled    bool // "enabled", or not "disabled"; true when neither is given
	Required   bool // "required": the caller should fail when this server fails

	// ImportedFrom ("importedFrom") names the project-scoped file of
	// another client (a repository's .cursor/mcp.json, Claude Code's
	// local servers) that `mcpwire import` took the entry from: it is
	// someone else's text wherever it is written ([Server.ProjectText]).
	ImportedFrom string

	// Registry ("registry") is the provenance of an entry that
	// `mcpwire install` took from an MCP Registry: its url, name,
	// version, publishedAt, via, artifact and digest (config/registry
	// reads it). Covered by the digest as written.
	Registry map[string]string

	// Pin is how the server's tool surface is pinned at approval ("pin":
	// PinEnforce, PinWarn or PinOff; "" when not given: the home's
	// default, else PinEnforce). NewTools is what happens to a tool the
	// pinned surface does not hold ("newTools": NewToolsOffer or
	// NewToolsHold; "" when not given). Both are covered by the digest.
	Pin, NewTools string
	// Prefix replaces mcp__<name> in the names the manager offers the
	// server's tools under ("prefix": <prefix>__<tool>); "" when not
	// given.
	Prefix string
	// Sandbox is the stdio server's "sandbox" (nil when not given).
	Sandbox *Sandbox

	EnabledTools  []string // "enabledTools": when non-empty, only these tools are offered
	DisabledTools []string // "disabledTools": these tools are never offered

	// Raw is the entry exactly as written in the file.
	Raw json.RawMessage

	// Err is non-nil when the server cannot be used. A *FieldError means the
	// entry itself is wrong (it cannot be approved either); an *ExpandError
	// means a variable of an enabled entry is unset. Callers show it and
	// refuse to connect.
	Err error

	// Expanded is the definition with ${VAR} references expanded, set by
	// Load for enabled entries that expanded cleanly; nil otherwise.
	Expanded *Expanded
}

// OAuth holds an entry's "oauth" settings. Every field is optional.
type OAuth struct {
	ClientID            string   `json:"client_id,omitempty"`            // a pre-registered client
	ClientSecret        string   `json:"client_secret,omitempty"`        // a secret, never shown
	Scopes              []string `json:"scopes,omitempty"`               // scopes to ask for
	AuthorizationServer string   `json:"authorization_server,omitempty"` // overrides discovery
	ClientMetadataURL   string   `json:"client_metadata_url,omitempty"`  // a client ID metadata document
	// CallbackPort fixes the loopback port of the login's callback
	// (redirect_uri http://127.0.0.1:PORT/callback); 0 picks one.
	CallbackPort int `json:"callbackPort,omitempty"`
	// AuthServerMetadataURL is the authorization server's metadata
	// document, read instead of discovering it.
	AuthServerMetadataURL string `json:"authServerMetadataUrl,omitempty"`
}

// TLS holds an entry's "tls" settings: files, relative to the folder of
// the defining file. CA adds to the system's roots (which SSL_CERT_FILE
// and SSL_CERT_DIR already change); Cert and Key go together.
type TLS struct {
	CA   string // PEM: certificates to trust besides the system's
	Cert string // PEM: the client certificate (chain) to present
	Key  string // PEM: its private key
}

// Path returns p of the definition s made absolute against the folder of
// its file; "" stays "".
func (s *Server) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || s.Source == "" {
		return p
	}
	return filepath.Join(filepath.Dir(s.Source), p)
}

// Expanded is the part of a definition that ${VAR} expansion applies to,
// after expansion. Cwd is absolute: a relative cwd is taken relative to the
// directory of the file that defines the server.
type Expanded struct {
	Command string
	Args    []string
	Env     map[string]string // env, with the variables of envVars that are set
	Cwd     string
	URL     string
	Headers map[string]string // headers, with envHeaders and bearerTokenEnvVar
	Roots   []string          // absolute
	// SandboxRead and SandboxWrite are the paths of Sandbox, ${VAR}
	// and ~ expanded (relative ones relative to the folder the server
	// runs in).
	SandboxRead, SandboxWrite []string
	// Vars are the variables whose values the expansion took from the
	// environment (not from a default), by name: ${VAR} references,
	// envVars, envHeaders, bearerTokenEnvVar. They are secrets, whatever
	// the file (see [Server.SecretValues]).
	Vars map[string]string
}

// WorkDir is the folder a stdio server runs in, as the approval digest
// covers it (unexpanded): its cwd, relative to the folder of the defining
// file; without a cwd, the project folder for a project entry, and ""
// (the caller's working directory) for a user entry. "" for other
// transports.
func (s *Server) WorkDir() string {
	if s.Type != TypeStdio || s.Source == "" {
		return ""
	}
	dir := filepath.Dir(s.Source)
	switch {
	case s.Cwd != "" && filepath.IsAbs(s.Cwd):
		return s.Cwd
	case s.Cwd != "":
		return filepath.Join(dir, s.Cwd)
	case s.Scope == ScopeProject:
		return dir
	}
	return ""
}

// ProjectText reports whether the definition is someone else's text, to
// be reviewed as such: an entry of a project file, or one imported from a
// project-scoped file of another client ([Server.ImportedFrom]), even in
// the user's own file. Its literal values are shown (none is a secret of
// the user's), credentials masked ([ReviewJSON]), and the warnings are a
// project's ([ReviewWarnings]). Only ever more caution: a project file
// that says importedFrom changes nothing.
func (s *Server) ProjectText() bool {
	return s.Scope == ScopeProject || s.ImportedFrom != ""
}

// Valid reports whether the entry's structure is right, whatever its
// variables are: it can be approved.
func (s *Server) Valid() bool {
	_, bad := s.Err.(*FieldError)
	return !bad
}

// Target is what the server runs or reaches, for display: the command and
// its arguments for stdio (unexpanded, so ${VAR} references show, not
// their values), or the URL reduced to scheme://host:port/path.
func (s *Server) Target() string {
	if s.Type == TypeStdio || (s.Type == "" && s.Command != "") {
		t := s.Command
		for _, a := range s.Args {
			t += " " + a
		}
		return t
	}
	return safe.RedactURL(s.URL)
}
