//go:build linux && !amd64 && !arm64

package procgroup

// No socket filter here: "network": "none" restricts TCP only, and is
// refused unless best-effort.
const (
	seccompArch     = false
	auditArch       = 0
	sysSocket       = 0
	sysIoUringSetup = 0
)
