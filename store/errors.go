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
	CodePersonOnly        Code = "person_only"
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
	// Missing is the id that a not_found names, so that the CLI can
	// suggest the nearest ids that exist (NearestIDs).
	Missing string
	// Held is the live lease a lease_held refusal met (no token), so that
	// the CLI can tell the caller whether its token had expired
	// (PastLeaseOf) once the transaction is over.
	Held *HeldBy
}

// HeldBy is who holds a lease, without its token.
type HeldBy struct{ ID, Holder, Role, ExpiresAt string }

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

// nextStepper is an error of another package that knows what to do next:
// model's TransitionError and GuardError, once the skill layer filled it in.
type nextStepper interface{ NextStep() string }

// HintOf returns the hint that err carries: the first non-empty one along
// its chain, from an *Error or from an error that knows the next step. It
// is the one place the CLI and the MCP server take a refusal's hint from.
func HintOf(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *Error:
			if x.Hint != "" {
				return x.Hint
			}
		case nextStepper:
			if h := x.NextStep(); h != "" {
				return h
			}
		}
	}
	return ""
}

// NotFound is the not_found refusal of a document id that names nothing.
func NotFound(id, format string, args ...any) *Error {
	e := Errorf(CodeNotFound, format, args...).WithHint("`proofloop status` lists the documents")
	e.Missing = id
	return e
}
