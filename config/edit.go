package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// An Entry is a new server definition for [AddServer]. Empty fields are
// left out of the file.
type Entry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	OAuth   *OAuth            `json:"oauth,omitempty"`
	Timeout float64           `json:"timeout,omitempty"` // seconds; 0 = the default
	// BearerTokenEnvVar names a variable sent as "Authorization: Bearer".
	BearerTokenEnvVar string `json:"bearerTokenEnvVar,omitempty"`
}

// lockForEdit takes the lock of a server file (safe.Lock) for a
// read-modify-write, so that edits by several processes at once all land.
// A symbolic link is refused before any lock file is made.
func lockForEdit(ctx context.Context, path string) (unlock func(), err error) {
	if err := safe.NotSymlink(path); err != nil {
		return nil, err
	}
	l, err := safe.LockContext(ctx, path)
	if err != nil {
		return nil, err
	}
	return func() { l.Unlock() }, nil
}

// readForEdit reads a server file to edit it. A missing or empty file is
// an empty object; a file that is not valid JSON is an error (and is never
// overwritten); a symbolic link is refused (*safe.SymlinkError): no edit
// writes through one, and replacing it would cut what the user linked.
func readForEdit(path string) ([]byte, *parsedFile, error) {
	if err := safe.NotSymlink(path); err != nil {
		return nil, nil, err
	}
	data, err := safe.ReadFile(path, safe.KindConfig)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{\n}\n")
	} else if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %v", path, err)
	}
	pf, err := parseFile(path, "", data)
	if err != nil {
		return nil, nil, err
	}
	return data, pf, nil
}

// findEntry returns the container object and index of the entry named name.
func findEntry(path string, pf *parsedFile, name string) (*jnode, int, error) {
	var cont *jnode
	idx, count := -1, 0
	for _, c := range pf.containers {
		for i, m := range c.members {
			if m.key == name {
				cont, idx = c, i
				count++
			}
		}
	}
	switch {
	case count == 0:
		return nil, 0, fmt.Errorf("%s: server %q: %w", path, name, ErrNotFound)
	case count > 1:
		return nil, 0, fmt.Errorf("%s: server %q is defined %d times; edit the file by hand", path, name, count)
	}
	return cont, idx, nil
}

// AddServer adds the server name to the file at path, of scope (ScopeUser
// for the home folder's file, ScopeProject for a project's: the folder the
// server runs in, which its approval covers, depends on it), created 0600
// with its folder 0700 when missing, as the last entry of its mcpServers (or
// servers) object, keeping the rest of the file as it is. entry is a
// json.RawMessage holding an object, or any value that marshals to one (an
// [Entry], typically). It refuses a name the file already has
// (ErrNameInUse), an invalid name or entry (the *FieldError), and a file
// that is not valid JSON. It returns the server as Load would read it from
// the written file (unexpanded), ready for [Approvals.Approve].
func AddServer(path, scope, name string, entry any) (*Server, error) {
	return AddServerContext(context.Background(), path, scope, name, entry)
}

// AddServerContext is [AddServer] that gives up waiting for the file's
// lock when ctx ends (an error wrapping ctx's; nothing is written).
func AddServerContext(ctx context.Context, path, scope, name string, entry any) (*Server, error) {
	return putServer(ctx, path, scope, name, entry, false)
}

// ReplaceServer is [AddServer] for a name the file has already: its
// definition is replaced, in place, whole (ErrNotFound when there is
// none). The rest of the file stays as it is.
func ReplaceServer(path, scope, name string, entry any) (*Server, error) {
	return ReplaceServerContext(context.Background(), path, scope, name, entry)
}

// ReplaceServerContext is [ReplaceServer] that gives up waiting for the
// file's lock when ctx ends (nothing is written).
func ReplaceServerContext(ctx context.Context, path, scope, name string, entry any) (*Server, error) {
	return putServer(ctx, path, scope, name, entry, true)
}

// putServer adds (or with replace, replaces) the entry name.
func putServer(ctx context.Context, path, scope, name string, entry any, replace bool) (*Server, error) {
	if err := ValidName(name); err != nil {
		return nil, fmt.Errorf("adding server: %v", err)
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("adding server %q: %v", name, err)
	}
	var raw []byte
	switch e := entry.(type) {
	case json.RawMessage:
		raw = e
	case []byte:
		raw = e
	default:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(entry); err != nil {
			return nil, fmt.Errorf("adding server %q: %v", name, err)
		}
		raw = b.Bytes()
	}
	if n, err := parseJSON(raw); err != nil || n.kind != '{' {
		return nil, fmt.Errorf("adding server %q: the definition must be a JSON object", name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("adding server %q: %v", name, err)
	}
	unlock, err := lockForEdit(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("adding server %q: %w", name, err)
	}
	defer unlock()
	data, pf, err := readForEdit(path)
	if err != nil {
		return nil, fmt.Errorf("adding server %q: %w", name, err)
	}
	var out []byte
	if replace {
		cont, idx, err := findEntry(path, pf, name)
		if err != nil {
			return nil, fmt.Errorf("replacing server: %w", err)
		}
		out, err = setMember(data, cont, cont.members[idx].key, raw)
		if err != nil {
			return nil, fmt.Errorf("replacing server %q in %s: %v", name, path, err)
		}
		return checkAndWrite(path, scope, name, out)
	}
	for _, s := range pf.servers {
		if s.Name == name {
			return nil, fmt.Errorf("adding server %q to %s: %w", name, path, ErrNameInUse)
		}
	}
	if m, _ := pf.root.lookup("mcpServers"); m != nil {
		out, err = insertMember(data, m.val, name, raw)
	} else if m, _ := pf.root.lookup("servers"); m != nil {
		out, err = insertMember(data, m.val, name, raw)
	} else {
		out, err = setPath(data, []string{"mcpServers", name}, raw)
	}
	if err != nil {
		return nil, fmt.Errorf("adding server %q to %s: %v", name, path, err)
	}
	return checkAndWrite(path, scope, name, out)
}

// checkAndWrite writes out, the file at path with the entry name added or
// changed, once the entry reads back valid; it returns the entry as Load
// would read it.
func checkAndWrite(path, scope, name string, out []byte) (*Server, error) {
	after, err := parseFile(path, scope, out)
	if err != nil {
		return nil, fmt.Errorf("adding server %q to %s: %v", name, path, err)
	}
	var added *Server
	for _, s := range after.servers {
		if s.Name == name {
			added = s
		}
	}
	if added == nil {
		return nil, fmt.Errorf("adding server %q to %s: the entry did not land", name, path)
	}
	if !added.Valid() {
		return nil, fmt.Errorf("adding server %q: %w", name, added.Err)
	}
	if err := safe.WritePrivate(path, out); err != nil {
		return nil, fmt.Errorf("adding server %q: %v", name, err)
	}
	return added, nil
}

// RenameServer renames the server old to name in the file at path,
// keeping the rest of the file (the definition too) as it is. It refuses
// a name the file has already (ErrNameInUse) and an old name it has not
// (ErrNotFound). It returns the server as Load would read it; its
// approval is the caller's to carry over (the digest covers the name).
func RenameServer(path, scope, old, name string) (*Server, error) {
	return RenameServerContext(context.Background(), path, scope, old, name)
}

// RenameServerContext is [RenameServer] that gives up waiting for the
// file's lock when ctx ends (nothing is written).
func RenameServerContext(ctx context.Context, path, scope, old, name string) (*Server, error) {
	if err := ValidName(name); err != nil {
		return nil, fmt.Errorf("renaming server %q: %v", old, err)
	}
	unlock, err := lockForEdit(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("renaming server %q: %w", old, err)
	}
	defer unlock()
	data, pf, err := readForEdit(path)
	if err != nil {
		return nil, fmt.Errorf("renaming server %q: %w", old, err)
	}
	cont, idx, err := findEntry(path, pf, old)
	if err != nil {
		return nil, fmt.Errorf("renaming server: %w", err)
	}
	for _, s := range pf.servers {
		if s.Name == name {
			return nil, fmt.Errorf("renaming server %q to %q in %s: %w", old, name, path, ErrNameInUse)
		}
	}
	m := cont.members[idx]
	return checkAndWrite(path, scope, name, splice(data, m.keyStart, m.keyEnd, marshalString(name)))
}

// RemoveServer removes the server name from the file at path, keeping the
// rest of the file as it is. It returns an error wrapping ErrNotFound when
// the file has no such server.
func RemoveServer(path, name string) error {
	return RemoveServerContext(context.Background(), path, name)
}

// RemoveServerContext is [RemoveServer] that gives up waiting for the
// file's lock when ctx ends (nothing is written).
func RemoveServerContext(ctx context.Context, path, name string) error {
	unlock, err := lockForEdit(ctx, path)
	if err != nil {
		return fmt.Errorf("removing server %q: %w", name, err)
	}
	defer unlock()
	data, pf, err := readForEdit(path)
	if err != nil {
		return fmt.Errorf("removing server %q: %w", name, err)
	}
	cont, idx, err := findEntry(path, pf, name)
	if err != nil {
		return fmt.Errorf("removing server: %w", err)
	}
	if err := safe.WritePrivate(path, deleteMember(data, cont, idx)); err != nil {
		return fmt.Errorf("removing server %q: %v", name, err)
	}
	return nil
}

// SetEnabled enables or disables the server name in the file at path. It
// sets "disabled" when the entry uses that member and "enabled" has none;
// otherwise it sets "enabled" and drops "disabled". Nothing else of the
// file changes, and an unchanged file is not written.
func SetEnabled(path, name string, enabled bool) error {
	return SetEnabledContext(context.Background(), path, name, enabled)
}

// SetEnabledContext is [SetEnabled] that gives up waiting for the file's
// lock when ctx ends (nothing is written).
func SetEnabledContext(ctx context.Context, path, name string, enabled bool) error {
	op := "enabling"
	if !enabled {
		op = "disabling"
	}
	unlock, err := lockForEdit(ctx, path)
	if err != nil {
		return fmt.Errorf("%s server %q: %w", op, name, err)
	}
	defer unlock()
	data, pf, err := readForEdit(path)
	if err != nil {
		return fmt.Errorf("%s server %q: %w", op, name, err)
	}
	cont, idx, err := findEntry(path, pf, name)
	if err != nil {
		return fmt.Errorf("%s server: %w", op, err)
	}
	entry := cont.members[idx].val
	if entry.kind != '{' {
		return fmt.Errorf("%s server %q: %s: the entry is a %s, not an object", op, name, path, entry.kindName())
	}
	_, hasEnabled := entry.lookup("enabled")
	_, hasDisabled := entry.lookup("disabled")
	var out []byte
	if hasDisabled > 0 && hasEnabled == 0 {
		out, err = setMember(data, entry, "disabled", fmt.Append(nil, !enabled))
	} else {
		out, err = setMember(data, entry, "enabled", fmt.Append(nil, enabled))
		if err == nil && hasDisabled > 0 {
			out, err = deleteNamed(path, out, name, "disabled")
		}
	}
	if err != nil {
		return fmt.Errorf("%s server %q: %s: %v", op, name, path, err)
	}
	if bytes.Equal(out, data) {
		return nil
	}
	if err := safe.WritePrivate(path, out); err != nil {
		return fmt.Errorf("%s server %q: %v", op, name, err)
	}
	return nil
}

// deleteNamed removes every member key of the entry name in data.
func deleteNamed(path string, data []byte, name, key string) ([]byte, error) {
	for {
		pf, err := parseFile(path, "", data)
		if err != nil {
			return nil, err
		}
		cont, idx, err := findEntry(path, pf, name)
		if err != nil {
			return nil, err
		}
		entry := cont.members[idx].val
		found := false
		for i, m := range entry.members {
			if m.key == key {
				data = deleteMember(data, entry, i)
				found = true
				break
			}
		}
		if !found {
			return data, nil
		}
	}
}
