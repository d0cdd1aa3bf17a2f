package manager

import "fmt"

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
		return fmt.Sprintf("%s: %v", e.Phase, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Server, e.Phase, e.Err)
}

func (e *ServerError) Unwrap() error { return e.Err }
