//go:build !unix

package safe

import "os"

// openRead opens path to read it; the caller checks on the descriptor
// that it is a regular file.
func openRead(path string) (*os.File, error) { return os.Open(path) }
