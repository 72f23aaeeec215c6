package model

import (
	"fmt"
	"strings"
)

// Turn says which role must act next on an item, and why. It is derived
// from status and history, never stored. Role "" means nobody: the item is
// finished or waits on others.
type Turn struct {
	Role    Role   `json:"role"`
	Reason  string `json:"reason"`
	Outcome string `json:"outcome,omitempty"` // exhausted when the round budget is spent
}

// Outcomes a turn can report besides a role to act.
const (
	OutcomeExhausted = "exhausted" // the round budget is spent: decide extends it or gives up
	OutcomeWaiting   = "waiting"   // waits on other items
	OutcomeTrue      = "true"
	OutcomeFalse     = "false" // refuted: distinct from exhausted
	OutcomeSolved    = "solved"
)

// Child is what a turn needs to know of a sub-statement or of a problem's
// wrap-up statement.
type Child struct {
	ID         string
	Status     Status
	FillsIssue *int // set on gap-filling sub-statements
}

// Spent is the part of the round budget a statement has used: its rounds
// plus the turns in which its agent changed nothing.
func Spent(st *Statement) int { return st.Round + st.IdleTurns }

// Budget is the statement's round budget: max_rounds plus what decide
// --extend granted.
func Budget(st *Statement, maxRounds int) int { return maxRounds + st.ExtraRounds }

// Exhausted reports whether the statement has spent its round budget.
func Exhausted(st *Statement, maxRounds int) bool {
	return !Resolved(st.Status) && st.Status != StatementNeedsModification &&
		Spent(st) > Budget(st, maxRounds)
}

// ProblemExhausted reports whether a pending problem's solver has spent
// its budget of idle turns.
func ProblemExhausted(p *Problem, maxRounds int) bool {
	return p.Status != ProblemSolved && p.IdleTurns > maxRounds+p.ExtraRounds
}

// StatementTurn derives whose turn it is on a statement. subs are its
// sub-statements, in order. The roles come from the transition table
// (Route); before it, two holds that stop every turn: an open dispute (the
// statement waits for its debate) and a spent round budget (decide extends
// it or gives up). A statement the table gives nobody a turn on is final
// (true, false) or waits on its sub-statements.
func StatementTurn(st *Statement, subs []Child, maxRounds int) Turn {
	if st.Status != StatementNeedsModification && !Resolved(st.Status) {
		for i := range st.Validate.Issues {
			if is := &st.Validate.Issues[i]; is.DisputeOpen() {
				return Turn{Outcome: OutcomeWaiting, Reason: fmt.Sprintf("issue %d is disputed in %s: the statement waits for it", is.IssueNumber, is.Dispute.Debate)}
			}
		}
		if Exhausted(st, maxRounds) {
			return Turn{Role: RoleDecide, Outcome: OutcomeExhausted,
				Reason: fmt.Sprintf("the round budget is spent (%d of %d): extend it or give up", Spent(st), Budget(st, maxRounds))}
		}
	}
	f := StatementFacts(st, subs)
	if g := Route(KindStatement, f); len(g) > 0 {
		return Turn{Role: g[0].Role, Reason: g[0].Reason}
	}
	switch st.Status {
	case StatementTrue:
		return Turn{Reason: "proved", Outcome: OutcomeTrue}
	case StatementFalse:
		return Turn{Reason: "refuted", Outcome: OutcomeFalse}
	}
	var open []string
	for _, c := range subs {
		if !Resolved(c.Status) {
			open = append(open, c.ID)
		}
	}
	if len(open) > 0 {
		return Turn{Reason: "waits on sub-statements " + strings.Join(open, ", "), Outcome: OutcomeWaiting}
	}
	return Turn{Reason: "no rule of the transition table gives anyone a turn on it", Outcome: OutcomeWaiting}
}

// ProblemTurn derives whose turn it is on a problem. wraps are the
// statements in its progresses. The roles come from the transition table
// (Route), once the solver's budget of idle turns is not spent.
func ProblemTurn(p *Problem, wraps []Child, maxRounds int) Turn {
	if p.Status == ProblemSolved {
		return Turn{Reason: "solved", Outcome: OutcomeSolved}
	}
	if ProblemExhausted(p, maxRounds) {
		return Turn{Role: RoleDecide, Outcome: OutcomeExhausted,
			Reason: fmt.Sprintf("its solver changed nothing in %d turns (budget %d): extend it or give up", p.IdleTurns, maxRounds+p.ExtraRounds)}
	}
	if g := Route(KindProblem, ProblemFacts(p, wraps)); len(g) > 0 {
		return Turn{Role: g[0].Role, Reason: g[0].Reason}
	}
	var waiting []string
	for _, w := range wraps {
		if !Resolved(w.Status) {
			waiting = append(waiting, w.ID)
		}
	}
	return Turn{Reason: "waits on " + strings.Join(waiting, ", "), Outcome: OutcomeWaiting}
}
