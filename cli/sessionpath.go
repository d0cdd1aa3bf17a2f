package cli

// Where a home's session daemon is reached, and what makes its socket
// trusted: a folder of ours, 0700, holding a socket of ours, 0600, whose
// listener answers within a bound (and, on Linux, is a process of ours).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// helloWait bounds the wait for a daemon's first line: a listener that
// says nothing within it is not a daemon of ours. A daemon writes its
// hello as it accepts, but one starved on a loaded machine was seen to
// take over 2 s (a CI run with the race detector beside a CPU hog), and
// taking it for a squatter would start a second daemon; a real squatter
// costs this wait once, then connect replaces it.
const helloWait = 10 * time.Second

// sessionPaths are the files of a home's session daemon.
type sessionPaths struct {
	dir  string // 0700: $XDG_RUNTIME_DIR/mcpwire-<hash of the home>, else <home>/sessions
	sock string // the daemon's socket, 0600
	lock string // held while a daemon is found or started
	log  string // the daemon's stdout and stderr, in the home
}

// pathsOf returns the session files of home: one daemon per user and home.
func pathsOf(home string, getenv func(string) string) sessionPaths {
	dir := filepath.Join(home, "sessions")
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		sum := sha256.Sum256([]byte(filepath.Clean(home)))
		dir = filepath.Join(rt, "mcpwire-"+hex.EncodeToString(sum[:6]))
	}
	return sessionPaths{dir: dir, sock: socketPath(dir), lock: filepath.Join(dir, "daemon.lock"),
		log: filepath.Join(home, "sessions.log")}
}

// An untrustedError says the session folder or socket is not ours alone.
type untrustedError struct {
	path, why string
	folder    bool // path is the session folder, not the socket
}

func (e *untrustedError) Error() string {
	what := "session socket"
	if e.folder {
		what = "session folder"
	}
	return fmt.Sprintf("%s %s is not trusted: %s", what, e.path, e.why)
}

// hint says what to do about it: mcpwire never removes what it did not
// make, so the user removes it, or chooses another folder.
func (e *untrustedError) hint() string {
	if e.path == "(peer)" {
		return "another user's process listens at the session socket: stop it, or set XDG_RUNTIME_DIR to a folder of yours"
	}
	if strings.HasPrefix(e.path, `\\.\pipe\`) {
		return "another process holds the session pipe: stop it, or set XDG_RUNTIME_DIR to a folder of yours (its pipe is another)"
	}
	return fmt.Sprintf("if it is not yours, remove it (rm -r %s), or set XDG_RUNTIME_DIR to a folder of yours; sessions need a folder only you may reach", safe.ShellQuote(e.path))
}

// errNoDaemon says no daemon listens: no socket, or a stale one.
var errNoDaemon = errors.New("no session daemon")

// A silentError says a listener did not answer as a daemon within a bound.
type silentError struct {
	path string
	err  error
}

func (e *silentError) Error() string {
	return fmt.Sprintf("the session daemon at %s did not answer within %v: %v", e.path, helloWait, e.err)
}

// makeDir creates the session folder (0700) when missing and checks it.
func (p sessionPaths) makeDir() error {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return fmt.Errorf("creating the session folder: %w", err)
	}
	return checkPrivate(p.dir, true)
}

// checkPrivate refuses a folder (dir) or socket that is a symlink, is
// not ours, or that others may reach.
func checkPrivate(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	want, kind := os.ModeSocket, "a socket"
	if dir {
		want, kind = os.ModeDir, "a folder"
	}
	switch {
	case fi.Mode().Type() != want:
		return &untrustedError{path, "not " + kind + " (" + fi.Mode().Type().String() + ")", dir}
	case othersMayReach(fi):
		return &untrustedError{path, fmt.Sprintf("mode %04o: others may reach it", fi.Mode().Perm()), dir}
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
		return &untrustedError{path, fmt.Sprintf("owned by uid %d, not %d", uid, os.Getuid()), dir}
	}
	return nil
}

// removeIfNotDir removes path unless it is a folder; a missing path is
// no error.
func removeIfNotDir(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return &untrustedError{path, "a folder", false}
	}
	return os.Remove(path)
}
