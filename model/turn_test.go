package model_test

import (
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

func ip(n int) *int { return &n }

func TestStatementTurn(t *testing.T) {
	withIssues := func(st model.Statement, open bool) model.Statement {
		st.Validate.Issues = []model.Issue{{IssueNumber: 1, Sentence: 2}}
		if !open {
			st.Validate.Responses = []model.Response{{ResponseNumber: 1, IssueAddressed: 1, IssuesAddressed: []int{1}, Type: "patch"}}
		}
		return st
	}
	base := func(s model.Status) model.Statement { return model.Statement{ID: "stmt_a_wrap", Status: s} }
	tests := []struct {
		name    string
		st      model.Statement
		subs    []model.Child
		role    model.Role
		outcome string
		reason  string
	}{
		{"pending", base(model.StatementPending), nil, model.RoleProve, "", "needs a proof"},
		{"awaiting verification", base(model.StatementAwaitingVerification), nil, model.RoleCheck, "", "awaits verification"},
		{"has gap", withIssues(base(model.StatementHasGap), true), nil, model.RoleFix, "", "open issues 1"},
		{"true", base(model.StatementTrue), nil, "", model.OutcomeTrue, "proved"},
		{"false", base(model.StatementFalse), nil, "", model.OutcomeFalse, "refuted"},
		{"needs modification", base(model.StatementNeedsModification), nil, model.RoleDecide, "", "modification"},
		{"subs open", base(model.StatementAwaitingSubstatement),
			[]model.Child{{ID: "s1", Status: model.StatementTrue}, {ID: "s2", Status: model.StatementHasGap}}, "", model.OutcomeWaiting, "s2"},
		{"subs all true", base(model.StatementAwaitingSubstatement),
			[]model.Child{{ID: "s1", Status: model.StatementTrue}, {ID: "s2", Status: model.StatementTrue}}, model.RoleProve, "", "write the proof"},
		{"a false sub goes back to its author, the prover", base(model.StatementAwaitingSubstatement),
			[]model.Child{{ID: "s1", Status: model.StatementTrue}, {ID: "s2", Status: model.StatementFalse}}, model.RoleProve, "", "s2 are false: re-plan"},
		{"gap-filling sub true goes to the fixer", withIssues(base(model.StatementAwaitingSubstatement), true),
			[]model.Child{{ID: "f1", Status: model.StatementTrue, FillsIssue: ip(1)}}, model.RoleFix, "", "f1"},
		{"gap-filling sub false goes to the fixer", withIssues(base(model.StatementAwaitingSubstatement), true),
			[]model.Child{{ID: "f1", Status: model.StatementFalse, FillsIssue: ip(1)}}, model.RoleFix, "", "answer the issue another way"},
		{"gap-filling sub whose issue was answered", withIssues(base(model.StatementAwaitingSubstatement), false),
			[]model.Child{{ID: "f1", Status: model.StatementTrue, FillsIssue: ip(1)}}, model.RoleProve, "", "write the proof"},
		{"gap-filling sub still open", withIssues(base(model.StatementAwaitingSubstatement), true),
			[]model.Child{{ID: "f1", Status: model.StatementPending, FillsIssue: ip(1)}}, "", model.OutcomeWaiting, "f1"},
	}
	for _, tt := range tests {
		got := model.StatementTurn(&tt.st, tt.subs, model.Policy{MaxRounds: 5})
		if got.Role != tt.role || got.Outcome != tt.outcome || !strings.Contains(got.Reason, tt.reason) {
			t.Errorf("%s: model.StatementTurn = %+v; want role %q, outcome %q, reason containing %q", tt.name, got, tt.role, tt.outcome, tt.reason)
		}
	}
}

func TestBudget(t *testing.T) {
	st := model.Statement{ID: "stmt_a_wrap", Status: model.StatementHasGap, Round: 3}
	st.Validate.Issues = []model.Issue{{IssueNumber: 1}}
	if got := model.StatementTurn(&st, nil, model.Policy{MaxRounds: 3}); got.Role != model.RoleFix {
		t.Errorf("round 3 of 3: turn %+v; want fix", got)
	}
	st.Round = 4
	got := model.StatementTurn(&st, nil, model.Policy{MaxRounds: 3})
	if got.Role != model.RoleDecide || got.Outcome != model.OutcomeExhausted || !strings.Contains(got.Reason, "4 of 3") {
		t.Errorf("round 4 of 3: turn %+v; want decide, exhausted", got)
	}
	st.ExtraRounds = 1
	if got := model.StatementTurn(&st, nil, model.Policy{MaxRounds: 3}); got.Role != model.RoleFix {
		t.Errorf("round 4 of 3+1: turn %+v; want fix", got)
	}
	st.IdleTurns = 1 // an idle turn counts like a round
	if got := model.StatementTurn(&st, nil, model.Policy{MaxRounds: 3}); got.Outcome != model.OutcomeExhausted {
		t.Errorf("round 4 + 1 idle of 3+1: turn %+v; want exhausted", got)
	}
	st.Status = model.StatementFalse // refuted is not exhausted
	if got := model.StatementTurn(&st, nil, model.Policy{MaxRounds: 3}); got.Outcome != model.OutcomeFalse || got.Role != "" {
		t.Errorf("false past budget: turn %+v; want outcome false, no role", got)
	}
	st.Status = model.StatementNeedsModification
	if got := model.StatementTurn(&st, nil, model.Policy{MaxRounds: 3}); got.Role != model.RoleDecide || got.Outcome == model.OutcomeExhausted {
		t.Errorf("needs_modification past budget: turn %+v; want decide (modification), not exhausted", got)
	}
}

func TestProblemTurn(t *testing.T) {
	p := func(s model.Status, idle int) *model.Problem {
		return &model.Problem{ID: "prob_a", Status: s, IdleTurns: idle}
	}
	tests := []struct {
		name    string
		p       *model.Problem
		wraps   []model.Child
		role    model.Role
		outcome string
		reason  string
	}{
		{"new problem", p(model.ProblemPending, 0), nil, model.RoleSolve, "", "needs a wrap-up"},
		{"wrap pending", p(model.ProblemPending, 0), []model.Child{{ID: "w", Status: model.StatementPending}}, "", model.OutcomeWaiting, "w"},
		{"wrap true", p(model.ProblemPending, 0), []model.Child{{ID: "w", Status: model.StatementFalse}, {ID: "w2", Status: model.StatementTrue}}, model.RoleSolve, "", "w2 is true"},
		{"all wraps false", p(model.ProblemPending, 0), []model.Child{{ID: "w", Status: model.StatementFalse}}, model.RoleSolve, "", "false"},
		{"solved", p(model.ProblemSolved, 0), []model.Child{{ID: "w", Status: model.StatementTrue}}, "", model.OutcomeSolved, "solved"},
		{"idle too often", p(model.ProblemPending, 6), nil, model.RoleDecide, model.OutcomeExhausted, "6 turns (budget 5)"},
	}
	for _, tt := range tests {
		got := model.ProblemTurn(tt.p, tt.wraps, model.Policy{MaxRounds: 5})
		if got.Role != tt.role || got.Outcome != tt.outcome || !strings.Contains(got.Reason, tt.reason) {
			t.Errorf("%s: model.ProblemTurn = %+v; want role %q, outcome %q, reason containing %q", tt.name, got, tt.role, tt.outcome, tt.reason)
		}
	}
}
