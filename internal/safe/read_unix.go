//go:build unix

package safe

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openRead opens path to read it without ever blocking in open: a FIFO
// without a writer or a terminal would (O_NONBLOCK), and a terminal never
// becomes the controlling one (O_NOCTTY). Once open, the descriptor is
// made blocking again, so a regular file reads as usual.
func openRead(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags&^unix.O_NONBLOCK)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
