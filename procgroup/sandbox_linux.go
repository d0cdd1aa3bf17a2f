package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's access rights, by the ABI that brought them.
const (
	fsABI1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	fsRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// fsFile are the rights a rule on a file (not a folder) may hold.
	fsFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	netTCP = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
)

// rulesetAttr is struct landlock_ruleset_attr up to ABI 7.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// pathBeneath is struct landlock_path_beneath_attr (packed: 12 bytes).
type pathBeneath struct {
	allowed uint64
	fd      int32
	_       int32
}

// LandlockABI returns the Landlock ABI version of the running kernel, 0
// (with why) when it has none.
func LandlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, fmt.Errorf("Landlock is not available: %v (it needs Linux 5.13+ with landlock in the lsm= list)", errno)
	}
	return int(v), nil
}

// handled are the rights a ruleset of abi handles.
func handled(abi int) (fs uint64) {
	fs = fsABI1
	if abi >= 2 {
		fs |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		fs |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		fs |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return fs
}

// enforceable checks that every rule of boxes can be enforced by abi,
// unless a box is best-effort.
func enforceable(abi int, abiErr error, boxes []*Sandbox) error {
	best := true
	for _, b := range boxes {
		best = best && b.BestEffort
	}
	var missing string
	switch {
	case abi < 1:
		missing = abiErr.Error()
	case abi < 4 && anyNone(boxes):
		missing = fmt.Sprintf(`"network": "none" needs TCP rules (Landlock ABI 4, Linux 6.7+); this kernel offers ABI %d`, abi)
	case !seccompArch && anyNone(boxes):
		missing = `"network": "none" needs the socket filter, which mcpwire has for amd64 and arm64 only`
	}
	if missing != "" && !best {
		return &SandboxError{Missing: missing}
	}
	return nil
}

func anyNone(boxes []*Sandbox) bool {
	for _, b := range boxes {
		if b.Network == NetworkNone {
			return true
		}
	}
	return false
}

func contain(cmd *exec.Cmd, launcher string, boxes []*Sandbox) error {
	abi, err := LandlockABI()
	if err := enforceable(abi, err, boxes); err != nil {
		return err
	}
	if launcher == "" {
		return errors.New("procgroup: contain: no launcher (a program that calls procgroup.RunLauncher first)")
	}
	args, err := launcherArgs(launcher, cmd, boxes)
	if err != nil {
		return err
	}
	cmd.Path, cmd.Args = launcher, args
	return nil
}

// launch applies boxes to this process, then executes path.
func launch(boxes []*Sandbox, path string, argv []string) error {
	// no_new_privs, the seccomp filter and each Landlock domain are the
	// calling thread's, and execve keeps only its own thread: without the
	// lock the goroutine can move to another thread between a blocking
	// call here and the exec, and the command then runs unconfined (seen
	// under load, once in some hundred starts). The thread is never
	// unlocked: the exec replaces the process, and an error exits it.
	runtime.LockOSThread()
	abi, abiErr := LandlockABI()
	if err := enforceable(abi, abiErr, boxes); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %v", err)
	}
	if anyNone(boxes) && seccompArch {
		if err := denySockets(); err != nil {
			return err
		}
	}
	if abi >= 1 {
		for _, b := range boxes {
			if err := restrict(abi, b); err != nil {
				return err
			}
		}
	}
	return unix.Exec(path, argv, os.Environ())
}

// restrict applies one sandbox to this process (and what it starts).
func restrict(abi int, b *Sandbox) error {
	attr := rulesetAttr{fs: handled(abi)}
	size := unsafe.Sizeof(attr.fs)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.net)
		if b.Network == NetworkNone {
			attr.net = netTCP
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = unix.LANDLOCK_SCOPE_SIGNAL
		if b.Network == NetworkNone {
			attr.scoped |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
		}
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %v", errno)
	}
	defer unix.Close(int(fd))
	for _, p := range b.Read {
		if err := addPath(int(fd), p, fsRead&attr.fs); err != nil {
			return err
		}
	}
	for _, p := range b.Write {
		if err := addPath(int(fd), p, attr.fs); err != nil {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", errno)
	}
	return nil
}

// addPath allows rights beneath path; a path that does not exist is
// skipped (a default such as /lib32 on a system without it).
func addPath(ruleset int, path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sandbox path %s: %v", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("sandbox path %s: %v", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fsFile
	}
	rule := pathBeneath{allowed: rights, fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("sandbox path %s: landlock_add_rule: %v", path, errno)
	}
	return nil
}

// SandboxSupport says what this system can enforce, for doctor.
func SandboxSupport() string {
	abi, err := LandlockABI()
	if abi < 1 {
		return "none: " + err.Error()
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("Landlock ABI %d: files (read, write, run)", abi))
	if abi >= 4 {
		parts = append(parts, `TCP connect and bind ("network": "none")`)
	} else {
		parts = append(parts, `not TCP ("network": "none" needs ABI 4)`)
	}
	if abi >= 6 {
		parts = append(parts, "signals and abstract unix sockets scoped")
	}
	if seccompArch {
		parts = append(parts, "UDP, unix, raw and packet sockets denied by a seccomp filter (\"network\": \"none\")")
	} else {
		parts = append(parts, "no socket filter on this architecture")
	}
	return strings.Join(parts, "; ")
}
