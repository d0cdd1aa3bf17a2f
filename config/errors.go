package config

import (
	"errors"
	"fmt"
)

// ErrNameInUse is returned (wrapped) by [AddServer] when the file already
// defines a server of that name.
var ErrNameInUse = errors.New("config: server name already in use")

// ErrNotFound is returned (wrapped) by edits and approvals when the file
// defines no server of that name.
var ErrNotFound = errors.New("config: no such server")

// A FileError is a file that cannot be used at all: it is not JSON, its top
// level is not an object, or its mcpServers is not an object. Line and Col
// are 1-based (Col counts bytes) and 0 when unknown.
type FileError struct {
	Path      string
	Line, Col int
	// Syntax is true when the file is not valid JSON.
	Syntax bool
	Err    error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// A FieldError is one wrong entry in a file: a bad server name, a field of
// the wrong type, a value out of range, a missing or conflicting field.
// Field is the field's path inside the entry ("args[2]", "env.TOKEN",
// "oauth.scopes"), empty when the problem is the entry as a whole. The
// message never holds a configured value.
type FieldError struct {
	File      string
	Server    string
	Field     string
	Line, Col int
	Msg       string
}

func (e *FieldError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d:%d", e.Line, e.Col)
	}
	s += fmt.Sprintf(": server %q", e.Server)
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// An ExpandError is a ${VAR} reference that could not be expanded in an
// enabled entry: the variable is unset (or empty) and has no default, or
// the reference is malformed (then Var is empty). It names the server, the
// field and the variable, never a value.
type ExpandError struct {
	Server string
	Field  string
	Var    string
	Msg    string
}

func (e *ExpandError) Error() string {
	return fmt.Sprintf("server %q: %s: %s", e.Server, e.Field, e.Msg)
}

// A StaleError is returned by [Approvals.Approve] when the definition in
// the file is no longer the one that was loaded (and shown to the user):
// it was changed, removed or made invalid since.
type StaleError struct {
	Server string
	Source string
	// Reason says what happened: "changed", "removed" or "invalid".
	Reason string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("approving server %q: the definition in %s was %s since it was loaded; load it again and review it", e.Server, e.Source, e.Reason)
}
