package procgroup

import (
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// sandboxExec is macOS's sandbox-exec.
const sandboxExec = "/usr/bin/sandbox-exec"

// contain runs cmd under sandbox-exec with a profile made from the one
// sandbox given (macOS cannot stack profiles: two are refused).
func contain(cmd *exec.Cmd, launcher string, boxes []*Sandbox) error {
	if len(boxes) > 1 {
		return &SandboxError{Missing: "stacked sandboxes (a project's under the home's default) on macOS"}
	}
	profile := seatbeltProfile(boxes[0])
	cmd.Args = append([]string{sandboxExec, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sandboxExec
	return nil
}

// seatbeltProfile is the sandbox-exec profile of b: deny by default,
// then what b allows.
func seatbeltProfile(b *Sandbox) string {
	var p strings.Builder
	p.WriteString("(version 1)\n(deny default)\n(allow process-fork)\n(allow process-exec)\n(allow signal (target same-sandbox))\n")
	p.WriteString("(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n")
	lit := func(s string) string { return strconv.Quote(s) }
	for _, r := range append(append([]string{}, SystemRead...), b.Read...) {
		fmt.Fprintf(&p, "(allow file-read* (subpath %s))\n", lit(r))
	}
	p.WriteString("(allow file-read* (subpath \"/System\") (subpath \"/Library\") (subpath \"/private/etc\") (subpath \"/private/var/db\"))\n")
	for _, d := range SystemDevices {
		fmt.Fprintf(&p, "(allow file-read* file-write* (literal %s))\n", lit(d))
	}
	for _, w := range b.Write {
		fmt.Fprintf(&p, "(allow file-read* file-write* (subpath %s))\n", lit(w))
	}
	if b.Network == NetworkAny {
		p.WriteString("(allow network*)\n")
	}
	return p.String()
}

func launch(boxes []*Sandbox, path string, argv []string) error {
	return errors.New("the launcher is not used on macOS (sandbox-exec is)")
}

// SandboxSupport says what this system can enforce, for doctor.
func SandboxSupport() string {
	return "sandbox-exec with a generated profile (files, network all or nothing); one sandbox at a time"
}
