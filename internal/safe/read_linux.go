package safe

import (
	"os"

	"golang.org/x/sys/unix"
)

// kernelFile reports whether f is a file the kernel makes up as it is
// read (/proc, /sys, debugfs, tracefs, securityfs, cgroup2): regular by
// its mode, but no file of anyone's, and some (/proc/kmsg, trace_pipe)
// block a read until the kernel has something to say.
func kernelFile(f *os.File) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC,
		unix.SECURITYFS_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return true
	}
	return false
}
