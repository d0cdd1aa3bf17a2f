package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// phaseUsage is the phase of a wrong command line; the other phases are
// the manager's (manager.PhaseConfig, …).
const phaseUsage = "usage"

// A failure is an error that knows its exit code, the server and phase it
// happened in, and what to do about it.
type failure struct {
	code   int
	server string
	phase  string
	err    error
	hints  []string
	stderr string // the last lines of a stdio server's stderr
	stdout string // the last lines a stdio server that exited printed on stdout, not JSON-RPC
	// kind is the machine code (codes.go) when its maker knows better
	// than the exit code and phase; "" lets errorCode derive it.
	kind string
}

func (f *failure) Error() string {
	msg := f.message()
	switch {
	case f.server != "" && f.phase != "":
		return fmt.Sprintf("%s: %s: %s", f.server, f.phase, msg)
	case f.server != "":
		return f.server + ": " + msg
	case f.phase != "" && f.phase != phaseUsage:
		return f.phase + ": " + msg
	}
	return msg
}

func (f *failure) Unwrap() error { return f.err }

// message is the error's text without what the line says already: the
// server's name and the phase, which the packages below repeat as they
// wrap ("a: config: adding server \"a\" …: config: server name already
// in use" reads "a: config: adding … : server name already in use").
func (f *failure) message() string {
	msg := f.err.Error()
	if f.server != "" {
		q := strconv.Quote(f.server)
		for _, verb := range []string{"approving", "revoking", "adding", "replacing", "renaming", "removing", "enabling", "disabling"} {
			msg = strings.ReplaceAll(msg, verb+" server "+q+": ", "")
		}
		msg = strings.ReplaceAll(msg, "server "+q+": ", "")
	}
	if f.phase != "" {
		msg = strings.TrimPrefix(msg, f.phase+": ")
		msg = strings.ReplaceAll(msg, ": "+f.phase+": ", ": ")
	}
	return msg
}

// lines is the failure for people: one sanitized line, or one per error
// when it joins several (errors.Join), each with the server and phase.
func (f *failure) lines() []string {
	j, ok := f.err.(interface{ Unwrap() []error })
	if !ok {
		return []string{safe.Sanitize(f.Error())}
	}
	var out []string
	for _, e := range j.Unwrap() {
		one := *f // each error of the join on a line of its own
		one.err = e
		out = append(out, safe.Sanitize(one.Error()))
	}
	return out
}

// usageErr is a wrong command line (exit 2).
func usageErr(format string, args ...any) *failure {
	return &failure{code: ExitUsage, phase: phaseUsage, err: fmt.Errorf(format, args...)}
}

// fail returns a failure with a code, phase and hints.
func fail(code int, phase string, err error, hints ...string) *failure {
	return &failure{code: code, phase: phase, err: err, hints: hints}
}

// asFailure turns any error into a failure (exit 1 unless it says otherwise).
func asFailure(ctx context.Context, err error) *failure {
	var f *failure
	if errors.As(err, &f) {
		return f
	}
	if code, err, ok := interrupted(ctx); ok {
		return &failure{code: code, err: err}
	}
	return &failure{code: ExitServer, err: err}
}
