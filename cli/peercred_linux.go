package cli

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPeer refuses a socket whose other end is a process of another
// user (SO_PEERCRED).
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("SO_PEERCRED: %w", cerr)
	}
	if int(cred.Uid) != os.Getuid() {
		return &untrustedError{"(peer)", fmt.Sprintf("the process at the other end (pid %d) is uid %d, not %d", cred.Pid, cred.Uid, os.Getuid()), false}
	}
	return nil
}
