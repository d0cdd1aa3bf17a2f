//go:build !unix

package manager

import "time"

// selfCPU is not measured here.
func selfCPU() time.Duration { return 0 }
