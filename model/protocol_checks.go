package model

import (
	"fmt"
	"slices"
	"strings"
)

// The small checks the protocols' rules are written with: each returns a
// TurnError naming the field, or nil.

// need returns a TurnError for an empty required text field.
func need(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return &TurnError{Field: field, Rule: "is required and must not be empty"}
	}
	return nil
}

// forbid returns a TurnError when a field that role may not write is set.
func forbid(field string, set bool, why string) error {
	if set {
		return &TurnError{Field: field, Rule: why}
	}
	return nil
}

// enum returns a TurnError when v is not one of allowed.
func enum(field, v string, allowed []string) error {
	if !slices.Contains(allowed, v) {
		return &TurnError{Field: field, Rule: fmt.Sprintf("%q is not accepted; use one of %v", v, allowed)}
	}
	return nil
}

// unit returns a TurnError when a confidence is outside 0..1.
func unit(field string, v float64) error {
	if v < 0 || v > 1 {
		return &TurnError{Field: field, Rule: fmt.Sprintf("confidence %v is outside 0..1", v)}
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// QuoteInSource reports whether quote occurs in source. Runs of white space
// (spaces, tabs, newlines) count as one space on both sides, so that a quote
// may be re-wrapped; every other byte must match exactly.
func QuoteInSource(quote string, source []byte) bool {
	q := strings.Join(strings.Fields(quote), " ")
	return q != "" && strings.Contains(strings.Join(strings.Fields(string(source)), " "), q)
}
