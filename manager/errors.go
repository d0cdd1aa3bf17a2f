package manager

import (
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/transport"
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

// The errors of the layers below that an agent branches on, so that it
// need not import them: test with errors.Is and errors.As.
var (
	// ErrLoginRequired matches every error that says a login is needed.
	ErrLoginRequired = oauth.ErrLoginRequired
	// ErrNoClientID: the authorization server needs a pre-registered
	// client (LoginOptions.ClientID, or the definition's oauth.client_id).
	ErrNoClientID = oauth.ErrNoClientID
	// ErrPKCEUnsupported: the authorization server does not offer PKCE
	// S256, which MCP requires.
	ErrPKCEUnsupported = oauth.ErrPKCEUnsupported
	// ErrTooManyAttempts: the server kept asking for more scope.
	ErrTooManyAttempts = oauth.ErrTooManyAttempts
)

type (
	// A LoginRequiredError says why a server needs a login.
	LoginRequiredError = oauth.LoginRequiredError
	// A StepUpError says the server needs more scope than the token
	// holds; the next Login asks for it.
	StepUpError = oauth.StepUpError
	// A ResourceMismatchError or IssuerMismatchError says the server's
	// OAuth metadata does not match it: no login goes on.
	ResourceMismatchError = oauth.ResourceMismatchError
	IssuerMismatchError   = oauth.IssuerMismatchError
	// An ExitError says a stdio server's process ended.
	ExitError = transport.ExitError
)

// An ApprovalError says that a server cannot run because the approvals
// of the home folder cannot be read or created (an approval key that is
// unreadable or of the wrong length, a settings.json that is not JSON, a
// home that cannot be created): approvals fail closed. Cause says which.
type ApprovalError struct{ Cause error }

func (e *ApprovalError) Error() string {
	return "not approved: approvals are unavailable (" + e.Cause.Error() + ")"
}

func (e *ApprovalError) Unwrap() error { return e.Cause }
