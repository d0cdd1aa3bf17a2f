//go:build !unix && !windows

package cli

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
)

// errNoSessions says sessions need Unix sockets or named pipes, which
// this build does not have.
var errNoSessions = errors.New("sessions (connect) are not supported on this system yet")

func daemonPid() int { return os.Getpid() }

func signalReady(int) {}

func socketPath(dir string) string { return filepath.Join(dir, "daemon.sock") }

func listenPrivate(sessionPaths) (net.Listener, error) { return nil, errNoSessions }

func dialSocket(context.Context, sessionPaths) (net.Conn, error) { return nil, errNoDaemon }

func mayListen(sessionPaths) bool { return false }

func removeSocket(string) error { return nil }

func dropSocket(string) {}

func (inv *invocation) startDaemon(string, sessionPaths) error { return errNoSessions }
