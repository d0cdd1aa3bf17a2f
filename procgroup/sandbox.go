package procgroup

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Network policies of a [Sandbox]. NetworkNone denies TCP connect and
// bind (Landlock), unix sockets (but socketpair), and sockets of any
// other kind than TCP and netlink ones (a seccomp filter on amd64 and
// arm64). NetworkAny allows all, unix sockets outside included.
const (
	NetworkNone = "none" // no TCP connect or bind, no unix socket, no UDP
	NetworkAny  = "any"
)

// A Sandbox is what a contained command may do: read the folders and
// files of Read (and run what is there), read and write those of Write,
// and reach the network when Network is NetworkAny. Everything else of
// the file system is denied, to the command and everything it starts.
// Paths are absolute.
type Sandbox struct {
	Network string   `json:"network"`
	Read    []string `json:"read"`
	Write   []string `json:"write"`
	// BestEffort runs the command with what the system can enforce of
	// the sandbox, instead of refusing it when a rule cannot be.
	BestEffort bool `json:"bestEffort,omitempty"`
}

// LauncherArg is the first argument with which a program runs as the
// sandbox launcher: see [RunLauncher].
const LauncherArg = "__mcpwire_sandbox_launcher__"

// A SandboxError says that a sandbox cannot be enforced on this system:
// the command is not run.
type SandboxError struct {
	Missing string // what is missing: "Landlock (Linux 5.13+)", "TCP rules (Landlock ABI 4, Linux 6.7+)", …
}

func (e *SandboxError) Error() string {
	return "the sandbox cannot be enforced here: " + e.Missing + " (the server is not run; a definition may say \"bestEffort\": true to run it with what can be enforced)"
}

// SystemRead are the folders a contained command may read by default:
// the system's programs and libraries and its configuration (certificate
// stores, name resolution, time zones).
var SystemRead = []string{"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc",
	"/proc/self", "/sys/devices/system/cpu"}

// SystemDevices may be read and written by a contained command.
var SystemDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Installation is the folder a command is installed in, to be read by
// default: the folder of the program (links resolved), its parent when
// that folder is a bin folder, and for a program inside a lib/node_modules
// the prefix above it (npx, a package's bin script).
func Installation(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if i := strings.Index(path, string(filepath.Separator)+filepath.Join("lib", "node_modules")+string(filepath.Separator)); i > 0 {
		return path[:i]
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "bin" {
		return filepath.Dir(dir)
	}
	return dir
}

// Contain makes cmd (made by exec.Command, not started) start contained
// by the sandboxes given, each narrowing what the ones before allow (a
// project's sandbox under the user's default, say). On Linux the rules
// are Landlock's, applied with no_new_privs by launcher (a program that
// calls RunLauncher first: the mcpwire binary, or an embedding program)
// between its start and the exec of the command; on macOS, sandbox-exec
// with a generated profile; elsewhere, and where a rule cannot be
// enforced (unless a sandbox says BestEffort), a *SandboxError.
func Contain(cmd *exec.Cmd, launcher string, boxes ...*Sandbox) error {
	if len(boxes) == 0 {
		return nil
	}
	if cmd.Path == "" || !filepath.IsAbs(cmd.Path) {
		return fmt.Errorf("procgroup: contain: the command's path %q is not absolute", cmd.Path)
	}
	for _, b := range boxes {
		if err := b.check(); err != nil {
			return err
		}
	}
	return contain(cmd, launcher, boxes)
}

// check refuses a sandbox that is not well formed.
func (b *Sandbox) check() error {
	if b.Network != NetworkNone && b.Network != NetworkAny {
		return fmt.Errorf("procgroup: sandbox: network %q (none or any)", b.Network)
	}
	for _, p := range append(append([]string{}, b.Read...), b.Write...) {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("procgroup: sandbox: path %q is not absolute", p)
		}
	}
	return nil
}

// launcherArgs are the arguments of the launcher for cmd.
func launcherArgs(launcher string, cmd *exec.Cmd, boxes []*Sandbox) ([]string, error) {
	policy, err := json.Marshal(boxes)
	if err != nil {
		return nil, err
	}
	return append([]string{launcher, LauncherArg, string(policy), cmd.Path}, cmd.Args[1:]...), nil
}

// RunLauncher runs this process as the sandbox launcher when it was
// started as one (its first argument is LauncherArg), and then never
// returns: it applies the sandboxes to itself and executes the command,
// or says on stderr why it cannot and exits 126. Otherwise it returns at
// once. A program that contains commands with itself as the launcher
// calls it first thing in main (and in TestMain).
func RunLauncher() {
	if len(os.Args) < 4 || os.Args[1] != LauncherArg {
		return
	}
	var boxes []*Sandbox
	err := json.Unmarshal([]byte(os.Args[2]), &boxes)
	if err == nil {
		err = launch(boxes, os.Args[3], os.Args[3:])
	}
	if err == nil {
		err = errors.New("exec returned")
	}
	fmt.Fprintf(os.Stderr, "mcpwire sandbox: %v\n", err)
	os.Exit(126)
}
