package procgroup

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// seatbeltProfile is the sandbox-exec profile of b (macOS): deny by
// default, then what b allows. Each path is given as written and, when
// a link leads elsewhere, as it resolves (the profile matches the real
// path: macOS's /tmp, /var and /etc are links into /private, and so is
// the temporary folder of a server). Paths are string literals, so no
// path can add a rule of its own.
func seatbeltProfile(b *Sandbox) string {
	var p strings.Builder
	p.WriteString("(version 1)\n(deny default)\n(allow process-fork)\n(allow process-exec)\n(allow signal (target same-sandbox))\n")
	p.WriteString("(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n")
	for _, r := range realPaths(append(append([]string{}, SystemRead...), b.Read...)) {
		fmt.Fprintf(&p, "(allow file-read* (subpath %s))\n", strconv.Quote(r))
	}
	p.WriteString("(allow file-read* (subpath \"/System\") (subpath \"/Library\") (subpath \"/private/etc\") (subpath \"/private/var/db\"))\n")
	for _, d := range SystemDevices {
		fmt.Fprintf(&p, "(allow file-read* file-write* (literal %s))\n", strconv.Quote(d))
	}
	for _, w := range realPaths(b.Write) {
		fmt.Fprintf(&p, "(allow file-read* file-write* (subpath %s))\n", strconv.Quote(w))
	}
	if b.Network == NetworkAny {
		p.WriteString("(allow network*)\n")
	}
	return p.String()
}

// realPaths are paths, each followed by where it leads when a link on
// the way leads elsewhere.
func realPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, path := range paths {
		out = append(out, path)
		if r, err := filepath.EvalSymlinks(path); err == nil && r != path {
			out = append(out, r)
		}
	}
	return out
}
