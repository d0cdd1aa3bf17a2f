//go:build !unix

package cli

import (
	"errors"
	"net"
	"os"
)

// errNoSessions says sessions need Unix sockets and sessions of
// processes (setsid), which this build does not have.
var errNoSessions = errors.New("sessions (connect) are not supported on this system yet")

func daemonPid() int { return os.Getpid() }

func listenPrivate(sessionPaths) (net.Listener, error) { return nil, errNoSessions }

func (inv *invocation) startDaemon(string, sessionPaths) error { return errNoSessions }

func signalReady(int) {}
