package model

import "strings"

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

// Exhausted reports whether the statement has spent the round budget of
// its level (its rounds in config.json escalation, plus what decide
// --extend granted there). Below the last level the transaction that
// spends it climbs instead (Climb), so a statement stays exhausted only at
// the last level, or after config.json changed its ladder.
func Exhausted(st *Statement, p Policy) bool {
	if Resolved(st.Status) || st.Status == StatementNeedsModification {
		return false
	}
	s := p.StepOf(st)
	return s.Spent > s.Budget
}

// ProblemExhausted reports whether a pending problem's solver has spent
// its budget of idle turns.
func ProblemExhausted(p *Problem, maxRounds int) bool {
	return p.Status != ProblemSolved && p.IdleTurns > maxRounds+p.ExtraRounds
}

// StatementTurn derives whose turn it is on a statement. subs are its
// sub-statements, in order. The role comes from the transition table
// (Route), its holds included: an open dispute gives nobody a turn, and a
// spent round budget gives decide its turn (outcome exhausted). A statement
// the table gives nobody a turn on is final (true, false), held, or waits on
// its sub-statements.
func StatementTurn(st *Statement, subs []Child, p Policy) Turn {
	f := StatementFacts(st, subs)
	f.SetPolicy(p)
	if g := Route(KindStatement, f); len(g) > 0 {
		return Turn{Role: g[0].Role, Reason: g[0].Reason, Outcome: g[0].Outcome}
	}
	switch st.Status {
	case StatementTrue:
		return Turn{Reason: "proved", Outcome: OutcomeTrue}
	case StatementFalse:
		return Turn{Reason: "refuted", Outcome: OutcomeFalse}
	}
	if err := Held(f); err != nil {
		return Turn{Reason: err.Error(), Outcome: OutcomeWaiting}
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
// statements in its progresses. The role comes from the transition table
// (Route): the solver's, or decide's once the solver has spent its budget
// of idle turns (outcome exhausted).
func ProblemTurn(p *Problem, wraps []Child, pol Policy) Turn {
	if p.Status == ProblemSolved {
		return Turn{Reason: "solved", Outcome: OutcomeSolved}
	}
	f := ProblemFacts(p, wraps)
	f.SetPolicy(pol)
	if g := Route(KindProblem, f); len(g) > 0 {
		return Turn{Role: g[0].Role, Reason: g[0].Reason, Outcome: g[0].Outcome}
	}
	var waiting []string
	for _, w := range wraps {
		if !Resolved(w.Status) {
			waiting = append(waiting, w.ID)
		}
	}
	return Turn{Reason: "waits on " + strings.Join(waiting, ", "), Outcome: OutcomeWaiting}
}
