//go:build unix

package manager

import (
	"syscall"
	"time"
)

// selfCPU is the CPU time this process has used (user and system), not
// its children's.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
