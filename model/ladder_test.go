package model

import (
	"strings"
	"testing"
)

func TestCheckEscalation(t *testing.T) {
	for _, tt := range []struct {
		rungs []Rung
		err   string
	}{
		{DefaultEscalation, ""},
		{[]Rung{{Level: LevelRevise, Rounds: 3}}, ""},
		{[]Rung{{Level: LevelRevise}, {Level: LevelRewrite, Rounds: 1000}}, ""},
		{nil, "escalation lists no level"},
		{[]Rung{{Level: LevelReplan}}, "escalation starts at revise, not replan"},
		{[]Rung{{Level: LevelRevise}, {Level: "retry"}}, `escalation level "retry" is not a level: use revise, replan, rewrite`},
		{[]Rung{{Level: LevelRevise}, {Level: LevelRewrite}, {Level: LevelReplan}}, "escalation names replan after rewrite"},
		{[]Rung{{Level: LevelRevise}, {Level: LevelReplan}, {Level: LevelReplan}}, "escalation names replan after replan"},
		{[]Rung{{Level: LevelRevise, Rounds: 1001}}, "escalation level revise has 1001 rounds"},
		{[]Rung{{Level: LevelRevise, Rounds: -1}}, "has -1 rounds"},
	} {
		err := CheckEscalation(tt.rungs)
		if (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("CheckEscalation(%v) = %v; want %q", tt.rungs, err, tt.err)
		}
	}
}

// TestStepOf: where a statement stands on its ladder, and what a level
// left out of the ladder (config.json changed) counts as.
func TestStepOf(t *testing.T) {
	p := Policy{MaxRounds: 4, Escalation: []Rung{{Level: LevelRevise, Rounds: 2}, {Level: LevelReplan}, {Level: LevelRewrite, Rounds: 1}}}
	for _, tt := range []struct {
		st   Statement
		want Step
	}{
		{Statement{}, Step{Level: LevelRevise, Index: 0, Rungs: 3, Spent: 0, Budget: 2, Next: LevelReplan}},
		{Statement{Round: 2, IdleTurns: 1}, Step{Level: LevelRevise, Index: 0, Rungs: 3, Spent: 3, Budget: 2, Next: LevelReplan}},
		{Statement{Level: LevelReplan, LevelFrom: 3, Round: 4}, Step{Level: LevelReplan, Index: 1, Rungs: 3, Spent: 1, Budget: 4, Next: LevelRewrite}},
		{Statement{Level: LevelRewrite, LevelFrom: 8, Round: 9, ExtraRounds: 2}, Step{Level: LevelRewrite, Index: 2, Rungs: 3, Spent: 1, Budget: 3}},
	} {
		if got := p.StepOf(&tt.st); got != tt.want {
			t.Errorf("StepOf(%+v) = %+v; want %+v", tt.st, got, tt.want)
		}
	}
	// A ladder without replan: a statement at replan is at revise's rung,
	// and climbs to rewrite next.
	p.Escalation = []Rung{{Level: LevelRevise, Rounds: 2}, {Level: LevelRewrite, Rounds: 1}}
	if got := p.StepOf(&Statement{Level: LevelReplan}); got.Index != 0 || got.Next != LevelRewrite || got.Level != LevelReplan {
		t.Errorf("StepOf(replan) without replan in the ladder = %+v; want rung 0, next rewrite", got)
	}
	// No ladder: one level of max_rounds, as before escalation.
	if got := (Policy{MaxRounds: 4}).StepOf(&Statement{Round: 5}); got.Rungs != 1 || got.Budget != 4 || got.Next != "" {
		t.Errorf("StepOf without a ladder = %+v; want one rung of 4 rounds", got)
	}
}

// TestClimb: the table's escalate rules move a statement that spent its
// level's last round one level up, and none moves one that has budget
// left or is at the last level, which goes to decide as exhausted.
func TestClimb(t *testing.T) {
	p := Policy{MaxRounds: 1, Escalation: DefaultEscalation}
	at := func(level string, from, round int) *Facts {
		st := &Statement{ID: "stmt_a_wrap", Status: StatementHasGap, Level: level, LevelFrom: from, Round: round}
		st.Validate.Issues = []Issue{{IssueNumber: 1}}
		f := StatementFacts(st, nil)
		f.SetPolicy(p)
		return f
	}
	for _, tt := range []struct {
		f      *Facts
		climbs string
		turn   Role
	}{
		{at("", 0, 1), "", RoleFix},               // round 1 of revise's 1
		{at("", 0, 2), LevelReplan, ""},           // round 2 spends revise: climb
		{at(LevelRevise, 0, 3), LevelReplan, ""},  // past it, still one level
		{at(LevelReplan, 2, 2), "", RoleFix},      // nothing spent at replan yet
		{at(LevelReplan, 2, 3), "", RoleFix},      // replan's one round
		{at(LevelReplan, 2, 4), LevelRewrite, ""}, // replan spent: climb to rewrite
		{at(LevelRewrite, 4, 5), "", RoleFix},     // within rewrite's budget
		{at(LevelRewrite, 4, 6), "", RoleDecide},  // the last level spent: decide, exhausted
		{at(LevelRewrite, 4, 9), "", RoleDecide},  // far past it
	} {
		got, ok := Climb(tt.f)
		if tt.climbs == "" && ok || tt.climbs != "" && got.Name != tt.climbs {
			t.Errorf("Climb(%s from %d, round %d) = %q, %v; want %q", tt.f.Statement.Level, tt.f.Statement.LevelFrom, tt.f.Statement.Round, got.Name, ok, tt.climbs)
		}
		if tt.climbs != "" {
			continue
		}
		if turn := StatementTurn(tt.f.Statement, nil, p); turn.Role != tt.turn {
			t.Errorf("StatementTurn(%s from %d, round %d) = %+v; want %s", tt.f.Statement.Level, tt.f.Statement.LevelFrom, tt.f.Statement.Round, turn, tt.turn)
		} else if tt.turn == RoleDecide && (turn.Outcome != OutcomeExhausted || !strings.Contains(turn.Reason, "the round budget of level rewrite is spent")) {
			t.Errorf("StatementTurn at the spent last level = %+v; want exhausted, naming level rewrite", turn)
		}
	}
}

// TestLevelsRouteToTheirRole: after a climb, the statement is in the status
// its new level enters, and the table gives that level's role the turn,
// with the level's task as the reason.
func TestLevelsRouteToTheirRole(t *testing.T) {
	p := Policy{MaxRounds: 2, Escalation: DefaultEscalation}
	for _, l := range Levels {
		st := &Statement{ID: "stmt_a_wrap", Status: l.Enters, Level: l.Name, Round: 4, LevelFrom: 4, ProofRevision: 2}
		st.Validate.Issues = []Issue{{IssueNumber: 1}}
		if l.Abandons {
			st.Validate.Issues[0].SupersededAt = strPtr("2026-01-01T00:00:00Z")
			st.DeadEnds = []DeadEnd{{Number: 1}}
		}
		got := StatementTurn(st, nil, p)
		if got.Role != l.Turn {
			t.Errorf("level %s: turn %+v; want %s's", l.Name, got, l.Turn)
		}
		if l.Abandons && got.Reason != l.Task+"; 1 dead end to avoid" {
			t.Errorf("level %s: reason %q; want the level's task", l.Name, got.Reason)
		}
	}
}

func TestNormalText(t *testing.T) {
	same := []string{"Let $x > 0$. Then  $x^2>0$.", "  Let $x > 0$.\n\tThen $x^2>0$.  ", "Let $x > 0$.\u00a0Then $x^2>0$.", "Let $ｘ > 0$. Then $x^2>0$."}
	for _, s := range same[1:] {
		if TextSum(s) != TextSum(same[0]) {
			t.Errorf("TextSum(%q) differs from TextSum(%q); want the same normal text %q", s, same[0], NormalText(same[0]))
		}
	}
	for _, s := range []string{"let $x > 0$. Then  $x^2>0$.", "Let $x > 0$, then $x^2>0$.", "Let $x>0$. Then $x^2>0$."} {
		if TextSum(s) == TextSum(same[0]) {
			t.Errorf("TextSum(%q) equals TextSum(%q); case, punctuation and the spaces inside a line's words differ", s, same[0])
		}
	}
	a := []SubClaim{{Claim: "1 = 1^2.", Premises: []string{"n = 1"}}, {Claim: "The step.", Premises: nil}}
	b := []SubClaim{{Claim: "The  step.", Premises: []string{}}, {Claim: "1 = 1^2.", Premises: []string{" n = 1"}}}
	if PlanSum(a) != PlanSum(b) {
		t.Error("PlanSum differs for the same sub-statements in another order and spacing")
	}
	b[1].Premises = []string{"n = 2"}
	if PlanSum(a) == PlanSum(b) {
		t.Error("PlanSum is the same for a sub-statement with other premises")
	}
	b[1].Premises, b[0].Claim = []string{"n = 1"}, "The step"
	if PlanSum(a) == PlanSum(b) {
		t.Error("PlanSum is the same for a sub-statement with another claim")
	}
}

// TestReviewTurnsFirst: with review_statements on, a new pending
// statement is nobody's in model's own table (the review's row is the
// skill's), so the prover's turns wait; once reviewed they come back, and
// with the setting off they never wait.
func TestReviewHoldsTheProver(t *testing.T) {
	st := &Statement{ID: "stmt_a_wrap", Status: StatementPending, Claim: "c", Premises: []string{"p"}}
	turn := func(review bool) Turn { return StatementTurn(st, nil, Policy{MaxRounds: 5, ReviewStatements: review}) }
	if got := turn(true); got.Role == RoleProve {
		t.Errorf("a new statement under review_statements: turn %+v; want no prover's turn before its review", got)
	}
	if got := turn(false); got.Role != RoleProve {
		t.Errorf("review_statements off: turn %+v; want prove's", got)
	}
	st.Reviews = []StatementReview{{Verdict: VerdictWellPosed, Claim: "c", Premises: []string{"p"}}}
	if got := turn(true); got.Role != RoleProve {
		t.Errorf("a reviewed statement: turn %+v; want prove's", got)
	}
	st.Claim = "c2" // a modification accepted before any proof
	if !ReviewDue(st) {
		t.Error("ReviewDue after the claim changed = false; want a new review")
	}
	st.ProofRevision = 1
	if ReviewDue(st) {
		t.Error("ReviewDue with a proof written = true; want a statement reviewed only before its first proof")
	}
}
