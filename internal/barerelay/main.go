// Command barerelay is the floor of a proxy hop over stdio: a bare Go
// program between a host and a server that copies the bytes of each
// direction through user space as they come (a read and a write per
// message, one goroutine per direction) and looks at none of them:
// what any process in the path must do, and nothing more (no framing,
// no JSON, no era, no IDs).
//
//	barerelay COMMAND ARGS…
//
// It ends when the server's stdout closes, after the server exits.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// pump copies src to dst, a read and a write at a time, until either
// fails.
func pump(dst io.Writer, src io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: barerelay COMMAND ARGS…")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err == nil {
		var out io.ReadCloser
		if out, err = cmd.StdoutPipe(); err == nil {
			if err = cmd.Start(); err == nil {
				go func() {
					pump(in, os.Stdin)
					in.Close()
				}()
				pump(os.Stdout, out)
				err = cmd.Wait()
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "barerelay:", err)
		os.Exit(1)
	}
}
