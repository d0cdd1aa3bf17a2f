package manager

import (
	"fmt"
	"strings"
)

// Phases of a server's life, named in errors.
const (
	PhaseConfig     = "config"
	PhaseApproval   = "approval"
	PhaseSpawn      = "spawn"
	PhaseConnect    = "connect"
	PhaseInitialize = "initialize"
	PhaseList       = "list"
	PhaseCall       = "call"
	PhaseAuth       = "auth"
	PhaseShutdown   = "shutdown"
)

// A ServerError is a failure of one server in one phase. It prints as
// "github: initialize: …".
type ServerError struct {
	Server string
	Phase  string
	Err    error
	// Stderr is the last of a stdio server's stderr, when it has any.
	Stderr string
}

func (e *ServerError) Error() string {
	if e.Server == "" {
		return e.Phase + ": " + e.Reason()
	}
	return fmt.Sprintf("%s: %s: %s", e.Server, e.Phase, e.Reason())
}

// Reason is the error without its server and phase, and without the
// phase's name repeated at its start ("initialize: initialize: …").
func (e *ServerError) Reason() string {
	msg := e.Err.Error()
	for strings.HasPrefix(msg, e.Phase+": ") {
		msg = msg[len(e.Phase)+2:]
	}
	return msg
}

func (e *ServerError) Unwrap() error { return e.Err }
