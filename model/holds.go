package model

import (
	"fmt"
	"slices"
)

// Holds are the conditions every turn of the table shares, besides its
// entry's When and its rule's guards: while one fails, Route gives no turn
// on the item, save the turns whose entry names that hold in Despite (the
// way out of it). They are rows of the table like any other, so a new rule
// that gives a turn is held with no edit of its own, and `proofloop
// transitions` prints them under the rules. In order:
//   - no_open_dispute: while a dispute on one of its issues is open, a
//     statement waits for the dispute's debate, and nobody has a turn;
//   - budget_left: once a statement has spent its round budget (or a
//     problem's solver its idle turns), the check/fix exchange stops and
//     the decide rule's turn on a spent budget takes over (decide --extend
//     or give up).
//
// Neither holds a final item or a proposed modification: there is no
// check/fix exchange left to stop, and decide's turn on needs_modification
// is a person's.
var Holds = []Guard{noOpenDispute, budgetLeft}

var (
	noOpenDispute = Guard{Name: "no_open_dispute", Text: "no dispute on one of the statement's issues is open",
		Check: func(f *Facts) error {
			if f.Statement == nil || !inPlay(f.Status) {
				return nil
			}
			for _, is := range f.Statement.Validate.Issues {
				if is.DisputeOpen() {
					return fmt.Errorf("issue %d is disputed in %s: the statement waits for it", is.IssueNumber, is.Dispute.Debate)
				}
			}
			return nil
		}}
	budgetLeft = Guard{Name: "budget_left", Text: "the round budget of the statement's level of escalation (its rounds plus decide --extend; a problem's counts its solver's idle turns against max_rounds) is not spent",
		Check: func(f *Facts) error {
			if !f.spent() {
				return nil
			}
			return fmt.Errorf("%s", budgetText(f))
		}}
	// budgetSpent is budget_left's opposite: when decide's turn on a spent
	// budget is given.
	budgetSpent = Guard{Name: "budget_spent", Text: "the round budget is spent (a statement's at its last level of escalation)",
		Check: func(f *Facts) error {
			if f.spent() {
				return nil
			}
			spent, budget := f.RoundBudget()
			return fmt.Errorf("%s has used %d of its %s", f.itemID(), spent, Count(budget, "round"))
		}}
	// extendSpent is the call's side of budgetSpent: decide --extend grants
	// rounds only to an item that has spent its budget.
	extendSpent = Guard{Name: "budget_exhausted", Text: "--extend: the round budget is spent", Input: true,
		Check: func(f *Facts) error {
			if f.Extend == 0 {
				return nil
			}
			if err := budgetSpent.Check(f); err != nil {
				return fmt.Errorf("%w; --extend is for a spent budget", err)
			}
			return nil
		}}
	// modificationProposed is the call's side of decide's turn on
	// needs_modification: --accept and --reject decide a proposed
	// modification, which only a statement in needs_modification has.
	modificationProposed = Guard{Name: "modification_proposed", Text: "--accept or --reject: a modification is proposed (needs_modification)", Input: true,
		Check: func(f *Facts) error {
			if f.Extend > 0 || (f.Status == StatementNeedsModification && f.kind() == KindStatement) {
				return nil
			}
			return fmt.Errorf("no modification is proposed on %s (%s %s): --accept and --reject decide one; --extend grants rounds to a spent budget", f.itemID(), f.kind(), f.Status)
		}}
	whyBudget = func(f *Facts) string { return budgetText(f) + ": extend it or give up" }
	// decideSpent is the decide rule's turn on an item that has spent its
	// budget, in every status where the budget_left hold can stop a turn.
	decideSpent = func(statuses ...Status) From {
		return From{Statuses: statuses, Turn: RoleDecide, When: []Guard{budgetSpent}, Why: whyBudget,
			Despite: []string{budgetLeft.Name}, Outcome: OutcomeExhausted}
	}
)

// inPlay reports whether a statement in status s is in its check/fix
// exchange: not final, and not waiting for a decision on a modification.
func inPlay(s Status) bool { return !Resolved(s) && s != StatementNeedsModification }

// spent reports whether the item the facts describe has spent its budget.
func (f *Facts) spent() bool {
	switch {
	case f.Statement != nil:
		return Exhausted(f.Statement, f.Policy())
	case f.Problem != nil:
		return ProblemExhausted(f.Problem, f.MaxRounds)
	}
	return false
}

// RoundBudget is what the item the facts describe has used of its round
// budget (a problem: its solver's idle turns), and the budget.
func (f *Facts) RoundBudget() (spent, budget int) {
	switch {
	case f.Statement != nil:
		s := f.Policy().StepOf(f.Statement)
		return s.Spent, s.Budget
	case f.Problem != nil:
		return f.Problem.IdleTurns, f.MaxRounds + f.Problem.ExtraRounds
	}
	return 0, f.MaxRounds
}

// itemID is the id of the item the facts describe ("it" when they name
// none).
func (f *Facts) itemID() string {
	switch {
	case f.Statement != nil:
		return f.Statement.ID
	case f.Problem != nil:
		return f.Problem.ID
	}
	return "it"
}

func budgetText(f *Facts) string {
	spent, budget := f.RoundBudget()
	if f.Problem != nil {
		return fmt.Sprintf("its solver changed nothing in %d turns (budget %d)", spent, budget)
	}
	if f.Statement != nil {
		if s := f.Policy().StepOf(f.Statement); s.Climbed() {
			return fmt.Sprintf("the round budget of level %s is spent (%d of %d)", s.Level, spent, budget)
		}
	}
	return fmt.Sprintf("the round budget is spent (%d of %d)", spent, budget)
}

// Held is the first hold that stops the turns on the item the facts
// describe, as an error that says why; nil when none does. A turn whose
// entry names it in Despite is still given.
func Held(f *Facts) error {
	for _, h := range Holds {
		if err := h.Check(f); err != nil {
			return err
		}
	}
	return nil
}

// heldDespite reports whether a hold other than those in despite stops
// the turns on the item.
func heldDespite(f *Facts, despite []string) bool {
	for _, h := range Holds {
		if !slices.Contains(despite, h.Name) && h.Check(f) != nil {
			return true
		}
	}
	return false
}
