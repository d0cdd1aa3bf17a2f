package cli

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// Exit codes after a signal: 128 + its number, once the servers stopped.
const (
	ExitHangup = 129 // SIGHUP
	ExitTerm   = 143 // SIGTERM
)

// An Interrupt is the cause (context.Cause) that a signal gives Main's
// ctx: the command stops its servers as on Ctrl-C and Main returns Code.
type Interrupt struct {
	Signal string // "SIGINT", "SIGTERM" or "SIGHUP"
	Code   int    // ExitSignal (130), ExitTerm (143) or ExitHangup (129)
}

func (e *Interrupt) Error() string { return "interrupted by " + e.Signal }

// StopSignals are the signals that stop a command line the same way:
// the servers are told and stopped in steps, then Main returns the
// signal's exit code. A second one should close Env.Hurry.
func StopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// InterruptOf returns the Interrupt of one of StopSignals.
func InterruptOf(sig os.Signal) *Interrupt {
	switch sig {
	case syscall.SIGTERM:
		return &Interrupt{Signal: "SIGTERM", Code: ExitTerm}
	case syscall.SIGHUP:
		return &Interrupt{Signal: "SIGHUP", Code: ExitHangup}
	}
	return &Interrupt{Signal: "SIGINT", Code: ExitSignal}
}

// interrupted says whether ctx ended, and then the exit code and error
// of the command: the signal's (130 when it ended otherwise).
func interrupted(ctx context.Context) (code int, err error, ok bool) {
	if ctx.Err() == nil {
		return 0, nil, false
	}
	var in *Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in.Code, in, true
	}
	return ExitSignal, errors.New("interrupted"), true
}

// atExit runs f once the command's output (its result, or its failure)
// was written: stopping a server can take seconds, and should delay the
// exit, not the answer. Functions run last first.
func (inv *invocation) atExit(f func()) { inv.stops = append(inv.stops, f) }

func (inv *invocation) runAtExit() {
	for i := len(inv.stops) - 1; i >= 0; i-- {
		inv.stops[i]()
	}
	inv.stops = nil
}
