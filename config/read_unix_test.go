//go:build unix

package config

import (
	"testing"

	"golang.org/x/sys/unix"
)

func init() {
	mkfifo = func(t *testing.T, p string) {
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
