package model

import (
	"fmt"
	"slices"
)

// StatementReview is a checker's word on whether a statement is well posed (clear,
// consistent, complete, not trivially false), given before any proof when
// config.json's review_statements is on (check-review-statement). It names
// the claim and premises it judged: a claim changed by decide before any
// proof is reviewed again.
type StatementReview struct {
	Verdict     string   `json:"verdict"`
	Explanation string   `json:"explanation"`
	Claim       string   `json:"claim"`
	Premises    []string `json:"premises"`
	Actor       *string  `json:"actor,omitempty"`
	AgentLabel
	At string `json:"at"`
}

// The verdicts of a review.
const (
	VerdictWellPosed = "well_posed"
	VerdictIllPosed  = "ill_posed"
)

// ReviewVerdicts lists them (the parameter's and the schema's enum).
var ReviewVerdicts = []string{VerdictWellPosed, VerdictIllPosed}

// CurrentReview is the latest review of the statement's current claim and
// premises, or nil.
func (st *Statement) CurrentReview() *StatementReview {
	for i := len(st.Reviews) - 1; i >= 0; i-- {
		r := &st.Reviews[i]
		if r.Claim == st.Claim && slices.Equal(r.Premises, st.Premises) {
			return r
		}
	}
	return nil
}

// ReviewDue reports whether a statement waits for its review: pending, no
// proof written yet, and no review of its current claim and premises.
func ReviewDue(st *Statement) bool {
	return st.Status == StatementPending && st.ProofRevision == 0 && st.CurrentReview() == nil
}

// The review's rules. ReviewOn and ReviewPending give the check role its
// review turn on a new statement (check-review-statement's row, which the
// skill brings); reviewSettled holds the prover's turns on a pending
// statement until then: on a new statement under review_statements, the
// review's turn comes first, and the prover's after it.
var (
	// ReviewOn is config.json's review_statements.
	ReviewOn = Guard{Name: "review_statements", Text: "config.json review_statements is on (this turn comes before the prover's)",
		Check: func(f *Facts) error {
			if !f.ReviewStatements {
				return fmt.Errorf("review_statements is off")
			}
			return nil
		}}
	// ReviewPending is the statement's side: nothing proved yet, and its
	// claim not reviewed.
	ReviewPending = Guard{Name: "review_due", Text: "no proof written yet, and no review of its current claim and premises",
		Check: func(f *Facts) error {
			switch st := f.Statement; {
			case st == nil:
				return fmt.Errorf("no statement")
			case st.ProofRevision > 0:
				return fmt.Errorf("%s has a proof already (revision %d): a statement is reviewed before its first proof", st.ID, st.ProofRevision)
			case st.CurrentReview() != nil:
				return fmt.Errorf("%s's claim and premises were reviewed already (%s)", st.ID, st.CurrentReview().Verdict)
			}
			return nil
		}}
	reviewSettled = Guard{Name: "statement_reviewed", Text: "its review, if review_statements asks for one, is done",
		Check: func(f *Facts) error {
			if f.ReviewStatements && f.Statement != nil && ReviewDue(f.Statement) && f.Status == StatementPending {
				return fmt.Errorf("%s waits for its review (review_statements): a checker says first whether it is well posed", f.Statement.ID)
			}
			return nil
		}}
)
