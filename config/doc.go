// Package config reads, checks, expands, approves and edits the server
// definitions of mcpwire (.mcp.json files). It imports nothing of mcpwire.
//
// # Files
//
// The home folder is [Home]: $MCPWIRE_HOME, else $XDG_CONFIG_HOME/mcpwire,
// else ~/.config/mcpwire. [Load] reads <home>/.mcp.json (scope "user") and
// <dir>/.mcp.json (scope "project"; the working directory only, no parent
// search). A missing or empty file holds no servers. A project entry
// replaces the user entry of the same name, whole. Approvals live in
// <home>/settings.json, their key in <home>/mcp-approval.key.
//
// # Definitions
//
// A file is Claude's format, {"mcpServers": {"<name>": {…}}}; VS Code's
// root "servers" is read too (both may be present; a name in both is
// defined twice). An entry has (docs/config.md is the reference, member
// by member, read from the table of members in members.go by a test):
//
//	type        "stdio" (default with command), "http" (default with url;
//	            "streamable-http" and "streamableHttp" are the same) or "sse" (the legacy
//	            HTTP+SSE transport); "transport" is an alias
//	command, args, env, cwd              stdio only
//	url (alias httpUrl, serverUrl)        http and sse only
//	headers, oauth {client_id, client_secret, scopes,
//	            authorization_server, client_metadata_url}   http and sse only
//	timeout     seconds per request, more than 0, at most 300; default 30
//	            (timeoutMs: the same in milliseconds)
//	startupTimeout (startupTimeoutSec)   seconds for the start: connect,
//	            initialize, first list; default: the caller's
//	toolTimeout (toolTimeoutSec)         seconds per tool call; default timeout
//	roots       directories offered as roots (relative to the file's
//	            folder); none unless given
//	envVars     names of host variables passed through           stdio only
//	envHeaders  {header: VAR}: header values from variables      http and sse only
//	bearerTokenEnvVar  VAR: "Authorization: Bearer $VAR"          http and sse only
//	allowHttp   true: plain http to a host that is not loopback (a CI
//	            service container); never with oauth, an Authorization
//	            header or bearerTokenEnvVar                  http and sse only
//	enabled / disabled                   default enabled
//	required    the caller should fail when this server fails
//	enabledTools, disabledTools          tool filters
//
// Every entry is checked, enabled or not. A wrong entry keeps a [Server]
// whose Err is a [*FieldError] naming file, line:column, server and field;
// the other entries of the file stay usable. A file that is not JSON, whose
// top level or mcpServers is not an object, fails as a whole ([*FileError]).
// Rejected: bad names ([ValidName]), wrong types, command and url together,
// neither of them, a name defined twice in one file (duplicate JSON keys),
// a member given twice in an entry, plain http to anything but localhost,
// 127.0.0.0/8 and [::1] (unless allowHttp), a user name or password in a URL, oauth together
// with a static Authorization header, a timeout out of range. Unknown
// fields are a warning each (Config.Warnings), never silent, never fatal.
//
// # Expansion
//
// ${VAR} and ${VAR:-default} are expanded once, in command, each arg, cwd,
// env values, url and header values, for enabled valid entries only
// ([Server.ExpandLookup]; Load stores the result in Server.Expanded). A
// variable set to the empty string expands to ""; ${VAR:-default} takes
// the default when VAR is unset only (a variable set to "" stays empty,
// magi-code's rule, unlike a shell's :-); an unset
// variable without a default fails the server alone with an
// [*ExpandError] naming field and variable, never a value. The variables
// named by envVars, envHeaders and bearerTokenEnvVar are read at the same
// time. A value
// that contains ${X} after expansion stays literal (no recursion). $VAR
// without braces, $$ and a lone $ are kept as written; there is no escape
// for a literal "${". The URL rules are checked again after expansion.
// A relative cwd is relative to the directory of the defining file.
//
// The environment a stdio server gets (which host variables pass) is the
// transport's policy (transport.ChildEnv), not this package's.
//
// # Approvals
//
// A definition runs only once approved. [Digest] is the hex HMAC-SHA-256,
// keyed by [LoadKey]'s 32 random bytes, over a canonical form of the
// unexpanded definition (type, command, args in order, env, cwd, url,
// headers, timeouts, oauth settings, roots, envVars, envHeaders,
// bearerTokenEnvVar, and every other member as written, so
// that fields added later are covered too; defaults filled in, aliases
// resolved, member order and whitespace irrelevant; enabled/disabled,
// required and the tool filters left out), the source (the file as
// reached: a .mcp.json that is a symbolic link to another folder's file is
// a source of its own), the name and the folder the server runs in
// ([Server.WorkDir]). So no folder can borrow another's approval. [Approvals]
// keeps records in settings.json at
// capabilities.mcp_approvals[<source>][<name>] = {"version":1,"digest":"…"},
// or false when revoked, and keeps every other key of the file as written.
// [Approvals.State] gives an [ApprovalState]; approvals fail closed: when
// the key or settings.json cannot be read or created, every state is
// Unavailable and [Approvals.Err] says why. [Approvals.Approve] reads the
// defining file again and refuses with a [*StaleError] when the definition
// is no longer the one loaded (what the user was shown).
//
// # Edits
//
// [AddServer], [RemoveServer] and [SetEnabled] change one entry and keep
// every other byte of the file: other entries, their order, their layout,
// unknown fields. A new entry is laid out like its neighbours. Writes go
// through safe.WritePrivate: a temporary file in the same folder, fsync
// and rename, with mode 0600 (the folder is created 0700). A file that is
// not valid JSON is never overwritten.
//
// # Secrets
//
// [Server.Secrets] lists every secret of a definition (env values, header
// values, bearer tokens and other credentials in headers, the OAuth client
// secret, URL query values; as written and as expanded).
// [Config.Redactor] is a safe.Redactor for them. [MaskedJSON] is the entry
// as written with those values masked, for `mcpwire get`. URLs are shown
// through safe.RedactURL. Errors of this package never hold a configured
// value.
//
// # Typical use
//
//	cfg, err := config.Load(config.LoadOptions{Home: home, Dir: wd, LookupEnv: os.LookupEnv})
//	// err: a file failed as a whole; cfg still holds the other file's servers.
//	appr, err := config.OpenApprovals(home)
//	for _, s := range cfg.Servers {
//		state := appr.State(s)     // show it; run only when Approved,
//		if s.Err != nil { … }      // s.Enabled and s.Err == nil
//		run(s.Expanded, s.Timeout)
//	}
//	s, err := config.AddServer(filepath.Join(home, config.FileName), config.ScopeUser, "name", config.Entry{…})
//	err = appr.Approve(s)          // `mcpwire add` approves what it wrote
package config
