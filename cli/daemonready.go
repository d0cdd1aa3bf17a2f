//go:build unix || windows

package cli

import "os"

// signalReady tells the starter that the daemon listens, on the
// descriptor (Unix) or inherited handle (Windows) fd, when one is given.
func signalReady(fd int) {
	if fd <= 0 {
		return
	}
	if f := os.NewFile(uintptr(fd), "ready"); f != nil {
		f.Write([]byte("ready\n"))
		f.Close()
	}
}
