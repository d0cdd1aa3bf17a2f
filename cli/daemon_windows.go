package cli

// The session daemon on Windows: it listens on a named pipe of the
// user's (safe.ListenPipe), and is started detached (a process
// group of its own, no console), its readiness told through an inherited
// pipe handle as the Unix daemon tells it through descriptor 3.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// daemonStartWait bounds the start of a daemon, until it listens.
const daemonStartWait = 10 * time.Second

// detachedProcess is DETACHED_PROCESS: the child has no console.
const detachedProcess = 0x00000008

// socketPath is the daemon's pipe for the session folder dir: named by
// the user's SID and a hash of the folder (so XDG_RUNTIME_DIR chooses
// another, as it chooses another socket on Unix).
func socketPath(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	who, err := safe.UserSID()
	if err != nil {
		who = "nosid"
	}
	return `\\.\pipe\mcpwire-` + who + "-" + hex.EncodeToString(sum[:6])
}

// daemonPid is this process's pid (the daemon's, in it).
func daemonPid() int { return os.Getpid() }

// listenPrivate listens on p's pipe, this user's alone; a pipe another
// process holds is refused.
func listenPrivate(p sessionPaths) (net.Listener, error) {
	if err := p.makeDir(); err != nil {
		return nil, err
	}
	ln, err := safe.ListenPipe(p.sock)
	if errors.Is(err, safe.ErrPipeTaken) {
		return nil, &untrustedError{p.sock, "another process holds the pipe", false}
	}
	return ln, err
}

// dialSocket connects to the daemon's pipe at p and checks that the
// process serving it runs as this user.
func dialSocket(ctx context.Context, p sessionPaths) (net.Conn, error) {
	c, err := safe.DialPipe(ctx, p.sock, helloWait)
	switch {
	case errors.Is(err, safe.ErrNoPipe):
		return nil, errNoDaemon
	case errors.Is(err, safe.ErrPipeBusy):
		return nil, &silentError{p.sock, err}
	case err != nil:
		return nil, err
	}
	if err := checkPeer(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// mayListen is true: opening the pipe is the check (a pipe is no file
// to look at without connecting).
func mayListen(sessionPaths) bool { return true }

// removeSocket cannot remove a pipe (it ends with its last handle): one
// that is still there, after its listener did not answer as a daemon, is
// another process's, and not replaced.
func removeSocket(path string) error {
	if safe.PipeExists(path) {
		return &untrustedError{path, "another process holds the pipe, and did not answer as a session daemon", false}
	}
	return nil
}

// dropSocket has nothing to remove.
func dropSocket(string) {}

// startDaemon starts the home's daemon, detached: a process group of its
// own and no console, stdin from NUL, stdout and stderr to the log in the
// home; it returns once the daemon listens.
func (inv *invocation) startDaemon(home string, p sessionPaths) error {
	log, err := openDaemonLog(p.log)
	if err != nil {
		return err
	}
	defer log.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	wh := syscall.Handle(w.Fd())
	if err := syscall.SetHandleInformation(wh, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT); err != nil {
		w.Close()
		return fmt.Errorf("starting the session daemon: %w", err)
	}
	cmd := exec.Command(inv.env.Executable, "--home", home, "session-daemon", "--ready-fd", strconv.FormatUint(uint64(wh), 10))
	cmd.Env = inv.env.Environ()
	cmd.Dir = filepath.VolumeName(inv.env.Executable) + `\`
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags:              syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess,
		HideWindow:                 true,
		AdditionalInheritedHandles: []syscall.Handle{wh},
	}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("starting the session daemon: %w", err)
	}
	if err := readyWithin(r, daemonStartWait, cmd); err != nil {
		return fmt.Errorf("%w (its log: %s)", err, p.log)
	}
	go cmd.Wait() // reaped when it ends while this process lives
	return nil
}

// readyWithin reads the daemon's ready line from r within d; a daemon
// that does not send it in time is killed (which ends the read).
func readyWithin(r *os.File, d time.Duration, cmd *exec.Cmd) error {
	got := make(chan bool, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		got <- err == nil && line == "ready\n"
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	err := fmt.Errorf("the session daemon did not start within %v", d)
	select {
	case ok := <-got:
		if ok {
			return nil
		}
		err = errors.New("the session daemon ended before it listened")
	case <-timer.C:
	}
	cmd.Process.Kill()
	cmd.Wait()
	return err
}

// openDaemonLog opens the daemon's log for appending; a log past its
// bound starts again.
func openDaemonLog(path string) (*os.File, error) {
	const maxLog = 1 << 20
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != 0 {
			return nil, fmt.Errorf("the session daemon's log %s is not a file", path)
		}
		if fi.Size() > maxLog {
			flags |= os.O_TRUNC
		}
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the session daemon's log: %w", err)
	}
	return f, nil
}
