package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// want is the table of shared/DESIGN.md, written out again by hand so that a
// wrong row in Table fails here: skill -> source -> statuses it acts on.
var want = map[string]map[Source][]Status{
	"prob-finish-up":             {"": {ProblemPending}},
	"prob-setup-subgoal":         {"": {ProblemPending}},
	"prob-wrapup-statement":      {"": {ProblemPending}},
	"state-complete-proof":       {"": {StatementPending, StatementAwaitingSubstatement}},
	"state-setup-substatement":   {"": {StatementPending, StatementAwaitingSubstatement}},
	"state-mark-false":           {SourceProve: {StatementPending, StatementAwaitingSubstatement}, SourceFix: {StatementHasGap, StatementAwaitingSubstatement}},
	"state-propose-modification": {SourceProve: {StatementPending, StatementAwaitingSubstatement}, SourceFix: {StatementHasGap, StatementAwaitingSubstatement}},
	"check-confirm-proof":        {"": {StatementAwaitingVerification}},
	"check-reject-proof":         {"": {StatementAwaitingVerification, StatementHasGap}},
	"fix-patch-proof":            {"": {StatementHasGap, StatementAwaitingSubstatement}},
	"fix-create-substatement":    {"": {StatementHasGap}},
	// decide: a statement's row and a problem's; the statuses are one
	// list since a problem's pending is spelled as a statement's.
	"decide": {"": {StatementNeedsModification, StatementPending, StatementAwaitingVerification, StatementHasGap, StatementAwaitingSubstatement}},
	"reopen": {"": {StatementTrue}},
	// The ladder's rules: wherever a rejection, a reopen or an idle turn
	// can spend a level's last round.
	"escalate-replan":  {"": {StatementPending, StatementAwaitingVerification, StatementHasGap, StatementAwaitingSubstatement}},
	"escalate-rewrite": {"": {StatementPending, StatementAwaitingVerification, StatementHasGap, StatementAwaitingSubstatement}},
	"settle-dispute": {"": {StatementPending, StatementAwaitingVerification, StatementHasGap,
		StatementAwaitingSubstatement, StatementNeedsModification}},
}

// passing returns facts under which every guard of every skill passes.
func passing(st Status, src Source) *Facts {
	proof := "Let $x>0$. Then $x^2>0$. Hence the claim."
	return &Facts{Status: st, Source: src, Proof: proof, NewProof: proof, NewSubs: 1,
		SubStatuses: map[string]Status{"stmt_a_sub1": StatementTrue}, OpenIssues: []int{1}, IssueCount: 2, Named: []int{1},
		KeyStatus: StatementTrue, KeyListed: true, Sentence: 2, Quote: "Then $x^2>0$.", First: 1, Last: 2}
}

func TestTableEverySkillEveryStatus(t *testing.T) {
	skills := map[string]bool{}
	for _, r := range Table {
		skills[r.Skill] = true
	}
	if len(skills) != len(want) {
		t.Fatalf("Table has %d skills; want %d", len(skills), len(want))
	}
	for _, r := range Table {
		sources, ok := want[r.Skill]
		if !ok {
			t.Errorf("Table has unexpected skill %q", r.Skill)
			continue
		}
		for src, allowed := range sources {
			for _, st := range Statuses(r.Kind) {
				f := passing(st, src)
				if r.Skill == "check-confirm-proof" {
					f.OpenIssues = nil
				}
				if r.Skill == "settle-dispute" {
					f.Debate = withdrawnDebate(t)
				}
				if r.Skill == "decide" && st != StatementNeedsModification {
					// --extend, on an item past its budget.
					f.Extend, f.MaxRounds, f.Statement = 1, 1, &Statement{ID: "stmt_a_wrap", Status: st, Round: 2}
					if r.Kind == KindProblem {
						f.Statement, f.Problem = nil, &Problem{ID: "prob_a", Status: st, IdleTurns: 2}
					}
				}
				if lv, ok := strings.CutPrefix(r.Skill, "escalate-"); ok {
					// The level below lv has spent its one round.
					below := map[string]string{LevelReplan: "", LevelRewrite: LevelReplan}[lv]
					f.MaxRounds, f.Escalation = 1, DefaultEscalation
					f.Statement = &Statement{ID: "stmt_a_wrap", Status: st, Round: 3, Level: below, LevelFrom: 1}
				}
				err := Allow(r.Skill, f)
				if slices.Contains(allowed, st) {
					if err != nil {
						t.Errorf("Allow(%s, source %q, %s) = %v; want allowed", r.Skill, src, st, err)
					}
					continue
				}
				var te *TransitionError
				if !errors.As(err, &te) {
					t.Errorf("Allow(%s, source %q, %s) = %v; want a TransitionError", r.Skill, src, st, err)
					continue
				}
				msg := err.Error()
				if !strings.Contains(msg, "status "+string(st)) || !strings.Contains(msg, "allowed now:") {
					t.Errorf("Allow(%s, %s) message %q; want it to name the status and what is allowed now", r.Skill, st, msg)
				}
				if !slices.Equal(te.Allowed, AllowedNow(r.Kind, st)) {
					t.Errorf("Allow(%s, %s).Allowed = %v; want %v", r.Skill, st, te.Allowed, AllowedNow(r.Kind, st))
				}
			}
		}
	}
}

func TestAllowedNow(t *testing.T) {
	tests := []struct {
		k    Kind
		s    Status
		want []string
	}{
		{KindProblem, ProblemPending, []string{"prob-finish-up", "prob-setup-subgoal", "prob-wrapup-statement"}},
		{KindProblem, ProblemSolved, nil},
		{KindStatement, StatementTrue, []string{"reopen"}},
		{KindStatement, StatementFalse, nil},
		{KindStatement, StatementHasGap, []string{"state-mark-false", "state-propose-modification", "check-reject-proof", "fix-patch-proof", "fix-create-substatement"}},
		{KindStatement, StatementNeedsModification, []string{"decide"}},
	}
	for _, tt := range tests {
		if got := AllowedNow(tt.k, tt.s); !slices.Equal(got, tt.want) {
			t.Errorf("AllowedNow(%s, %s) = %v; want %v", tt.k, tt.s, got, tt.want)
		}
	}
	err := Allow("state-complete-proof", &Facts{Status: StatementFalse, NewProof: "x"})
	if want := "the statement is final"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Allow on a true statement = %v; want a message with %q", err, want)
	}
}

func TestGuards(t *testing.T) {
	tests := []struct {
		skill  string
		mutate func(f *Facts)
		guard  string
		reason string
	}{
		{"prob-finish-up", func(f *Facts) { f.KeyListed = false }, "key_statement_true", "not listed"},
		{"prob-finish-up", func(f *Facts) { f.KeyStatus = StatementAwaitingVerification }, "key_statement_true", "awaiting_verification, not true"},
		{"state-complete-proof", func(f *Facts) { f.NewProof = "  \n" }, "proof_not_empty", "empty"},
		{"state-complete-proof", func(f *Facts) {
			f.Status = StatementAwaitingSubstatement
			f.SubStatuses = map[string]Status{"stmt_a_sub1": StatementTrue, "stmt_a_sub2": StatementPending}
		}, "no_open_substatement", "stmt_a_sub2"},
		{"state-setup-substatement", func(f *Facts) { f.NewSubs = 0 }, "at_least_one", "at least one"},
		{"state-setup-substatement", func(f *Facts) {
			f.Status = StatementAwaitingSubstatement
			f.SubStatuses = map[string]Status{"stmt_a_sub1": StatementHasGap}
		}, "no_open_substatement", "stmt_a_sub1"},
		{"state-mark-false", func(f *Facts) { f.Source, f.Status, f.Named = SourceFix, StatementHasGap, nil }, "fix_names_open_issue", "name the issue"},
		{"state-propose-modification", func(f *Facts) { f.Source, f.Status, f.Named = SourceFix, StatementHasGap, []int{7} }, "fix_names_open_issue", "there is no issue 7 (the statement has 2; open: 1)"},
		{"state-mark-false", func(f *Facts) { f.Source, f.Status, f.Named = SourceFix, StatementHasGap, []int{2} }, "fix_names_open_issue", "issue 2 is not open (open issues: 1)"},
		{"check-confirm-proof", func(f *Facts) { f.Status, f.OpenIssues = StatementAwaitingVerification, []int{2, 3} }, "no_open_issue", "issues still open: 2, 3"},
		{"check-reject-proof", func(f *Facts) { f.Status, f.Sentence = StatementAwaitingVerification, 4 }, "sentence_in_range", "the proof has 3 sentences"},
		{"check-reject-proof", func(f *Facts) { f.Status, f.Quote = StatementAwaitingVerification, "Hence the claim" }, "sentence_text_found", "in sentence 3"},
		{"fix-patch-proof", func(f *Facts) { f.Status, f.Named = StatementHasGap, []int{1, 2} }, "named_issue_open", "issue 2 is not open"},
		{"fix-patch-proof", func(f *Facts) { f.Status, f.First, f.Last = StatementHasGap, 2, 5 }, "range_in_bounds", "2-5 is out of bounds"},
		{"fix-patch-proof", func(f *Facts) {
			f.Status = StatementAwaitingSubstatement
			f.SubStatuses = map[string]Status{"stmt_a_fix1": StatementPending}
		}, "no_open_substatement", "stmt_a_fix1"},
		{"fix-create-substatement", func(f *Facts) { f.Status, f.OpenIssues = StatementHasGap, nil }, "named_issue_open", "open issues: none"},
		// A new approach: reviewed first when review_statements is on, a
		// lesson for what it abandons, no repeat of a dead end, and at
		// replan a new plan.
		{"state-complete-proof", func(f *Facts) {
			f.ReviewStatements, f.Statement = true, &Statement{ID: "stmt_a_wrap", Status: StatementPending}
		}, "statement_reviewed", "stmt_a_wrap waits for its review"},
		{"state-setup-substatement", func(f *Facts) {
			f.ReviewStatements, f.Statement = true, &Statement{ID: "stmt_a_wrap", Status: StatementPending}
		}, "statement_reviewed", "waits for its review"},
		{"state-complete-proof", func(f *Facts) { f.Statement, f.NewProof = deadEnded(nil), "A new proof." }, "lesson_given", "dead end 1 (level revise, proof revisions 1-2 (direct)) has no lesson yet: give --lesson"},
		{"state-setup-substatement", func(f *Facts) {
			f.Status, f.Statement = StatementAwaitingSubstatement, &Statement{ID: "stmt_a_wrap", Status: StatementAwaitingSubstatement}
			f.Subs = []Child{{ID: "stmt_a_wrap_sub1", Status: StatementTrue}, {ID: "stmt_a_wrap_sub2", Status: StatementFalse}}
		}, "lesson_given", "sub-statement stmt_a_wrap_sub2 is false, so this call abandons its decomposition"},
		{"state-complete-proof", func(f *Facts) { f.Lesson = "Pairs fail for odd n." }, "lesson_given", "leave --lesson out"},
		{"state-complete-proof", func(f *Facts) {
			f.Statement, f.Lesson = deadEnded(strPtr("Pairs fail.")), ""
			f.NewProof = "Let  $x>0$.\n Then $x^2>0$.   Hence the claim."
		}, "not_a_dead_end", "the proof repeats dead end 1 (level revise, proof revisions 1-2 (direct)); its lesson: Pairs fail."},
		{"state-setup-substatement", func(f *Facts) {
			f.Statement = deadEnded(strPtr("x"))
			f.Statement.DeadEnds[0].PlanSHA256, f.NewPlan, f.NewProof = "abc", "abc", ""
		}, "not_a_dead_end", "the decomposition repeats dead end 1"},
		{"state-complete-proof", func(f *Facts) {
			f.Statement = deadEnded(strPtr("x"))
			f.Statement.Level, f.NewStrategy = LevelReplan, "direct"
			f.NewProof = "Another proof."
		}, "plan_changed", "strategy direct is a dead end's"},
	}
	for _, tt := range tests {
		f := passing(StatementPending, SourceProve)
		if tt.skill == "prob-finish-up" {
			f.Status = ProblemPending
		}
		tt.mutate(f)
		err := Allow(tt.skill, f)
		var ge *GuardError
		if !errors.As(err, &ge) {
			t.Errorf("%s: Allow = %v; want guard %s to fail", tt.skill, err, tt.guard)
			continue
		}
		if ge.Guard != tt.guard || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: Allow = %v (guard %s); want guard %s with %q", tt.skill, err, ge.Guard, tt.guard, tt.reason)
		}
	}
}

func TestOpenIssues(t *testing.T) {
	s := Statement{Validate: Validate{
		Issues: []Issue{{IssueNumber: 1}, {IssueNumber: 2}, {IssueNumber: 3}, {IssueNumber: 4}},
		Responses: []Response{
			{ResponseNumber: 1, IssueAddressed: 1, IssuesAddressed: []int{1, 3}, Type: "patch"},
			{ResponseNumber: 2, IssueAddressed: 2, IssuesAddressed: []int{2}, Type: "substatement"},
		},
	}}
	if got, want := s.OpenIssues(), []int{2, 4}; !slices.Equal(got, want) {
		t.Errorf("OpenIssues() = %v; want %v (a substatement response leaves its issue open)", got, want)
	}
}

func TestTransitionErrorNamesSource(t *testing.T) {
	err := Allow("state-mark-false", &Facts{Status: StatementHasGap, Source: SourceProve})
	want := "state-mark-false (source prove) cannot act on a statement in status has_gap; allowed now: state-mark-false (source fix), state-propose-modification (source fix), check-reject-proof, fix-patch-proof, fix-create-substatement"
	if err == nil || err.Error() != want {
		t.Errorf("Allow = %v; want %q", err, want)
	}
}

func TestSelfCheckGuard(t *testing.T) {
	for _, skill := range []string{"check-confirm-proof", "check-reject-proof"} {
		f := passing(StatementAwaitingVerification, "")
		f.OpenIssues = nil
		f.ForbidSelfCheck, f.Actor, f.ProofAuthor = true, "alice", "alice"
		err := Allow(skill, f)
		var ge *GuardError
		if !errors.As(err, &ge) || ge.Guard != "not_self_check" || !strings.Contains(err.Error(), "alice wrote proof revision") {
			t.Errorf("%s by the author: Allow = %v; want guard not_self_check", skill, err)
		}
		f.ForbidSelfCheck = false
		if err := Allow(skill, f); err != nil {
			t.Errorf("%s by the author, forbid_self_check off: Allow = %v; want allowed", skill, err)
		}
		f.ForbidSelfCheck, f.Actor = true, "bob"
		if err := Allow(skill, f); err != nil {
			t.Errorf("%s by another checker: Allow = %v; want allowed", skill, err)
		}
		// The author spelt another way is still the author, whichever side
		// was recorded before actors were normalised.
		for _, pair := range [][2]string{{" alice", "alice"}, {"Alice", "alice"}, {"ＡＬＩＣＥ", "alice"}, {"alice", "Alice"}} {
			f.Actor, f.ProofAuthor = pair[0], pair[1]
			if err := Allow(skill, f); !errors.As(err, &ge) || ge.Guard != "not_self_check" {
				t.Errorf("%s by %q of a proof by %q: Allow = %v; want guard not_self_check", skill, pair[0], pair[1], err)
			}
		}
		// An unknown checker was the loophole: it is refused, even when
		// the author is unknown too.
		for _, author := range []string{"alice", ""} {
			f.Actor, f.ProofAuthor = "", author
			if err := Allow(skill, f); !errors.As(err, &ge) || ge.Guard != "not_self_check" || !strings.Contains(err.Error(), "the checker is unknown") {
				t.Errorf("%s by no actor of a proof by %q: Allow = %v; want guard not_self_check (the checker is unknown)", skill, author, err)
			}
		}
	}
}

// TestSelfCheckEveryWriter (issue 34, N9): after a patch, whoever wrote any
// of the revision, the first prover as well as the patch's author, may not
// check it; under verify_distinct model, nor may a checker of any writer's
// model. A statement without proof_writers counts its last author.
func TestSelfCheckEveryWriter(t *testing.T) {
	st := &Statement{ProofWriters: []ProofWriter{
		{Actor: "alice", AgentLabel: AgentLabel{Agent: "a1", Model: "opus"}},
		{Actor: "carol", AgentLabel: AgentLabel{Agent: "c1", Model: "gpt"}},
	}}
	for _, tc := range []struct {
		actor, distinct string
		label           AgentLabel
		want            string // "" when allowed
	}{
		{"carol", "", AgentLabel{}, "carol wrote proof revision 2"},
		{"alice", "", AgentLabel{}, "alice wrote part of proof revision 2 (before carol's patch)"},
		{"bob", "", AgentLabel{}, ""},
		{"bob", DistinctModel, AgentLabel{Agent: "b1", Model: "opus"}, "model opus wrote part of proof revision 2 (before carol's patch), and bob may not check it"},
		{"bob", DistinctAgent, AgentLabel{Agent: "c1", Model: "x"}, "agent c1 wrote proof revision 2, and bob may not check it"},
		{"bob", DistinctModel, AgentLabel{Agent: "b1", Model: "gemini"}, ""},
	} {
		f := passing(StatementAwaitingVerification, "")
		f.OpenIssues = nil
		f.ForbidSelfCheck, f.Actor, f.ProofAuthor, f.ProofRevision = true, tc.actor, "carol", 2
		f.VerifyDistinct, f.CheckerLabel, f.ProofAuthorLabel, f.Statement = tc.distinct, tc.label, AgentLabel{Agent: "c1", Model: "gpt"}, st
		err := Allow("check-confirm-proof", f)
		var ge *GuardError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s (%s %+v): Allow = %v; want allowed", tc.actor, tc.distinct, tc.label, err)
		case tc.want != "" && (!errors.As(err, &ge) || ge.Guard != "not_self_check" || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s (%s %+v): Allow = %v; want not_self_check saying %q", tc.actor, tc.distinct, tc.label, err, tc.want)
		}
	}
	if w := st.ProofWriters[0].Actor; w != "alice" {
		t.Errorf("the guard reordered the statement's writers: first is %s", w)
	}
	old := &Statement{ProofAuthor: ptr("dave")}
	if w := old.Writers(); len(w) != 1 || w[0].Actor != "dave" {
		t.Errorf("Writers() of a statement without proof_writers = %+v; want its last author", w)
	}
}

// deadEnded is a pending statement with one proof dead end, with lesson.
func deadEnded(lesson *string) *Statement {
	direct := "direct"
	return &Statement{ID: "stmt_a_wrap", Status: StatementPending, ProofRevision: 2, DeadEnds: []DeadEnd{{Number: 1, Level: LevelRevise,
		Cause: DeadEndLevelSpent, Strategy: &direct, ProofRevisions: []int{1, 2},
		ProofSHA256: []string{TextSum("Let $x>0$. Then $x^2>0$. Hence the claim.")}, Issues: []int{1, 2}, Lesson: lesson}}}
}

func strPtr(s string) *string { return &s }
