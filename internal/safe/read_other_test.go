//go:build !unix

package safe

import "testing"

func mkfifo(t *testing.T, dir string) string     { return "" }
func listenUnix(t *testing.T, dir string) string { return "" }
