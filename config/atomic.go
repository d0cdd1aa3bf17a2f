package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data, mode 0600, through a temporary
// file in the same directory, fsync and rename, so that a crash leaves the
// old file or the new one, never half of one. A symbolic link at path stays
// and its target is replaced. The directory is created 0700 when missing.
func writeFileAtomic(path string, data []byte) (err error) {
	if t, e := filepath.EvalSymlinks(path); e == nil {
		path = t
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}
