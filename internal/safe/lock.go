package safe

import (
	"fmt"
	"os"
)

// A FileLock is an exclusive lock held across a read-modify-write of one
// file, between processes and between goroutines of one process. It is
// taken on a lock file next to the file (path + ".lock"), since the file
// itself is replaced by every write.
type FileLock struct {
	f    *os.File
	path string
}

// Lock waits until it holds the lock of path and returns it. The lock file
// is created when missing (0600, never through a symbolic link) and
// removed again by Unlock where the system allows it.
func Lock(path string) (*FileLock, error) {
	lp := path + ".lock"
	for range 100 {
		f, err := openLockFile(lp)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %v", path, unwrapPath(err))
		}
		if err := lockFile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %v", path, err)
		}
		// The holder before may have removed the lock file after we
		// opened it: then this lock is on a file nobody else sees.
		held, err1 := f.Stat()
		now, err2 := os.Lstat(lp)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &FileLock{f: f, path: lp}, nil
		}
		unlockFile(f)
		f.Close()
	}
	return nil, fmt.Errorf("locking %s: the lock file %s keeps changing", path, lp)
}

// Unlock releases the lock. It may be called more than once.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	if removeLockFiles {
		os.Remove(l.path)
	}
	err := unlockFile(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
