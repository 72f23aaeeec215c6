package model

import "fmt"

// Severities of an issue: a critical error breaks the logic (the step is
// wrong), a gap leaves a step unsupported (it may be right, but it is not
// shown). A fixer answers a gap with a patch or a gap-filling
// sub-statement; a critical error usually calls for mark-false or a
// modification.
const (
	SeverityCritical = "critical"
	SeverityGap      = "gap"
)

// Severities lists the severities, for --severity and the schema.
var Severities = []string{SeverityCritical, SeverityGap}

// ErrorSeverity is the default severity of each error type: the step is
// wrong (critical) or unsupported (gap). `proofloop transitions` prints it.
var ErrorSeverity = []struct{ ErrorType, Severity, Why string }{
	{"gap", SeverityGap, "a step is missing"},
	{"unjustified_leap", SeverityGap, "a conclusion is not shown to follow"},
	{"hidden_assumption", SeverityCritical, "the proof uses something the premises do not give"},
	{"circular", SeverityCritical, "the proof assumes its claim"},
	{"scope_error", SeverityCritical, "a result is applied outside its conditions"},
	{"wrong_target", SeverityCritical, "the proof shows something other than the claim"},
}

// DefaultSeverity is the severity an issue of errorType gets when none is
// given.
func DefaultSeverity(errorType string) string {
	for _, e := range ErrorSeverity {
		if e.ErrorType == errorType {
			return e.Severity
		}
	}
	panic(fmt.Sprintf("model: no severity for error type %q", errorType))
}

// IssueSeverity is the issue's severity: the one recorded, or for an issue
// recorded before severities existed, its error type's default.
func IssueSeverity(is *Issue) string {
	if is.Severity != "" {
		return is.Severity
	}
	return DefaultSeverity(is.ErrorType)
}

// OpenBySeverity counts the statement's open issues by severity.
func (s *Statement) OpenBySeverity() map[string]int {
	open := s.OpenIssues()
	out := map[string]int{SeverityCritical: 0, SeverityGap: 0}
	for i := range s.Validate.Issues {
		is := &s.Validate.Issues[i]
		for _, n := range open {
			if n == is.IssueNumber {
				out[IssueSeverity(is)]++
			}
		}
	}
	return out
}
