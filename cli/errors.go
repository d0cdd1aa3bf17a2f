package cli

import (
	"context"
	"errors"
	"fmt"

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
	// kind is the machine code (codes.go) when its maker knows better
	// than the exit code and phase; "" lets errorCode derive it.
	kind string
}

func (f *failure) Error() string {
	msg := f.err.Error()
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

// lines is the failure for people: one sanitized line, or one per error
// when it joins several (errors.Join), each with the server and phase.
func (f *failure) lines() []string {
	j, ok := f.err.(interface{ Unwrap() []error })
	if !ok {
		return []string{safe.Sanitize(f.Error())}
	}
	var out []string
	for _, e := range j.Unwrap() {
		one := *f
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
