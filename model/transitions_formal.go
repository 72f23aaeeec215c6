package model

import (
	"fmt"
	"slices"
	"strings"
)

// The formal track's rows of the transition table (formal.go): formalize,
// confirm or reject the formalization, complete the formal proof, and run
// the kernel on it. Each turn they give is of priority 1: on a status
// where the prover or a checker also has a turn (pending,
// awaiting_verification, has_gap), the formal step is offered first, so a
// statement's formal track is finished before its written proof is checked
// (`proofloop transitions` prints the priority beside each turn).
func init() { Table = append(Table, formalRules...) }

// formalAnswer is the skill that answers an issue on each formal target.
var formalAnswer = map[string]string{TargetFormalStatement: "state-formalize --source fix", TargetFormalProof: "state-complete-formal-proof --source fix"}

// FormalSkills names the formal track's skills, whose rows are here.
func FormalSkills() []string {
	var out []string
	for _, r := range formalRules {
		out = append(out, r.Skill)
	}
	return out
}

// formalPriority is the priority of the formal track's turns.
const formalPriority = 1

// inFormalPlay are the statuses on which a formal statement is confirmed,
// a formal proof written and the kernel run: before any written proof, and
// while one awaits its checkers.
var inFormalPlay = []Status{StatementPending, StatementAwaitingVerification}

// formalStageIs is the guard that the formal track is at one of stages.
func formalStageIs(stages ...FormalStage) Guard {
	var names []string
	for _, s := range stages {
		names = append(names, string(s))
	}
	return Guard{Name: "formal_stage_" + strings.Join(names, "_or_"), Text: "formal stage " + strings.Join(names, " or "),
		Check: func(f *Facts) error {
			st := f.Statement
			switch {
			case st == nil || st.Formal == nil:
				return fmt.Errorf("the statement has no formal statement (state-formalize attaches one)")
			case !slices.Contains(stages, st.Formal.Stage):
				return fmt.Errorf("its formal stage is %s, not %s", st.Formal.Stage, strings.Join(names, " or "))
			}
			return nil
		}}
}

// formalIssueOpen is the condition of the fixer's formal turns: an issue on
// target is open.
func formalIssueOpen(target string) Guard {
	return Guard{Name: "open_issue_on_" + target, Text: "an issue on the " + strings.ReplaceAll(target, "_", " ") + " is open",
		Check: func(f *Facts) error {
			if f.Statement == nil || len(f.Statement.OpenFormalIssues(target)) == 0 {
				return fmt.Errorf("no issue on the %s is open", strings.ReplaceAll(target, "_", " "))
			}
			return nil
		}}
}

// namesFormalIssue is the fix source's guard: the call names an open issue
// on target. A prover's call names none.
func namesFormalIssue(name, target string, proveStages ...FormalStage) Guard {
	what := strings.ReplaceAll(target, "_", " ")
	var stages []string
	for _, s := range proveStages {
		if s != "" {
			stages = append(stages, string(s))
		}
	}
	prove := "formal stage " + strings.Join(stages, " or ")
	if slices.Contains(proveStages, "") {
		prove = "no formal statement yet, or " + prove
	}
	return Guard{Name: name, Input: true,
		Text: "source prove: " + prove + "; source fix: an open issue on the " + what + " is named",
		Check: func(f *Facts) error {
			st := f.Statement
			if st == nil {
				st = &Statement{}
			}
			if f.Source != SourceFix {
				switch {
				case st.Formal == nil && slices.Contains(proveStages, ""):
					return nil
				case st.Formal == nil:
					return fmt.Errorf("the statement has no formal statement (state-formalize attaches one)")
				case !slices.Contains(proveStages, st.Formal.Stage):
					return fmt.Errorf("its formal stage is %s: the prover acts at stage %s", st.Formal.Stage, strings.Join(stages, " or "))
				}
				return nil
			}
			open := st.OpenFormalIssues(target)
			if len(f.Named) == 0 {
				return fmt.Errorf("name the issue on the %s this answers (open: %s)", what, ints(open))
			}
			for _, n := range f.Named {
				if !slices.Contains(open, n) {
					return fmt.Errorf("issue %d is not an open issue on the %s (open: %s)", n, what, ints(open))
				}
			}
			return nil
		}}
}

// notFormalizer: the checker who judges a formalization did not write it.
var notFormalizer = Guard{Name: "not_formalizer", Text: "the checker did not write the formal statement", Input: true,
	Check: func(f *Facts) error {
		if ActorKey(f.Actor) == "" {
			return fmt.Errorf("the checker is unknown, so it cannot be told from the formal statement's author")
		}
		if st := f.Statement; st != nil && st.Formal != nil && st.Formal.FormalizedBy != nil && SameActor(f.Actor, *st.Formal.FormalizedBy) {
			return fmt.Errorf("%s wrote the formal statement and may not judge it", ActorKey(f.Actor))
		}
		return nil
	}}

var (
	whyConfirmFormal = func(*Facts) string { return "its formal statement awaits a checker's confirmation" }
	whyFormalProof   = func(*Facts) string { return "its formal statement is confirmed: write the formal proof" }
	whyKernel        = func(*Facts) string { return "its formal proof awaits the kernel (check-formal)" }
	whyReformalize   = func(f *Facts) string {
		return "the formal statement was rejected (issue " + ints(f.Statement.OpenFormalIssues(TargetFormalStatement)) + "): formalize it again"
	}
	whyRefixFormal = func(f *Facts) string {
		return "the kernel refused the formal proof (issue " + ints(f.Statement.OpenFormalIssues(TargetFormalProof)) + "): submit another"
	}
)

var formalRules = []Rule{
	{Skill: "state-formalize", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		// A prover may formalize a statement whose proof awaits its
		// checkers too, when it holds the item; the loop hands the prover
		// only pending ones for it.
		From: []From{{Source: SourceProve, Statuses: []Status{StatementPending}, Turn: RoleProve, When: []Guard{reviewSettled}, Why: whyProve},
			{Source: SourceProve, Statuses: []Status{StatementAwaitingVerification}},
			{Source: SourceFix, Statuses: []Status{StatementHasGap}, Turn: RoleFix, When: []Guard{formalIssueOpen(TargetFormalStatement)},
				Why: whyReformalize, Priority: formalPriority}},
		Leaves: "the status it had, formal stage formalized; source fix: once no issue is left open, awaiting_verification with a written proof, else pending",
		Guards: []Guard{namesFormalIssue("formal_statement_open", TargetFormalStatement, "", StageFormalized), reviewSettled}},
	{Skill: "check-confirm-formalization", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{Statuses: inFormalPlay, Turn: RoleCheck, Why: whyConfirmFormal, Priority: formalPriority}},
		Leaves: "the status it had, formal stage confirmed",
		Guards: []Guard{formalStageIs(StageFormalized), notFormalizer}},
	{Skill: "check-reject-formalization", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{Statuses: inFormalPlay, Turn: RoleCheck, Why: whyConfirmFormal, Priority: formalPriority}},
		Leaves: "has_gap (a new round) with an issue on the formal statement, formal stage rejected",
		Guards: []Guard{formalStageIs(StageFormalized), notFormalizer}},
	{Skill: "state-complete-formal-proof", Roles: []Role{RoleProve, RoleFix}, Kind: KindStatement,
		From: []From{{Source: SourceProve, Statuses: inFormalPlay, Turn: RoleProve, When: []Guard{formalStageIs(StageConfirmed)},
			Why: whyFormalProof, Priority: formalPriority},
			{Source: SourceFix, Statuses: []Status{StatementHasGap}, Turn: RoleFix, When: []Guard{formalIssueOpen(TargetFormalProof)},
				Why: whyRefixFormal, Priority: formalPriority}},
		Leaves: "the status it had, formal stage proof_submitted; source fix: once no issue is left open, awaiting_verification with a written proof, else pending",
		Guards: []Guard{namesFormalIssue("formal_proof_due", TargetFormalProof, StageConfirmed)}},
	{Skill: "check-formal", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{Statuses: inFormalPlay, Turn: RoleCheck, Why: whyKernel, Priority: formalPriority}},
		Leaves: "pass: formal stage checked, and true when formal.policy makes it so (Truth), else the status it had; refusal: has_gap (a new round) with an issue on the formal proof quoting the checker, formal stage failed",
		Guards: []Guard{formalStageIs(StageProofSubmitted)}},
}

// Truth is what makes a statement true, by config.json's verify_quorum and
// formal.policy: the one place the rule is written, read by
// check-confirm-proof and check-formal.
type Truth struct {
	Policy     FormalPolicy
	Quorum     int
	Confirmers int  // distinct checkers of the current proof revision
	HasFormal  bool // the statement has a formal statement
	Kernel     bool // Statement.KernelChecked
	// Written: a written proof awaits verification (awaiting_verification).
	Written bool
}

// TruthOf gathers the truth facts of a statement, confirmers counted.
func TruthOf(st *Statement, policy FormalPolicy, quorum, confirmers int) Truth {
	return Truth{Policy: policy, Quorum: quorum, Confirmers: confirmers, HasFormal: st.Formal != nil,
		Kernel: st.KernelChecked(), Written: st.Status == StatementAwaitingVerification}
}

// Count is the confirmations toward the quorum: the checkers', and under
// policy counts the kernel's pass.
func (t Truth) Count() int {
	if t.Policy == PolicyCounts && t.Kernel {
		return t.Confirmers + 1
	}
	return t.Confirmers
}

// Met reports whether the statement is true now: under suffices a kernel
// pass alone, a written proof or not; otherwise a written proof awaiting
// verification with the quorum met (the kernel's pass counting under
// counts) and, under required, the kernel's pass for a statement with a
// formal statement.
func (t Truth) Met() bool {
	switch {
	case t.Policy == PolicySuffices && t.Kernel:
		return true
	case !t.Written || t.Count() < t.Quorum:
		return false
	case t.Policy == PolicyRequired && t.HasFormal:
		return t.Kernel
	}
	return true
}

// Missing says what the statement still needs to be true, in words.
func (t Truth) Missing() string {
	var need []string
	if t.Written && t.Count() < t.Quorum {
		need = append(need, fmt.Sprintf("%d of %d confirmations", t.Count(), t.Quorum))
	}
	if t.Policy == PolicyRequired && t.HasFormal && !t.Kernel {
		need = append(need, "a kernel pass on a confirmed formalization (formal.policy required)")
	}
	if !t.Written && len(need) == 0 {
		need = append(need, "a written proof awaiting verification")
	}
	return strings.Join(need, "; ")
}
