//go:build !linux

package safe

import "os"

// kernelFile: only Linux is known to have regular-looking files of the
// kernel that a read may wait on.
func kernelFile(f *os.File) bool { return false }
