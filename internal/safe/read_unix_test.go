//go:build unix

package safe

import (
	"net"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func mkfifo(t *testing.T, dir string) string {
	p := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func listenUnix(t *testing.T, dir string) string {
	p := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return p
}
