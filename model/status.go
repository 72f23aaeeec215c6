// Package model is the pure domain of proofloop: problem and statement
// statuses, the transition table with its guards, the ID rules and the
// sentence numbering of proofs. It does no I/O.
package model

import "fmt"

// Kind says whether a document is a problem, a statement or a debate.
type Kind string

// The kinds of document.
const (
	KindProblem   Kind = "problem"
	KindStatement Kind = "statement"
	KindDebate    Kind = "debate"
)

// Kinds lists the kinds of document, in this order.
var Kinds = []Kind{KindProblem, KindStatement, KindDebate}

// Dir is the folder of the contents root that holds documents of this kind.
func (k Kind) Dir() string { return string(k) }

// Status is the workflow status of a problem or a statement.
type Status string

// Problem statuses.
const (
	ProblemPending Status = "pending"
	ProblemSolved  Status = "solved"
)

// Statement statuses. The seed spells the sub-statement wait two ways; the
// status is awaiting_substatements everywhere.
const (
	StatementPending              Status = "pending"
	StatementAwaitingVerification Status = "awaiting_verification"
	StatementHasGap               Status = "has_gap"
	StatementAwaitingSubstatement Status = "awaiting_substatements"
	StatementTrue                 Status = "true"
	StatementFalse                Status = "false"
	StatementNeedsModification    Status = "needs_modification"
)

// ProblemStatuses lists every problem status in workflow order.
var ProblemStatuses = []Status{ProblemPending, ProblemSolved}

// StatementStatuses lists every statement status in workflow order.
var StatementStatuses = []Status{
	StatementPending, StatementAwaitingVerification, StatementHasGap,
	StatementAwaitingSubstatement, StatementTrue, StatementFalse, StatementNeedsModification,
}

// Statuses returns the statuses a document of kind k can have.
func Statuses(k Kind) []Status {
	switch k {
	case KindProblem:
		return ProblemStatuses
	case KindDebate:
		return DebateStatuses
	}
	return StatementStatuses
}

// Resolved reports whether a statement status is final (true or false). A
// sub-statement that is not resolved is "open".
func Resolved(s Status) bool { return s == StatementTrue || s == StatementFalse }

// Source says which role called a skill that both prove and fix use.
type Source string

// The sources of state-mark-false and state-propose-modification.
const (
	SourceProve Source = "prove"
	SourceFix   Source = "fix"
)

// SourceCheck is a proposal's source when a statement's review found it
// ill posed (check-review-statement).
const SourceCheck Source = "check"

// Sources lists the accepted values of the source parameter.
var Sources = []string{string(SourceProve), string(SourceFix)}

// ProposalSources lists who may propose a modification: the prover, the
// fixer, and the checker who reviews a new statement.
var ProposalSources = []string{string(SourceProve), string(SourceFix), string(SourceCheck)}

// Enumerations of the seed's parameters.
var (
	// Strategies are the accepted proof strategies.
	Strategies = []string{"direct", "contradiction", "case_analysis", "backward", "induction", "contrapositive", "construction"}
	// ErrorTypes classify a gap found by a checker.
	ErrorTypes = []string{"gap", "unjustified_leap", "hidden_assumption", "circular", "scope_error", "wrong_target"}
	// ModificationTypes say how a statement should change.
	ModificationTypes = []string{"strengthen_premises", "weaken_conclusion", "add_condition"}
	// ResponseTypes are the kinds of answer a fixer gives to an issue.
	ResponseTypes = []string{"patch", "substatement", "false", "modification"}
	// Decisions are what decide did with a proposed modification (a
	// modification_history record).
	Decisions = []string{DecisionAccepted, DecisionRejected}
)

// The decisions of a modification_history record.
const (
	DecisionAccepted = "accepted"
	DecisionRejected = "rejected"
)

// OneOf returns an error unless v is one of allowed; the message lists them.
func OneOf(name, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s %q is not accepted; use one of %v", name, v, allowed)
}
