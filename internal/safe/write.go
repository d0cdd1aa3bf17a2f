package safe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A SymlinkError is a destination that is a symbolic link, refused by
// [NotSymlink].
type SymlinkError struct{ Path string }

func (e *SymlinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link; mcpwire does not write through it (edit the file it points to by hand, or replace the link with a file)", e.Path)
}

// NotSymlink returns a *SymlinkError when path is a symbolic link, nil when
// it is anything else or does not exist.
func NotSymlink(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &SymlinkError{Path: path}
	}
	return nil
}

// WritePrivate is [WriteAtomic] with mode 0600: for every file that may
// hold a secret.
func WritePrivate(path string, data []byte) error { return WriteAtomic(path, data, 0o600) }

// WriteAtomic replaces path with data, mode perm, through a temporary file
// in the same folder, fsync and rename, so that a crash leaves the old file
// or the new one, never half of one. A symbolic link at path is replaced
// by the file, never followed. The folder is created 0700 when missing.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, false)
}

// WriteNew is [WriteAtomic] for a file that must not exist yet: it fails
// with an error wrapping fs.ErrExist when anything is at path, a symbolic
// link (even a dangling one) included. The file appears whole or not at
// all.
func WriteNew(path string, data []byte, perm fs.FileMode) error {
	return write(path, data, perm, true)
}

func write(path string, data []byte, perm fs.FileMode, excl bool) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	if excl {
		// A hard link fails when anything is at path and follows no link.
		if err := os.Link(tmp, path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("writing %s: %w", path, fs.ErrExist)
			}
			return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
		}
		os.Remove(tmp)
	} else if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}

// unwrapPath drops the operation and path of a *PathError or *LinkError
// (the caller names the file) and keeps the cause.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
