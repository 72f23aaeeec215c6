// Package store is the transactional file store over a contents root: the
// lock, journal recovery, schema-checked reads and writes, the atomic
// multi-file commit, revisions and the event log.
package store

import (
	"errors"
	"fmt"
)

// Code classifies an error for the CLI's exit codes and JSON error codes.
type Code string

// The error codes of the CLI contract.
const (
	CodeUsage             Code = "usage"
	CodeInvalidInput      Code = "invalid_input"
	CodeNotFound          Code = "not_found"
	CodeInvalidTransition Code = "invalid_transition"
	CodeGuardFailed       Code = "guard_failed"
	CodeConflict          Code = "conflict"
	CodeLeaseHeld         Code = "lease_held"
	CodeLockTimeout       Code = "lock_timeout"
	CodeStoreDamaged      Code = "store_damaged"
	CodeInternal          Code = "internal"
)

// Error is an error with a contract code and an optional hint for the user.
type Error struct {
	Code Code
	Msg  string
	Hint string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code c.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Msg: fmt.Sprintf(format, args...)}
}

// WithHint sets the hint and returns e.
func (e *Error) WithHint(h string) *Error {
	e.Hint = h
	return e
}

// CodeOf returns the code of err, or "" when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}
