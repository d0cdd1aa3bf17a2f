package manager

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/oauth"
	"github.com/mcpwire/mcpwire/protocol"
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
	// ErrNoDeviceGrant: a device login was asked for (DeviceOnly) and
	// the authorization server does not offer the grant.
	ErrNoDeviceGrant = oauth.ErrNoDeviceGrant
	// ErrDeviceDenied: the person denied a device login.
	ErrDeviceDenied = oauth.ErrDeviceDenied
	// ErrDeviceExpired: a device login's code expired (or the wait for
	// its approval ended) before it was approved.
	ErrDeviceExpired = oauth.ErrDeviceExpired
)

// An ExitError says a stdio server's process ended.
type ExitError = transport.ExitError

// A LoginRequiredError says why a server needs a login; errors.Is(err,
// ErrLoginRequired) holds for it.
type LoginRequiredError struct {
	Reason string
	err    error // what the OAuth layer said, if it said it
}

func (e *LoginRequiredError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return "login required: " + e.Reason
}

// Is reports ErrLoginRequired.
func (e *LoginRequiredError) Is(target error) bool { return target == ErrLoginRequired }

// Unwrap returns what the OAuth layer said, or nil.
func (e *LoginRequiredError) Unwrap() error { return e.err }

// A StepUpError says the server needs more scope than the token holds
// (a 403 insufficient_scope); the next Login asks for Scopes.
type StepUpError struct {
	Scopes   []string // the union of the scopes held and those required
	Required []string // what the server asked for
	err      error
}

func (e *StepUpError) Error() string { return e.err.Error() }

// Unwrap returns what the OAuth layer said.
func (e *StepUpError) Unwrap() error { return e.err }

// A ResourceMismatchError says the server's protected resource metadata
// is for another resource: no login goes on. Both URLs are redacted.
type ResourceMismatchError struct {
	Resource, Server string
	err              error
}

func (e *ResourceMismatchError) Error() string { return e.err.Error() }

// Unwrap returns what the OAuth layer said.
func (e *ResourceMismatchError) Unwrap() error { return e.err }

// An IssuerMismatchError says an issuer differs from the one expected
// (in the authorization server's metadata, or in the authorization
// response): no login goes on.
type IssuerMismatchError struct {
	Where, Expected, Got string
	err                  error
}

func (e *IssuerMismatchError) Error() string { return e.err.Error() }

// Unwrap returns what the OAuth layer said.
func (e *IssuerMismatchError) Unwrap() error { return e.err }

// ownAuthErrors returns err with the errors of the OAuth layer that an
// agent branches on put in this package's types (each wrapping err), so
// that errors.As finds them without importing oauth.
func ownAuthErrors(err error) error {
	if err == nil {
		return nil
	}
	var (
		lr *oauth.LoginRequiredError
		su *oauth.StepUpError
		rm *oauth.ResourceMismatchError
		im *oauth.IssuerMismatchError
	)
	if errors.As(err, &su) && !errors.As(err, new(*StepUpError)) {
		err = &StepUpError{Scopes: su.Scopes, Required: su.Required, err: err}
	}
	if errors.As(err, &lr) && !errors.As(err, new(*LoginRequiredError)) {
		err = &LoginRequiredError{Reason: lr.Reason, err: err}
	}
	if errors.As(err, &rm) && !errors.As(err, new(*ResourceMismatchError)) {
		err = &ResourceMismatchError{Resource: rm.Resource, Server: rm.Server, err: err}
	}
	if errors.As(err, &im) && !errors.As(err, new(*IssuerMismatchError)) {
		err = &IssuerMismatchError{Where: im.Where, Expected: im.Expected, Got: im.Got, err: err}
	}
	return err
}

// An ApprovalError says that a server cannot run because the approvals
// of the home folder cannot be read or created (an approval key that is
// unreadable or of the wrong length, a settings.json that is not JSON, a
// home that cannot be created): approvals fail closed. Cause says which.
type ApprovalError struct{ Cause error }

func (e *ApprovalError) Error() string {
	return "not approved: approvals are unavailable (" + e.Cause.Error() + ")"
}

func (e *ApprovalError) Unwrap() error { return e.Cause }

// A ToolTimeoutError says that a tool call got no answer within its tool
// timeout (the definition's toolTimeout, else the caller's, else the
// request timeout): notifications/cancelled was sent and the session
// stays up. It unwraps to the *protocol.TimeoutError, so errors.Is(err,
// context.DeadlineExceeded) holds.
type ToolTimeoutError struct {
	Server, Tool string
	Timeout      time.Duration
	Err          error
}

func (e *ToolTimeoutError) Error() string {
	return fmt.Sprintf("tool %s on server %s timed out after %s", e.Tool, e.Server, e.Timeout)
}

func (e *ToolTimeoutError) Unwrap() error { return e.Err }

// ToolTimeout returns err as a *ToolTimeoutError when it is the timeout
// of a call of tool on server, else err as it is.
func ToolTimeout(server, tool string, err error) error {
	var te *protocol.TimeoutError
	if errors.As(err, &te) && te.Method == "tools/call" {
		// How long it waited (progress extends it), to a tenth of a
		// second: the timeout as configured, give or take scheduling.
		d := te.Timeout
		if d >= 100*time.Millisecond {
			d = d.Round(100 * time.Millisecond)
		}
		return &ToolTimeoutError{Server: server, Tool: tool, Timeout: d, Err: err}
	}
	return err
}
