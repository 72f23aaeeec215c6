package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// withdrawnDebate is a dispute that ended in consensus that its issue 1 is
// withdrawn.
func withdrawnDebate(t *testing.T) *Debate {
	t.Helper()
	d := newDebate(&Socratic, func(d *Debate) { d.About = &DisputeLink{Statement: "stmt_a_wrap", IssueNumber: 1} })
	joinAll(t, &Socratic, d, "checker", "fixer")
	for _, p := range []string{"p1", "p2"} {
		tt := sTurn(StanceAccepting, false)
		tt.Verdict = VerdictWithdrawn
		play(t, &Socratic, d, p, tt)
	}
	if !DisputeWithdrawn(d) {
		t.Fatal("the test debate does not withdraw its issue")
	}
	return d
}

// routeStates are statements in every status, in the states that decide
// whose turn it is: issues open or answered, sub-statements open,
// resolved or filling a gap, each also with the round budget spent, with a
// dispute open and with both; and problems, with the solver's budget left
// and spent.
func routeStates() []*Facts {
	var out []*Facts
	for _, f := range plainStates() {
		out = append(out, f)
		spent, disputed, both := *f, *f, *f
		spent.MaxRounds = 0 // a round spent: past a budget of none
		if f.Statement != nil {
			st := *f.Statement
			st.Round = 1
			spent.Statement = &st
			if len(st.Validate.Issues) > 0 {
				d := st
				d.Round = 0
				d.Validate.Issues = []Issue{d.Validate.Issues[0]}
				d.Validate.Issues[0].Dispute = &IssueDispute{Debate: "deb_x", OpenedAt: "2026-01-01T00:00:00Z"}
				disputed.Statement = &d
				b := d
				b.Round = 1
				both.Statement, both.MaxRounds = &b, 0
				out = append(out, &disputed, &both)
			}
		} else {
			p := *f.Problem
			p.IdleTurns = 1
			spent.Problem = &p
		}
		out = append(out, &spent)
	}
	return out
}

// plainStates are routeStates with no hold in force: budget left, no
// dispute.
func plainStates() []*Facts {
	one := 1
	issue := func(st *Statement, open bool) *Statement {
		st.Validate.Issues = []Issue{{IssueNumber: 1, Sentence: 1}}
		if !open {
			st.Validate.Responses = []Response{{ResponseNumber: 1, IssueAddressed: 1, Type: "patch"}}
		}
		return st
	}
	var out []*Facts
	for _, s := range StatementStatuses {
		for _, open := range []bool{false, true} {
			for _, subs := range [][]Child{nil,
				{{ID: "s1", Status: StatementPending}},
				{{ID: "s1", Status: StatementTrue}, {ID: "s2", Status: StatementFalse}},
				{{ID: "f1", Status: StatementTrue, FillsIssue: &one}}} {
				st := issue(&Statement{ID: "stmt_a_wrap", Status: s}, open)
				f := StatementFacts(st, subs)
				f.MaxRounds = 5
				out = append(out, f)
			}
		}
	}
	for _, wraps := range [][]Child{nil, {{ID: "w1", Status: StatementPending}}, {{ID: "w1", Status: StatementTrue}},
		{{ID: "w1", Status: StatementFalse}}} {
		for _, s := range ProblemStatuses {
			f := ProblemFacts(&Problem{ID: "prob_a", Status: s}, wraps)
			f.MaxRounds = 5
			out = append(out, f)
		}
	}
	return out
}

// TestRouteFromTable checks the router against the table read another way:
// every turn Route gives is a From entry's Turn on that status, and in any
// one state all the turns go to one role (the index keeps one role per
// item: a table that gave two roles a turn at once must fail here).
func TestRouteFromTable(t *testing.T) {
	for _, f := range routeStates() {
		k := KindStatement
		if f.Problem != nil {
			k = KindProblem
		}
		grants := Route(k, f)
		for _, g := range grants {
			if !slices.Contains(TurnRoles(k, f.Status), g.Role) {
				t.Errorf("Route(%s %s) gives %s a turn by %s; TurnRoles = %v", k, f.Status, g.Role, g.Skill, TurnRoles(k, f.Status))
			}
			if g.Role != grants[0].Role {
				t.Errorf("Route(%s %s, open %v, subs %v) gives turns to %s and %s", k, f.Status, f.OpenIssues, f.Subs, grants[0].Role, g.Role)
			}
			if g.Reason == "" {
				t.Errorf("Route(%s %s): %s's turn has no reason", k, f.Status, g.Skill)
			}
		}
		// The holds, read another way than Holds: a dispute open on a
		// statement in its check/fix exchange gives nobody a turn; else a
		// spent budget gives decide the only turn, outcome exhausted.
		inPlay := f.Status != StatementTrue && f.Status != StatementFalse && f.Status != StatementNeedsModification &&
			!(k == KindProblem && f.Status == ProblemSolved)
		disputed := f.Statement != nil && len(f.Statement.Validate.Issues) > 0 && f.Statement.Validate.Issues[0].Dispute != nil
		spent := (f.Statement != nil && f.Statement.Round > f.MaxRounds) || (f.Problem != nil && f.Problem.IdleTurns > f.MaxRounds)
		switch {
		case inPlay && disputed && len(grants) > 0:
			t.Errorf("Route(%s %s) with a dispute open gives %s a turn; want nobody's", k, f.Status, grants[0].Role)
		case inPlay && disputed && !strings.Contains(errOf(Held(f)), "disputed in deb_x"):
			t.Errorf("Held(%s %s) with a dispute open = %v; want the dispute", k, f.Status, Held(f))
		case inPlay && spent && !disputed && (len(grants) != 1 || grants[0].Role != RoleDecide || grants[0].Outcome != OutcomeExhausted):
			t.Errorf("Route(%s %s) past the budget = %+v; want decide's turn alone, outcome exhausted", k, f.Status, grants)
		case !spent && slices.ContainsFunc(grants, func(g Grant) bool { return g.Outcome == OutcomeExhausted }):
			t.Errorf("Route(%s %s) within the budget = %+v; want no exhausted turn", k, f.Status, grants)
		}
	}
	// Which statuses give a turn, to whom: the design's routing.
	// decide has a turn wherever the check/fix exchange can spend the
	// round budget.
	for s, want := range map[Status][]Role{
		StatementPending: {RoleProve, RoleDecide}, StatementAwaitingVerification: {RoleCheck, RoleDecide}, StatementHasGap: {RoleFix, RoleDecide},
		StatementAwaitingSubstatement: {RoleProve, RoleFix, RoleDecide}, StatementTrue: nil, StatementFalse: nil,
		StatementNeedsModification: {RoleDecide},
	} {
		if got := TurnRoles(KindStatement, s); !slices.Equal(got, want) {
			t.Errorf("TurnRoles(statement, %s) = %v; want %v", s, got, want)
		}
	}
	// A rejection while has_gap is allowed, and gives check no turn.
	if r, _ := Lookup("check-reject-proof"); !r.ActsOn("", StatementHasGap) {
		t.Error("check-reject-proof does not act on has_gap")
	}
}

// TestNewTurnRuleIsRouted: a rule that gives a turn is offered with no
// other edit.
func TestNewTurnRuleIsRouted(t *testing.T) {
	st := &Statement{ID: "stmt_a_wrap", Status: StatementTrue}
	if got := StatementTurn(st, nil, Policy{MaxRounds: 5}); got.Role != "" || got.Outcome != OutcomeTrue {
		t.Fatalf("StatementTurn(true) = %+v; want nobody's, outcome true", got)
	}
	saved := Table
	t.Cleanup(func() { Table = saved })
	Table = slices.Clone(Table)
	AddRule(Rule{Skill: "test-audit", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From: []From{{Statuses: []Status{StatementTrue}, Turn: RoleCheck, Why: func(*Facts) string { return "audit it" }}}})
	if got := StatementTurn(st, nil, Policy{MaxRounds: 5}); got.Role != RoleCheck || got.Reason != "audit it" {
		t.Errorf("StatementTurn(true) with test-audit = %+v; want check's turn, reason %q", got, "audit it")
	}
	defer func() {
		if recover() == nil {
			t.Error("AddRule of a skill already in the table did not panic")
		}
	}()
	AddRule(Rule{Skill: "test-audit"})
}

func TestSettleDisputeRule(t *testing.T) {
	st := &Statement{ID: "stmt_a_wrap", Status: StatementHasGap}
	st.Validate.Issues = []Issue{{IssueNumber: 1}, {IssueNumber: 2}}
	f := StatementFacts(st, nil)
	f.Named = []int{1}
	if err := Allow("settle-dispute", f); !strings.Contains(errOf(err), "dispute_withdrawn") {
		t.Errorf("settle-dispute with no debate = %v; want guard dispute_withdrawn to fail", err)
	}
	f.Debate = withdrawnDebate(t)
	if err := Allow("settle-dispute", f); err != nil {
		t.Errorf("settle-dispute = %v; want allowed", err)
	}
	if got := AfterWithdrawal(st, 1); got != StatementHasGap {
		t.Errorf("AfterWithdrawal(issue 1 of 2) = %s; want has_gap", got)
	}
	st.Validate.Issues = st.Validate.Issues[:1]
	if got := AfterWithdrawal(st, 1); got != StatementAwaitingVerification {
		t.Errorf("AfterWithdrawal(last issue) = %s; want awaiting_verification", got)
	}
	f.Status = StatementFalse
	var te *TransitionError
	if err := Allow("settle-dispute", f); !errors.As(err, &te) {
		t.Errorf("settle-dispute on a false statement = %v; want a TransitionError", err)
	}
	if slices.Contains(AllowedNow(KindStatement, StatementHasGap), "settle-dispute") {
		t.Error("AllowedNow lists settle-dispute, which no caller may use")
	}
}

func errOf(err error) string {
	if err == nil {
		return ""
	}
	var g *GuardError
	if errors.As(err, &g) {
		return g.Guard
	}
	return err.Error()
}
