package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// A Record is what the token file of one server holds.
type Record struct {
	Server             string              `json:"server"`
	Resource           string              `json:"resource"` // the resource the token was issued for
	Issuer             string              `json:"issuer,omitempty"`
	TokenEndpoint      string              `json:"token_endpoint,omitempty"`
	RevocationEndpoint string              `json:"revocation_endpoint,omitempty"`
	Client             *ClientRegistration `json:"client,omitempty"`
	Token              *Token              `json:"token,omitempty"`
	Scopes             []string            `json:"scopes,omitempty"` // scopes requested
	Grant              string              `json:"grant,omitempty"`  // authorization_code, device_code, client_credentials, jwt-bearer
	// AssertionFile is the workload's JWT file of a jwt-bearer login
	// (WorkloadIdentity): read again to get a new token when it expires.
	AssertionFile string    `json:"assertion_file,omitempty"`
	UpdatedAt     time.Time `json:"updated_at,omitzero"`
	// Login names the login that got the record (random, set by each
	// login, kept by refreshes): what is cached for the login's user
	// (a private list) is not served after another login.
	Login string `json:"login,omitempty"`
}

// Status is the authentication state of a server, as `mcpwire list` shows it.
type Status int

// The states. StatusNotNeeded is for servers without OAuth; the caller
// decides it (no token file says nothing about whether one is needed).
const (
	StatusNotAuthenticated Status = iota
	StatusNotNeeded
	StatusAuthenticated
	StatusExpired     // expired, no refresh token
	StatusRefreshable // expired, refresh token held
	StatusInvalid     // unreadable or inconsistent token file
)

func (s Status) String() string {
	switch s {
	case StatusNotNeeded:
		return "not needed"
	case StatusAuthenticated:
		return "authenticated"
	case StatusExpired:
		return "expired"
	case StatusRefreshable:
		return "refreshable"
	case StatusInvalid:
		return "invalid"
	}
	return "not authenticated"
}

// Status returns the state of r at now; a nil record is not authenticated.
func (r *Record) Status(now time.Time) Status {
	if r == nil || r.Token == nil || r.Token.AccessToken == "" {
		if r != nil && r.Token != nil && r.Token.RefreshToken != "" {
			return StatusRefreshable
		}
		return StatusNotAuthenticated
	}
	if r.Resource == "" {
		return StatusInvalid
	}
	if r.Token.Valid(now, 0) {
		return StatusAuthenticated
	}
	if r.Token.RefreshToken != "" && r.TokenEndpoint != "" {
		return StatusRefreshable
	}
	return StatusExpired
}

// A Store keeps token files in a directory, <home>/mcp-tokens.
type Store struct {
	Dir string
}

// NewStore returns the store under home.
func NewStore(home string) *Store { return &Store{Dir: filepath.Join(home, "mcp-tokens")} }

// FileName turns a server name into a safe file name: letters, digits,
// '-', '_' and '.' are kept, anything else becomes '_'; a leading dot is
// replaced too.
func FileName(server string) string {
	var b strings.Builder
	for i, r := range server {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || (r == '.' && i > 0)
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" {
		s = "_"
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s + ".json"
}

// Path returns the token file of server.
func (s *Store) Path(server string) string { return filepath.Join(s.Dir, FileName(server)) }

// Load reads the record of server. A missing file gives (nil, "", nil).
// warning is non-empty when the file can be read by group or others.
func (s *Store) Load(server string) (rec *Record, warning string, err error) {
	p := s.Path(server)
	data, fi, err := safe.ReadFileInfo(p, safe.KindCredential)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("reading token file %s: %v", p, errors.Unwrap(err))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		warning = fmt.Sprintf("token file %s is accessible by other users (mode %04o); run chmod 600 on it", p, fi.Mode().Perm())
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return nil, warning, fmt.Errorf("reading token file %s: %v", p, jsonErr(err))
	}
	return &r, warning, nil
}

// Save writes rec for server with safe.WritePrivate: atomically, mode
// 0600, replacing (never following) a symbolic link. The directory is
// created 0700.
func (s *Store) Save(server string, rec *Record) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("saving token file: %v", err)
	}
	rec.Server = server
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("saving token file: %v", err)
	}
	p := s.Path(server)
	if err := safe.WritePrivate(p, append(data, '\n')); err != nil {
		return fmt.Errorf("saving token file: %v", err)
	}
	return nil
}

// Delete removes the token file of server; a missing file is no error.
func (s *Store) Delete(server string) error {
	err := os.Remove(s.Path(server))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("deleting token file: %v", err)
	}
	return nil
}

// Status returns the state of server's token file at now, and a warning
// about its permissions if any.
func (s *Store) Status(server string, now time.Time) (Status, string) {
	rec, warn, err := s.Load(server)
	if err != nil {
		return StatusInvalid, warn
	}
	return rec.Status(now), warn
}
