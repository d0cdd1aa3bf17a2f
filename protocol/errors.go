package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// An Error is a JSON-RPC error answer: what a server answered instead of
// a result (find it with errors.As), or what a callback (Elicit, Sample)
// returns to answer a server's request with an error.
type Error = jsonrpc.Error

// A VersionError reports an initialize answer naming a protocol version
// this package does not speak, or, for a pinned revision, another one.
type VersionError struct {
	Asked    string // the version the client asked for
	Answered string // the version the server answered
	Pinned   bool   // Asked was pinned: no newer answer is accepted
}

func (e *VersionError) Error() string {
	if e.Pinned && IsSupported(e.Answered) {
		how := "not"
		if e.Answered > e.Asked {
			how = "newer than"
		}
		return fmt.Sprintf("server answered protocol version %q to initialize, %s %s as pinned", e.Answered, how, e.Asked)
	}
	return fmt.Sprintf("server answered protocol version %q (asked for %s); mcpwire speaks %s",
		e.Answered, e.Asked, strings.Join(supportedVersions[:], ", "))
}

// A CapabilityError reports a request the server did not declare support
// for; it is returned before anything is sent.
type CapabilityError struct {
	Method     string // e.g. "resources/list"
	Capability string // e.g. "resources", "resources.subscribe"
}

func (e *CapabilityError) Error() string {
	return fmt.Sprintf("%s: server did not declare the %s capability", e.Method, e.Capability)
}

// A TimeoutError reports a request that got no answer within the
// session's timeout. errors.Is(err, context.DeadlineExceeded) is true.
type TimeoutError struct {
	Method  string
	Timeout time.Duration // how long the request waited
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: no answer within %s", e.Method, e.Timeout)
}

// Is makes a TimeoutError match context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// A MethodError is the failure of one request: a server error (an
// *jsonrpc.Error, found by errors.As), the connection's end, or the
// caller's context.
type MethodError struct {
	Method string
	Err    error
}

func (e *MethodError) Error() string {
	var je *jsonrpc.Error
	switch {
	case errors.As(e.Err, &je):
		return fmt.Sprintf("%s: %s", e.Method, je.Message)
	case e.Err == io.EOF:
		return e.Method + ": server closed the connection"
	}
	return fmt.Sprintf("%s: %v", e.Method, e.Err)
}

func (e *MethodError) Unwrap() error { return e.Err }

// A ResultError reports an answer that is not the result the method
// expects.
type ResultError struct {
	Method string
	Err    error // from decoding
}

func (e *ResultError) Error() string {
	return fmt.Sprintf("%s: bad result from server: %v", e.Method, e.Err)
}

func (e *ResultError) Unwrap() error { return e.Err }

// A CursorLoopError reports a listing whose nextCursor repeats a cursor
// already used in the same listing.
type CursorLoopError struct {
	Method string
	Cursor string
	Page   int // the page that returned the repeated cursor, from 1
}

func (e *CursorLoopError) Error() string {
	return fmt.Sprintf("%s: page %d repeats cursor %s: the server's pagination loops", e.Method, e.Page, quoteShort(e.Cursor))
}

// quoteShort quotes s for an error, cut to a readable length.
func quoteShort(s string) string {
	const n = 64
	if len(s) > n {
		return fmt.Sprintf("%q…", s[:n])
	}
	return fmt.Sprintf("%q", s)
}

// CodeURLElicitationRequired is the error code of a request the server
// will only serve after the user completed URL mode elicitations.
const CodeURLElicitationRequired = -32042

// CodeResourceNotFound is the error code of resources/read for a resource
// that does not exist, up to 2025-11-25; the modern era uses -32602
// (invalid params) instead. See [IsResourceNotFound].
const CodeResourceNotFound = -32002

// IsResourceNotFound reports whether err, from ReadResource, says that the
// resource does not exist: -32002 (legacy) or -32602 (modern era).
func IsResourceNotFound(err error) bool {
	var me *MethodError
	var je *jsonrpc.Error
	if !errors.As(err, &me) || me.Method != "resources/read" || !errors.As(err, &je) {
		return false
	}
	return je.Code == CodeResourceNotFound || je.Code == jsonrpc.CodeInvalidParams
}

// An InputRoundsError reports a multi round-trip request the server kept
// answering with input_required.
type InputRoundsError struct {
	Method string
	Rounds int
}

func (e *InputRoundsError) Error() string {
	return fmt.Sprintf("%s: the server still asks for input after %d rounds; giving up", e.Method, e.Rounds)
}

// An InputLimitError reports a multi round-trip request whose server
// asked for more than the session answers (Options.MaxInputRequests,
// MaxInputTotal, MaxRequestState): nothing of that round was answered,
// and the request was not sent again.
type InputLimitError struct {
	Method string  // the request's method, e.g. "tools/call"
	Why    Refusal // RefusedRound, RefusedTotal or RefusedState
	Got    int     // input requests (of the round, or in all), or bytes
	Max    int
}

func (e *InputLimitError) Error() string {
	what := "input requests in one answer"
	switch e.Why {
	case RefusedTotal:
		what = "input requests over the rounds of one request"
	case RefusedState:
		return fmt.Sprintf("%s: the server sent a requestState of %d bytes, more than the %d echoed; nothing was answered and the request was not sent again (the server is at fault, or raise Options.MaxRequestState)", e.Method, e.Got, e.Max)
	}
	return fmt.Sprintf("%s: the server asked for %d %s, more than the %d answered; nothing of that round was answered and the request was not sent again (the server is at fault, or raise the bound in protocol.Options)", e.Method, e.Got, what, e.Max)
}

// An InputError reports an input request of a multi round-trip request
// that could not be answered (a capability not declared, a callback's
// error, the user's refusal).
type InputError struct {
	Method string // the request's method, e.g. "tools/call"
	Input  string // the input request's method, e.g. "sampling/createMessage"
	Key    string // its key in inputRequests
	Err    error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s: answering the server's %s (%s): %v", e.Method, e.Input, quoteShort(e.Key), e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// URLElicitations returns the URL mode elicitations a -32042 error asks
// for, and whether err is such an error.
func URLElicitations(err error) ([]ElicitParams, bool) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != CodeURLElicitationRequired {
		return nil, false
	}
	var data struct {
		Elicitations []ElicitParams `json:"elicitations"`
	}
	_ = json.Unmarshal(je.Data, &data)
	return data.Elicitations, true
}
