package procgroup

import "golang.org/x/sys/unix"

const (
	seccompArch     = true
	auditArch       = unix.AUDIT_ARCH_X86_64
	sysSocket       = unix.SYS_SOCKET
	sysIoUringSetup = unix.SYS_IO_URING_SETUP
)
