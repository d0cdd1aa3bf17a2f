//go:build unix

package cli

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// openTerminal opens the terminal that f is, anew and pollable (so that a
// read can end at a deadline), or returns nil.
func openTerminal(f *os.File) *os.File {
	path := "/dev/tty"
	if runtime.GOOS == "linux" {
		if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil {
			path = p
		}
	}
	tty, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	if tty.SetReadDeadline(time.Time{}) != nil {
		tty.Close() // not pollable: a read could not be cut short
		return nil
	}
	return tty
}
