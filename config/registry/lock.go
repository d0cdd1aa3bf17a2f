package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// LockName is the lock file's name, beside a project's .mcp.json.
const LockName = "mcp.lock"

// lockVersion is the lock file's format.
const lockVersion = 1

// A Lock is a project's mcp.lock: for each registry-installed entry (by
// its local name), exactly what was installed.
type Lock struct {
	Servers map[string]Locked
}

// A Locked entry of the lock file.
type Locked struct {
	Registry string `json:"registry"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Via      string `json:"via"`
	Artifact string `json:"artifact"`
	// Digest is the artifact's digest (an MCPB bundle's SHA-256, an
	// image's digest), else the server.json document's; Document is
	// always the document's.
	Digest   string `json:"digest"`
	Document string `json:"document"`
	// Tools is the tool-surface fingerprint pinned when the entry was
	// approved and first used ("" before).
	Tools string `json:"tools,omitempty"`
}

type lockFile struct {
	LockfileVersion int               `json:"lockfileVersion"`
	Servers         map[string]Locked `json:"servers"`
}

// LockPath is the lock file beside the server file configPath.
func LockPath(configPath string) string {
	return filepath.Join(filepath.Dir(configPath), LockName)
}

// ReadLock reads a lock file; a missing one is an empty lock.
func ReadLock(path string) (*Lock, error) {
	data, err := safe.ReadFile(path, safe.KindLock)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{Servers: map[string]Locked{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseLock(path, data)
}

// ParseLock reads the bytes of a lock file (path names it in errors).
func ParseLock(path string, data []byte) (*Lock, error) {
	var f lockFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not a lock file: %v; delete it and run mcpwire sync", path, err)
	}
	if f.LockfileVersion != lockVersion {
		return nil, fmt.Errorf("%s: lockfileVersion %d, this mcpwire reads %d", path, f.LockfileVersion, lockVersion)
	}
	for name, l := range f.Servers {
		if l.Name == "" || l.Version == "" || l.Registry == "" {
			return nil, fmt.Errorf("%s: entry %q lacks its registry, name or version", path, name)
		}
	}
	if f.Servers == nil {
		f.Servers = map[string]Locked{}
	}
	return &Lock{Servers: f.Servers}, nil
}

// Encode returns the lock file's bytes: sorted by name, two-space
// indented, one member per line, so that a diff reads well.
func (l *Lock) Encode() []byte {
	servers := l.Servers
	if servers == nil {
		servers = map[string]Locked{}
	}
	data, _ := json.MarshalIndent(lockFile{LockfileVersion: lockVersion, Servers: servers}, "", "  ")
	return append(data, '\n')
}

// Write writes the lock file atomically (0644: it is meant to be
// committed).
func (l *Lock) Write(path string) error {
	return safe.WriteAtomic(path, l.Encode(), 0o644)
}

// Names returns the locked names, sorted.
func (l *Lock) Names() []string {
	out := make([]string, 0, len(l.Servers))
	for n := range l.Servers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LockedOf is the lock entry of a plan's provenance and document digest.
func LockedOf(p Provenance, document string) Locked {
	return Locked{Registry: p.URL, Name: p.Name, Version: p.Version, Via: p.Via, Artifact: p.Artifact, Digest: p.Digest, Document: document}
}
