package config

import (
	"bytes"
	"crypto/hmac"
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

// The pin policies of a definition's "pin" and "newTools" (and of the
// home's defaults).
const (
	// PinEnforce quarantines a tool whose surface changed since it was
	// approved, and holds changed instructions (the default).
	PinEnforce = "enforce"
	// PinWarn offers a changed tool, with a warning.
	PinWarn = "warn"
	// PinOff neither records nor compares the surface.
	PinOff = "off"
	// NewToolsOffer offers a tool the pinned surface does not hold (the
	// default); NewToolsHold holds it until approved.
	NewToolsOffer = "offer"
	NewToolsHold  = "hold"
)

// PinsDirName is the folder of the home that holds pinned surfaces: one
// file per server definition, 0600.
const PinsDirName = "mcp-pins"

// pinFile is a pin file: the surface (opaque to this package: the
// manager writes and reads it) recorded for a server under one approval,
// with an HMAC by the approval key over all of it, so that a file
// written without the key is refused.
type pinFile struct {
	Version  int             `json:"version"`
	Server   string          `json:"server"`
	Source   string          `json:"source"`
	Approval string          `json:"approval"` // the approval digest it was pinned under
	Surface  json.RawMessage `json:"surface"`
	MAC      string          `json:"mac"`
}

// A PinError says that a pin file could not be read, written, or
// trusted: the caller fails closed (the server's tools are held).
type PinError struct {
	Server string
	Path   string
	Err    error
}

func (e *PinError) Error() string {
	return fmt.Sprintf("pinned surface of server %q (%s): %v", e.Server, e.Path, e.Err)
}

func (e *PinError) Unwrap() error { return e.Err }

// PinPath is the file of s's pinned surface: a name made with the
// approval key from s's source and name, in the home's PinsDirName.
func (a *Approvals) PinPath(s *Server) string {
	if a.key == nil {
		return ""
	}
	m := hmac.New(sha256.New, a.key)
	fmt.Fprintf(m, "pin file\x00%s\x00%s", s.Source, s.Name)
	return filepath.Join(filepath.Dir(a.path), PinsDirName, hex.EncodeToString(m.Sum(nil))[:32]+".json")
}

// pinMAC is the HMAC of a pin file's contents.
func (a *Approvals) pinMAC(f *pinFile, surface []byte) string {
	m := hmac.New(sha256.New, a.key)
	fmt.Fprintf(m, "mcpwire pin %d\x00%s\x00%s\x00%s\x00", f.Version, f.Source, f.Server, f.Approval)
	m.Write(surface)
	return hex.EncodeToString(m.Sum(nil))
}

// LoadPin returns the surface pinned for s under its current approval:
// nil when none was (never, or under an approval of another definition).
// A file that cannot be read, is not a pin file, or whose HMAC does not
// match is a *PinError.
func (a *Approvals) LoadPin(s *Server) (json.RawMessage, error) {
	if a.key == nil {
		return nil, &PinError{Server: s.Name, Err: fmt.Errorf("approvals unavailable: %v", a.keyErr)}
	}
	path := a.PinPath(s)
	data, err := safe.ReadFile(path, safe.KindSnapshot)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &PinError{Server: s.Name, Path: path, Err: err}
	}
	var f pinFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &PinError{Server: s.Name, Path: path, Err: fmt.Errorf("not a pin file: %v", err)}
	}
	var surface bytes.Buffer
	if err := json.Compact(&surface, f.Surface); err != nil || f.Version != 1 {
		return nil, &PinError{Server: s.Name, Path: path, Err: errors.New("not a pin file of version 1")}
	}
	got, err1 := hex.DecodeString(f.MAC)
	want, _ := hex.DecodeString(a.pinMAC(&f, surface.Bytes()))
	if err1 != nil || !hmac.Equal(got, want) || f.Source != s.Source || f.Server != s.Name {
		return nil, &PinError{Server: s.Name, Path: path, Err: errors.New("its HMAC does not match (it was not written by mcpwire with this home's approval key)")}
	}
	if !hmac.Equal([]byte(f.Approval), []byte(a.Digest(s))) {
		return nil, nil // pinned under another definition: pin anew
	}
	return surface.Bytes(), nil
}

// SavePin records surface as s's pinned surface under its current
// approval (0600, written atomically).
func (a *Approvals) SavePin(s *Server, surface json.RawMessage) error {
	if a.key == nil {
		return &PinError{Server: s.Name, Err: fmt.Errorf("approvals unavailable: %v", a.keyErr)}
	}
	path := a.PinPath(s)
	var compact bytes.Buffer
	if err := json.Compact(&compact, surface); err != nil {
		return &PinError{Server: s.Name, Path: path, Err: err}
	}
	f := &pinFile{Version: 1, Server: s.Name, Source: s.Source, Approval: a.Digest(s), Surface: compact.Bytes()}
	// The HMAC covers the surface as LoadPin will read it back from the
	// file (encoding may escape characters), so it is computed on that.
	data, err := encodePinFile(f)
	var back pinFile
	var read bytes.Buffer
	if err == nil {
		err = json.Unmarshal(data, &back)
	}
	if err == nil {
		err = json.Compact(&read, back.Surface)
	}
	if err == nil {
		f.MAC = a.pinMAC(f, read.Bytes())
		data, err = encodePinFile(f)
	}
	if err != nil {
		return &PinError{Server: s.Name, Path: path, Err: err}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return &PinError{Server: s.Name, Path: path, Err: err}
	}
	if err := safe.WriteAtomic(path, data, 0o600); err != nil {
		return &PinError{Server: s.Name, Path: path, Err: err}
	}
	return nil
}

// encodePinFile is a pin file's bytes.
func encodePinFile(f *pinFile) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(f)
	return b.Bytes(), err
}

// SetAsidePin moves s's pin file that cannot be read or trusted (a
// *PinError from LoadPin) to <file>.broken, replacing an older one, so
// that the next connection pins the surface anew: what `mcpwire approve`
// does when a person approves again. It moves the entry itself (a link
// or a named pipe is never followed) and returns where it went.
func (a *Approvals) SetAsidePin(s *Server) (string, error) {
	path := a.PinPath(s)
	if path == "" {
		return "", &PinError{Server: s.Name, Err: fmt.Errorf("approvals unavailable: %v", a.keyErr)}
	}
	aside := path + ".broken"
	if err := os.Rename(path, aside); err != nil {
		return "", &PinError{Server: s.Name, Path: path, Err: err}
	}
	return aside, nil
}
