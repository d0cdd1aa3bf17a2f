package procgroup

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BPF instruction classes and fields used by the socket filter.
const (
	bpfLdWAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfAndK   = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
)

// x32Bit marks the syscalls of amd64's x32 ABI: refused.
const x32Bit = 0x40000000

// socketFilter is a seccomp program for "network": "none" beside
// Landlock's TCP rules: socket() of the internet families only for
// stream sockets (which Landlock governs), of netlink sockets freely, of
// unix sockets never (Landlock does not govern connecting to a unix
// socket's path: an SSH agent, a container engine, or the session bus,
// which starts unconfined processes on request, would be reachable;
// socketpair still works), of any other family (packet, raw, …) never;
// io_uring, which
// could make sockets past the filter, refused; a foreign architecture's
// or x32's system calls refused. The offsets of seccomp_data: nr 0,
// arch 4, args 16 (the low halves, little endian).
func socketFilter() []unix.SockFilter {
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	return []unix.SockFilter{
		/* 0 */ {Code: bpfLdWAbs, K: 4},
		/* 1 */ {Code: bpfJeqK, K: auditArch, Jt: 1},
		/* 2 */ {Code: bpfRetK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		/* 3 */ {Code: bpfLdWAbs, K: 0},
		/* 4 */ {Code: bpfJgeK, K: x32Bit, Jt: 11},
		/* 5 */ {Code: bpfJeqK, K: sysIoUringSetup, Jt: 10},
		/* 6 */ {Code: bpfJeqK, K: sysSocket, Jf: 8},
		/* 7 */ {Code: bpfLdWAbs, K: 16},
		/* 8 */ {Code: bpfJeqK, K: unix.AF_UNIX, Jt: 7},
		/* 9 */ {Code: bpfJeqK, K: unix.AF_NETLINK, Jt: 5},
		/* 10 */ {Code: bpfJeqK, K: unix.AF_INET, Jt: 1},
		/* 11 */ {Code: bpfJeqK, K: unix.AF_INET6, Jf: 4},
		/* 12 */ {Code: bpfLdWAbs, K: 24},
		/* 13 */ {Code: bpfAndK, K: 0xf},
		/* 14 */ {Code: bpfJeqK, K: unix.SOCK_STREAM, Jf: 1},
		/* 15 */ {Code: bpfRetK, K: unix.SECCOMP_RET_ALLOW},
		/* 16 */ {Code: bpfRetK, K: deny},
	}
}

// denySockets installs socketFilter on this process (no_new_privs set).
func denySockets() error {
	if !seccompArch {
		return fmt.Errorf("no socket filter for this architecture")
	}
	f := socketFilter()
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %v", err)
	}
	return nil
}
