package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// ClientsDir is the folder of a Store that keeps dynamic client
// registrations by authorization server, so that a logout (which deletes
// a server's token file) and the next login reuse the registered client
// instead of registering a new one each time.
const ClientsDir = "clients"

// clientPath is the file of the registration made at issuer.
func (s *Store) clientPath(issuer string) string {
	sum := sha256.Sum256([]byte(issuer))
	return filepath.Join(s.Dir, ClientsDir, hex.EncodeToString(sum[:16])+".json")
}

// LoadClient returns the dynamic registration kept for the authorization
// server issuer, or nil when there is none (or it cannot be read, or it
// belongs to another issuer).
func (s *Store) LoadClient(issuer string) *ClientRegistration {
	if s == nil || issuer == "" {
		return nil
	}
	data, err := safe.ReadFile(s.clientPath(issuer), safe.KindCredential)
	if err != nil {
		return nil
	}
	var reg ClientRegistration
	if json.Unmarshal(data, &reg) != nil || reg.Kind != KindDynamic || !sameIssuer(reg.Issuer, issuer) {
		return nil
	}
	return &reg
}

// SaveClient keeps a dynamic registration for its issuer, 0600 (it may
// hold a client secret). Other kinds are the definition's or the user's,
// and are not kept here.
func (s *Store) SaveClient(reg *ClientRegistration) error {
	if s == nil || reg == nil || reg.Kind != KindDynamic || reg.Issuer == "" {
		return nil
	}
	data, err := json.MarshalIndent(reg, "", "  ")
	if err != nil {
		return err
	}
	if err := safe.WritePrivate(s.clientPath(reg.Issuer), append(data, '\n')); err != nil {
		return fmt.Errorf("keeping the client registration: %v", err)
	}
	return nil
}

// DeleteClient forgets the registration kept for issuer.
func (s *Store) DeleteClient(issuer string) error {
	err := os.Remove(s.clientPath(issuer))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
