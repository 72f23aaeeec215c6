package model

import (
	"fmt"
	"slices"
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
// sub-statements, in order.
func StatementTurn(st *Statement, subs []Child, maxRounds int) Turn {
	switch st.Status {
	case StatementTrue:
		return Turn{Reason: "proved", Outcome: OutcomeTrue}
	case StatementFalse:
		return Turn{Reason: "refuted", Outcome: OutcomeFalse}
	case StatementNeedsModification:
		return Turn{Role: RoleDecide, Reason: "a modification is proposed: accept or reject it"}
	}
	for i := range st.Validate.Issues {
		if is := &st.Validate.Issues[i]; is.DisputeOpen() {
			return Turn{Outcome: OutcomeWaiting, Reason: fmt.Sprintf("issue %d is disputed in %s: the statement waits for it", is.IssueNumber, is.Dispute.Debate)}
		}
	}
	if Exhausted(st, maxRounds) {
		return Turn{Role: RoleDecide, Outcome: OutcomeExhausted,
			Reason: fmt.Sprintf("the round budget is spent (%d of %d): extend it or give up", Spent(st), Budget(st, maxRounds))}
	}
	switch st.Status {
	case StatementPending:
		return Turn{Role: RoleProve, Reason: "needs a proof, a decomposition, a refutation or a modification"}
	case StatementAwaitingVerification:
		return Turn{Role: RoleCheck, Reason: fmt.Sprintf("proof revision %d awaits verification", st.ProofRevision)}
	case StatementHasGap:
		return Turn{Role: RoleFix, Reason: "open issues " + ints(st.OpenIssues()) + " need answers"}
	}
	// awaiting_substatements
	var open, falseSubs, fixSubs []string
	openIssues := st.OpenIssues()
	for _, c := range subs {
		switch {
		case !Resolved(c.Status):
			open = append(open, c.ID)
		case c.FillsIssue != nil && slices.Contains(openIssues, *c.FillsIssue):
			fixSubs = append(fixSubs, c.ID)
		case c.FillsIssue == nil && c.Status == StatementFalse:
			falseSubs = append(falseSubs, c.ID)
		}
	}
	switch {
	case len(open) > 0:
		return Turn{Reason: "waits on sub-statements " + strings.Join(open, ", "), Outcome: OutcomeWaiting}
	case len(fixSubs) > 0:
		return Turn{Role: RoleFix, Reason: "gap-filling sub-statements " + strings.Join(fixSubs, ", ") + " are resolved: patch the proof or answer the issue another way"}
	case len(falseSubs) > 0:
		return Turn{Role: RoleProve, Reason: "sub-statements " + strings.Join(falseSubs, ", ") + " are false: re-plan"}
	default:
		return Turn{Role: RoleProve, Reason: "all sub-statements are resolved: write the proof"}
	}
}

// ProblemTurn derives whose turn it is on a problem. wraps are the
// statements in its progresses.
func ProblemTurn(p *Problem, wraps []Child, maxRounds int) Turn {
	if p.Status == ProblemSolved {
		return Turn{Reason: "solved", Outcome: OutcomeSolved}
	}
	if ProblemExhausted(p, maxRounds) {
		return Turn{Role: RoleDecide, Outcome: OutcomeExhausted,
			Reason: fmt.Sprintf("its solver changed nothing in %d turns (budget %d): extend it or give up", p.IdleTurns, maxRounds+p.ExtraRounds)}
	}
	var waiting []string
	allFalse := len(wraps) > 0
	for _, w := range wraps {
		if w.Status == StatementTrue {
			return Turn{Role: RoleSolve, Reason: w.ID + " is true: finish the problem"}
		}
		if w.Status != StatementFalse {
			allFalse = false
			waiting = append(waiting, w.ID)
		}
	}
	switch {
	case len(wraps) == 0:
		return Turn{Role: RoleSolve, Reason: "needs a wrap-up statement"}
	case allFalse:
		return Turn{Role: RoleSolve, Reason: "every wrap-up statement is false: wrap it up another way"}
	}
	return Turn{Reason: "waits on " + strings.Join(waiting, ", "), Outcome: OutcomeWaiting}
}
