package cli

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/manager"
)

// Machine codes of a failure: the error member's "code" in every --json
// document (docs/json.md lists them; a test keeps the two the same). A
// script branches on the code, never on the message.
const (
	codeUsage                = "usage"                 // a wrong command line (exit 2)
	codeServerNotFound       = "server_not_found"      // no configured server of that name
	codeToolNotFound         = "tool_not_found"        // the server has no tool of that name
	codePromptNotFound       = "prompt_not_found"      // the server has no prompt of that name
	codeConfigInvalid        = "config_invalid"        // a definition or a server file is wrong, or the server is disabled
	codeNeedsApproval        = "needs_approval"        // the definition is not approved (or changed since)
	codeApprovalsUnavailable = "approvals_unavailable" // the approval key or settings.json cannot be read
	codeNeedsLogin           = "needs_login"           // the server needs an OAuth login, or refused one
	codeTimeout              = "timeout"               // no answer in time
	codeSpawnFailed          = "spawn_failed"          // a stdio server's command could not start, or exited
	codeConnectFailed        = "connect_failed"        // an HTTP server could not be reached
	codeInitializeFailed     = "initialize_failed"     // the MCP handshake failed
	codeRequestFailed        = "request_failed"        // a request (list, call, read, …) failed
	codeShutdownFailed       = "shutdown_failed"       // stopping a server failed
	codeInterrupted          = "interrupted"           // stopped by a signal (Ctrl-C, SIGTERM, SIGHUP)
	codeInternal             = "internal"              // anything else: a bug to report
)

// errorCodes are every code, in docs/json.md's order.
var errorCodes = []string{codeUsage, codeServerNotFound, codeToolNotFound, codePromptNotFound, codeConfigInvalid,
	codeNeedsApproval, codeApprovalsUnavailable, codeNeedsLogin, codeTimeout, codeSpawnFailed, codeConnectFailed,
	codeInitializeFailed, codeRequestFailed, codeShutdownFailed, codeInterrupted, codeInternal}

// errorCode is f's machine code: the one its maker set, else the one its
// exit code, phase and error say. A failure while the command was being
// interrupted is interrupted, whatever it says.
func errorCode(ctx context.Context, f *failure) string {
	if _, _, ok := interrupted(ctx); ok {
		return codeInterrupted
	}
	if f.kind != "" {
		return f.kind
	}
	var ae *manager.ApprovalError
	switch {
	case f.code == ExitUsage:
		return codeUsage
	case errors.As(f.err, &ae):
		return codeApprovalsUnavailable
	case f.phase == manager.PhaseApproval:
		return codeNeedsApproval
	case f.code == ExitAuth || f.phase == manager.PhaseAuth:
		return codeNeedsLogin
	case errors.Is(f.err, context.DeadlineExceeded):
		return codeTimeout
	}
	switch f.phase {
	case manager.PhaseConfig:
		return codeConfigInvalid
	case manager.PhaseSpawn:
		return codeSpawnFailed
	case manager.PhaseConnect:
		return codeConnectFailed
	case manager.PhaseInitialize:
		return codeInitializeFailed
	case manager.PhaseList, manager.PhaseCall:
		return codeRequestFailed
	case manager.PhaseShutdown:
		return codeShutdownFailed
	}
	if f.code == ExitConfig {
		return codeConfigInvalid
	}
	return codeInternal
}

// stateCode is the machine code of a server's failure in list, doctor
// and probe: from its state, its phase and its error.
func stateCode(state manager.State, phase string, err error) string {
	f := &failure{phase: phase, err: err}
	switch state {
	case manager.StateNeedsLogin:
		f.code = ExitAuth
	case manager.StateNeedsApproval:
		f.phase = manager.PhaseApproval
	}
	return errorCode(context.Background(), f)
}
