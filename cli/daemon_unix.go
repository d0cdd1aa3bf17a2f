//go:build unix

package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// daemonStartWait bounds the start of a daemon, until it listens.
const daemonStartWait = 10 * time.Second

// daemonPid is this process's pid (the daemon's, in it).
func daemonPid() int { return os.Getpid() }

// listenPrivate listens on p's socket: the folder 0700 and ours, the
// socket 0600 (made so: the daemon's umask is 077).
func listenPrivate(p sessionPaths) (net.Listener, error) {
	syscall.Umask(0o077)
	if err := p.makeDir(); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(p.sock); err == nil {
		if fi.Mode().Type() != os.ModeSocket {
			return nil, &untrustedError{p.sock, "not a socket", false}
		}
		os.Remove(p.sock) // stale: the starter found no listener, under the lock
	}
	ln, err := net.Listen("unix", p.sock)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := os.Chmod(p.sock, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// dialSocket connects to the daemon's socket at p: the socket and its
// folder checked first, the peer after.
func dialSocket(ctx context.Context, p sessionPaths) (net.Conn, error) {
	if err := checkPrivate(p.dir, true); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errNoDaemon
		}
		return nil, err
	}
	if err := checkPrivate(p.sock, false); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errNoDaemon
		}
		return nil, err
	}
	d := net.Dialer{Timeout: helloWait}
	c, err := d.DialContext(ctx, "unix", p.sock)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
			return nil, errNoDaemon
		}
		return nil, err
	}
	if err := checkPeer(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// mayListen says whether a daemon may listen at p: its socket exists.
func mayListen(p sessionPaths) bool {
	_, err := os.Lstat(p.sock)
	return err == nil
}

// removeSocket removes what is at the socket's path, unless it is a
// folder (never ours to remove).
func removeSocket(path string) error {
	err := removeIfNotDir(path)
	if err != nil {
		return fmt.Errorf("removing the old session socket %s: %w", path, err)
	}
	return nil
}

// dropSocket removes the daemon's socket as it stops.
func dropSocket(path string) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == os.ModeSocket {
		os.Remove(path)
	}
}

// startDaemon starts the home's daemon, detached: a session of its own
// (no terminal), stdin from /dev/null, stdout and stderr to the log in
// the home; it returns once the daemon listens.
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
	cmd := exec.Command(inv.env.Executable, "--home", home, "session-daemon", "--ready-fd", "3")
	cmd.Env = inv.env.Environ()
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("starting the session daemon: %w", err)
	}
	r.SetReadDeadline(time.Now().Add(daemonStartWait))
	line, rerr := bufio.NewReader(r).ReadString('\n')
	if rerr != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("the session daemon did not start within %v (its log: %s)", daemonStartWait, p.log)
	}
	go cmd.Wait() // reaped when it ends while this process lives
	return nil
}

// openDaemonLog opens the daemon's log for appending, 0600; a log past
// its bound starts again.
func openDaemonLog(path string) (*os.File, error) {
	const maxLog = 1 << 20
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND | syscall.O_NOFOLLOW
	if fi, err := os.Lstat(path); err == nil && fi.Size() > maxLog {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the session daemon's log: %w", err)
	}
	return f, nil
}
