//go:build unix

package cli

import (
	"io/fs"
	"path/filepath"
	"syscall"
)

// socketPath is the daemon's socket in the session folder dir.
func socketPath(dir string) string { return filepath.Join(dir, "daemon.sock") }

// othersMayReach says whether fi's mode lets others than its owner in.
func othersMayReach(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }

// ownerOf is the uid that owns a file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
