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

func lockFile(f *os.File) error   { return errors.New("file locks are not supported on this system") }
func unlockFile(f *os.File) error { return nil }
