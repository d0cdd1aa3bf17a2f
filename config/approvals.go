package config

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// File names in the home folder used by approvals.
const (
	KeyFileName      = "mcp-approval.key"
	SettingsFileName = "settings.json"
)

// An ApprovalState is where a server stands with respect to approval.
type ApprovalState int

const (
	NeverApproved ApprovalState = iota // no record
	Approved                           // the record's digest matches the definition
	Revoked                            // the record is false
	Changed                            // the definition changed since it was approved
	InvalidRecord                      // the record is not {"version":1,"digest":"<64 hex>"} or false
	// Unavailable: the approval key or settings.json cannot be read or
	// created, so nothing can be approved ([Approvals.Err] says why).
	// Approvals fail closed: such a server does not run.
	Unavailable
	// Outdated: the record was made by an older form of the digest (an
	// older mcpwire, before the digest covered more): the definition has
	// to be reviewed and approved again ("renewal required").
	Outdated
)

// String returns "never approved", "approved", "revoked", "changed",
// "invalid record", "approvals unavailable" or "renewal required".
func (st ApprovalState) String() string {
	switch st {
	case NeverApproved:
		return "never approved"
	case Approved:
		return "approved"
	case Revoked:
		return "revoked"
	case Changed:
		return "changed"
	case InvalidRecord:
		return "invalid record"
	case Unavailable:
		return "approvals unavailable"
	case Outdated:
		return "renewal required"
	}
	return fmt.Sprintf("ApprovalState(%d)", int(st))
}

// canonicalDef is the canonical form of a definition that the digest
// covers. json.Marshal writes struct members in this order and map members
// sorted, so member order and whitespace in the file do not matter; the
// parser's defaults are filled in (type, timeout), aliases are resolved,
// and empty lists and objects are the same as absent ones.
type canonicalDef struct {
	Version   int               `json:"v"`
	Source    string            `json:"source"`
	Name      string            `json:"name"`
	Dir       string            `json:"dir,omitempty"`
	Type      string            `json:"type"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	TimeoutMS int64             `json:"timeout_ms"`
	OAuth     *OAuth            `json:"oauth,omitempty"`
	// Other is every other member of the entry as written (compact,
	// object members sorted): fields added after this form was defined
	// (allowHttp, maxMessageBytes, roots, …) and unknown ones are covered
	// without being listed here.
	Other map[string]json.RawMessage `json:"other,omitempty"`
	// Issue 14's fields; absent ones leave the digest of an older
	// definition as it was.
	StartupMS         int64             `json:"startup_ms,omitempty"`
	ToolMS            int64             `json:"tool_ms,omitempty"`
	Roots             []string          `json:"roots,omitempty"`
	EnvVars           []string          `json:"env_vars,omitempty"`
	EnvHeaders        map[string]string `json:"env_headers,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
}

// digestVersion is the version of the canonical form. Version 2 added the
// working directory, the source as reached and every other member.
const digestVersion = 2

// Digest returns the hex HMAC-SHA-256, keyed by key, of the canonical form
// of s's unexpanded definition with its source (the file as reached, not
// after resolving symbolic links), its name and the folder it runs in
// ([Server.WorkDir]). The definition is: transport, command, args in
// order, env names and values, cwd, url, header names and values,
// timeouts (aliases resolved), oauth settings, roots, envVars, envHeaders,
// bearerTokenEnvVar, and every other member as written; not
// enabled/disabled, required or the tool filters.
func Digest(key []byte, s *Server) string {
	return digestForm(key, s, digestVersion)
}

// digestForm is the digest of s in the canonical form of a version: 1
// (before issue 11: transport, command, args, env, cwd, url, headers,
// timeout, oauth, the source and the name) or digestVersion. A record
// that matches an older form reads Outdated, not Changed.
func digestForm(key []byte, s *Server, version int) string {
	c := canonicalDef{
		Version: version, Source: s.Source, Name: s.Name, Type: s.Type,
		Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
		URL: s.URL, Headers: s.Headers, TimeoutMS: s.Timeout.Milliseconds(),
	}
	if version >= 2 {
		c.Dir, c.Other = s.WorkDir(), otherMembers(s.Raw)
		c.StartupMS, c.ToolMS = s.StartupTimeout.Milliseconds(), s.ToolTimeout.Milliseconds()
		c.Roots, c.EnvVars, c.EnvHeaders, c.BearerTokenEnvVar = s.Roots, s.EnvVars, s.EnvHeaders, s.BearerTokenEnvVar
	}
	if c.TimeoutMS == 0 {
		c.TimeoutMS = DefaultTimeout.Milliseconds()
	}
	if o := s.OAuth; o != nil && (o.ClientID != "" || o.ClientSecret != "" || len(o.Scopes) > 0 || o.AuthorizationServer != "" || o.ClientMetadataURL != "" ||
		o.CallbackPort != 0 || o.AuthServerMetadataURL != "") {
		c.OAuth = o
	}
	b, err := json.Marshal(c)
	if err != nil {
		panic("config: canonical form: " + err.Error()) // strings, maps of strings and ints always marshal
	}
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))
}

// otherMembers returns the members of the entry raw that canonicalDef
// does not hold and the digest covers, each compact with object members
// sorted.
func otherMembers(raw json.RawMessage) map[string]json.RawMessage {
	root, err := parseJSON(raw)
	if err != nil || root.kind != '{' {
		return nil
	}
	var out map[string]json.RawMessage
	for _, m := range root.members {
		if mem := lookupMember(m.key); mem != nil && mem.digest != asWritten {
			continue // held in canonicalDef, or not covered
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw[m.val.start:m.val.end]))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			continue
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		out[m.key] = bytes.TrimRight(b.Bytes(), "\n")
	}
	return out
}

// LoadKey returns the approval key of the home folder,
// <home>/mcp-approval.key: 32 random bytes, created (0600, the folder 0700)
// on first use.
func LoadKey(home string) ([]byte, error) {
	path := filepath.Join(home, KeyFileName)
	for range 2 {
		key, err := safe.ReadFile(path, safe.KindCredential)
		if err == nil {
			if len(key) != 32 {
				return nil, fmt.Errorf("reading approval key %s: %d bytes instead of 32; delete the file to make a new key (every approval is then lost)", path, len(key))
			}
			return key, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading approval key: %v", err)
		}
		if err := createKey(path); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("reading approval key %s: it keeps disappearing", path)
}

// createKey writes a new key with safe.WriteNew (a temporary file and a
// hard link), so that a reader never sees half a key and two processes
// creating it at once agree on one.
func createKey(path string) error {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("creating approval key: %v", err)
	}
	if err := safe.WriteNew(path, key, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating approval key: %v", err)
	}
	return nil
}

// Approvals are the approval records of a home folder, in
// <home>/settings.json at capabilities.mcp_approvals[<source>][<name>]. It
// is safe for concurrent use.
type Approvals struct {
	mu     sync.Mutex
	key    []byte // nil when keyErr
	keyErr error  // the key could not be read or created
	path   string
	text   []byte // settings.json as last read
	root   *jnode // its tree; nil when missing or empty
	bad    error  // settings.json could not be read or parsed
}

// OpenApprovals reads the approval key (creating it on first use) and
// settings.json of home. It always returns a usable *Approvals. When the
// key or settings.json cannot be read or created (home not creatable or
// read-only, a key of the wrong length, a directory, unreadable; settings
// not JSON), it also returns the error, and the *Approvals fails closed:
// State is Unavailable for every server, Err says why, Approve and Revoke
// refuse. An empty home is such an error too.
func OpenApprovals(home string) (*Approvals, error) {
	a := &Approvals{}
	if home == "" {
		a.keyErr = errors.New("reading approvals: no home folder")
		return a, a.keyErr
	}
	a.path = filepath.Join(home, SettingsFileName)
	a.key, a.keyErr = LoadKey(home)
	if a.keyErr != nil {
		return a, a.keyErr
	}
	_, err := a.reload()
	return a, err
}

// Err returns why approvals are unavailable (the key or settings.json
// could not be read or created), or nil.
func (a *Approvals) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keyErr != nil {
		return a.keyErr
	}
	return a.bad
}

// reload reads settings.json again; it returns the bytes read.
func (a *Approvals) reload() ([]byte, error) {
	a.text, a.root, a.bad = nil, nil, nil
	data, err := safe.ReadFile(a.path, safe.KindConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		a.bad = fmt.Errorf("reading %s: %v", a.path, err)
		return nil, a.bad
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return data, nil
	}
	root, err := parseJSON(data)
	if err != nil {
		fe := &FileError{Path: a.path, Syntax: true, Err: err}
		var se *jsonSyntaxError
		if errors.As(err, &se) {
			fe.Line, fe.Col = lineCol(data, se.offset)
		}
		a.bad = fe
		return nil, fe
	}
	if root.kind != '{' {
		a.bad = &FileError{Path: a.path, Err: fmt.Errorf("the top level must be an object, got %s", root.kindName())}
		return nil, a.bad
	}
	a.text, a.root = data, root
	return data, nil
}

// Path returns the path of settings.json.
func (a *Approvals) Path() string { return a.path }

// Digest returns [Digest] of s with this home folder's key ("" when the
// key is unavailable).
func (a *Approvals) Digest(s *Server) string {
	if a.key == nil {
		return ""
	}
	return Digest(a.key, s)
}

// State returns s's approval state as of the last read of settings.json:
// Unavailable when the key or settings.json could not be read.
func (a *Approvals) State(s *Server) ApprovalState { return a.state(s, "") }

// StateDigest is State and the digest of s it was checked against ("" when
// approvals are unavailable), computed once for both.
func (a *Approvals) StateDigest(s *Server) (ApprovalState, string) {
	d := a.Digest(s)
	return a.state(s, d), d
}

// state is State; digest is s's digest when known ("": made if needed).
func (a *Approvals) state(s *Server, digest string) ApprovalState {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keyErr != nil || a.bad != nil {
		return Unavailable
	}
	n := a.root
	for _, k := range []string{"capabilities", "mcp_approvals", s.Source, s.Name} {
		if n == nil {
			return NeverApproved
		}
		if n.kind != '{' {
			return InvalidRecord
		}
		m, count := n.lookup(k)
		if count == 0 {
			return NeverApproved
		}
		if count > 1 {
			return InvalidRecord
		}
		n = m.val
	}
	switch n.kind {
	case 'f':
		return Revoked
	case '{':
	default:
		return InvalidRecord
	}
	ver, vc := n.lookup("version")
	dig, dc := n.lookup("digest")
	if vc != 1 || dc != 1 || ver.val.kind != '0' || dig.val.kind != '"' {
		return InvalidRecord
	}
	var v float64
	if err := json.Unmarshal(a.recordBytes(ver.val), &v); err != nil || v != 1 {
		return InvalidRecord
	}
	got, err := hex.DecodeString(dig.val.str)
	if err != nil || len(got) != sha256.Size || hex.EncodeToString(got) != dig.val.str {
		return InvalidRecord
	}
	if digest == "" {
		digest = Digest(a.key, s)
	}
	want, _ := hex.DecodeString(digest)
	if hmac.Equal(got, want) {
		return Approved
	}
	for v := digestVersion - 1; v >= 1; v-- {
		if old, _ := hex.DecodeString(digestForm(a.key, s, v)); hmac.Equal(got, old) {
			return Outdated
		}
	}
	return Changed
}

// recordBytes returns the text of a node of settings.json.
func (a *Approvals) recordBytes(n *jnode) []byte {
	return a.text[n.start:n.end]
}

// Approve records s as approved. It first reads the file s came from again
// and refuses with a *StaleError when the definition there is no longer
// the one in s (changed, removed), so that what gets approved is what the
// user was shown. An invalid definition is refused with its error.
func (a *Approvals) Approve(s *Server) error { return a.ApproveContext(context.Background(), s) }

// ApproveContext is [Approvals.Approve] that gives up waiting for the
// lock of settings.json when ctx ends (an error wrapping ctx's; nothing
// is written).
func (a *Approvals) ApproveContext(ctx context.Context, s *Server) error {
	if err := a.keyErr; err != nil {
		return fmt.Errorf("approving server %q: %w", s.Name, err)
	}
	if !s.Valid() {
		return fmt.Errorf("approving server %q: the definition is invalid: %w", s.Name, s.Err)
	}
	// What would not run is not approved: an unset variable, a URL that
	// breaks the rules once expanded (Load expanded s when enabled; the
	// caller expands a disabled one first, see [Server.ExpandLookup]).
	var xe *ExpandError
	if errors.As(s.Err, &xe) {
		return fmt.Errorf("approving server %q: it would not run: %w", s.Name, s.Err)
	}
	data, err := readServerFile(s.Source, s.Scope)
	if errors.Is(err, fs.ErrNotExist) {
		return &StaleError{Server: s.Name, Source: s.Source, Reason: "removed"}
	}
	if err != nil {
		return fmt.Errorf("approving server %q: reading %s: %v", s.Name, s.Source, err)
	}
	pf, err := parseFile(s.Source, s.Scope, data)
	if err != nil {
		return fmt.Errorf("approving server %q: %w", s.Name, err)
	}
	var fresh *Server
	for _, f := range pf.servers {
		if f.Name == s.Name {
			fresh = f
		}
	}
	if fresh == nil {
		return &StaleError{Server: s.Name, Source: s.Source, Reason: "removed"}
	}
	if !hmac.Equal([]byte(Digest(a.key, fresh)), []byte(Digest(a.key, s))) {
		return &StaleError{Server: s.Name, Source: s.Source, Reason: "changed"}
	}
	if !fresh.Valid() {
		return fmt.Errorf("approving server %q: the definition is invalid: %w", s.Name, fresh.Err)
	}
	rec := fmt.Appendf(nil, `{"version":1,"digest":%q}`, Digest(a.key, s))
	return a.write(ctx, s, rec, "approving")
}

// Revoke records s as revoked (false): it will not run until approved
// again, whatever its definition.
func (a *Approvals) Revoke(s *Server) error { return a.RevokeContext(context.Background(), s) }

// RevokeContext is [Approvals.Revoke] that gives up waiting for the lock
// of settings.json when ctx ends (nothing is written).
func (a *Approvals) RevokeContext(ctx context.Context, s *Server) error {
	return a.write(ctx, s, []byte("false"), "revoking")
}

// write sets s's record in settings.json to rec, keeping every other key
// of the file, their order and their layout.
func (a *Approvals) write(ctx context.Context, s *Server, rec []byte, op string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keyErr != nil {
		return fmt.Errorf("%s server %q: %w", op, s.Name, a.keyErr)
	}
	if err := safe.NotSymlink(a.path); err != nil {
		return fmt.Errorf("%s server %q: %w", op, s.Name, err)
	}
	// Other processes edit settings.json too: read, change and write it
	// under its lock, so that no record is lost.
	l, err := safe.LockContext(ctx, a.path)
	if err != nil {
		return fmt.Errorf("%s server %q: %w", op, s.Name, err)
	}
	defer l.Unlock()
	data, err := a.reload()
	if err != nil {
		return fmt.Errorf("%s server %q: %w", op, s.Name, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n}\n")
	}
	out, err := setPath(data, []string{"capabilities", "mcp_approvals", s.Source, s.Name}, rec)
	if err != nil {
		return fmt.Errorf("%s server %q: %s: %v", op, s.Name, a.path, err)
	}
	if err := safe.WritePrivate(a.path, out); err != nil {
		return fmt.Errorf("%s server %q: %v", op, s.Name, err)
	}
	_, err = a.reload()
	return err
}
