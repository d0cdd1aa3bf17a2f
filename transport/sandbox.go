package transport

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/procgroup"
)

// A Sandbox is what a contained stdio server may touch; see
// [procgroup.Sandbox]. Stdio.Sandbox adds the defaults to each.
type Sandbox = procgroup.Sandbox

// A SandboxError says that a sandbox cannot be enforced on this system.
type SandboxError = procgroup.SandboxError

// RunSandboxLauncher runs this process as the sandbox launcher when it was
// started as one, and then never returns; otherwise it returns at once.
// A program that starts sandboxed stdio servers with itself as the
// launcher (Stdio.Launcher unset) calls it first thing in main.
func RunSandboxLauncher() { procgroup.RunLauncher() }

// SandboxSupport says what this system can enforce of a sandbox.
func SandboxSupport() string { return procgroup.SandboxSupport() }

// contain makes cmd start contained by boxes, each with the defaults
// added: read the system and the command's installation, read and write
// the system's null devices and a private temporary folder (TMPDIR),
// made now; relative paths are taken from the folder the server runs
// in. It returns the temporary folder, for the caller to remove once the
// server stopped.
func contain(cmd *exec.Cmd, launcher string, boxes []*Sandbox) (string, error) {
	dir := cmd.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs := func(paths []string) []string {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			out = append(out, filepath.Clean(p))
		}
		return out
	}
	tmp, err := os.MkdirTemp("", "mcpwire-sandbox-")
	if err != nil {
		return "", fmt.Errorf("the sandbox's temporary folder: %v", err)
	}
	layers := make([]*Sandbox, len(boxes))
	for i, b := range boxes {
		l := &Sandbox{Network: b.Network, BestEffort: b.BestEffort}
		l.Read = append(append(append([]string{}, procgroup.SystemRead...), procgroup.Installation(cmd.Path)), abs(b.Read)...)
		l.Write = append(append(append([]string{}, procgroup.SystemDevices...), tmp), abs(b.Write)...)
		layers[i] = l
	}
	if launcher == "" {
		launcher, err = os.Executable()
	}
	if err == nil {
		err = procgroup.Contain(cmd, launcher, layers...)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	env := make([]string, 0, len(cmd.Env)+1)
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "TMPDIR="+tmp)
	return tmp, nil
}
