//go:build !unix && !windows

package safe

import (
	"errors"
	"os"
)

const removeLockFiles = false

func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

func tryLockFile(f *os.File) (bool, error) {
	return false, errors.New("file locks are not supported on this system")
}
func unlockFile(f *os.File) error { return nil }
