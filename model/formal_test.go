package model

import (
	"errors"
	"strings"
	"testing"
)

// TestTruth: what makes a statement true under each formal.policy, for a
// written proof awaiting verification or none, with and without a kernel
// pass, with the quorum met or not.
func TestTruth(t *testing.T) {
	tests := []struct {
		policy     FormalPolicy
		written    bool
		hasFormal  bool
		kernel     bool
		confirmers int
		met        bool
	}{
		{PolicyOff, true, true, true, 0, false},
		{PolicyOff, true, true, false, 1, true},
		{PolicyCounts, true, true, true, 0, true},   // the kernel's pass is the one confirmation
		{PolicyCounts, true, true, false, 0, false}, // no pass, no confirmation
		{PolicyCounts, false, true, true, 0, false}, // no written proof to confirm
		{PolicyRequired, true, true, false, 1, false},
		{PolicyRequired, true, true, true, 1, true},
		{PolicyRequired, true, false, false, 1, true}, // no formal statement: the quorum alone
		{PolicyRequired, true, true, true, 0, false},  // the pass is not a confirmation
		{PolicySuffices, false, true, true, 0, true},  // no written proof needed
		{PolicySuffices, true, true, false, 1, true},  // the checkers' quorum still makes it true
		{PolicySuffices, false, true, false, 0, false},
	}
	for _, tt := range tests {
		tr := Truth{Policy: tt.policy, Quorum: 1, Confirmers: tt.confirmers, HasFormal: tt.hasFormal, Kernel: tt.kernel, Written: tt.written}
		if got := tr.Met(); got != tt.met {
			t.Errorf("%+v.Met() = %v; want %v (missing: %s)", tr, got, tt.met, tr.Missing())
		}
		if !tt.met && tr.Missing() == "" {
			t.Errorf("%+v.Missing() is empty; want what it still needs", tr)
		}
	}
	if got := (Truth{Policy: PolicyRequired, Quorum: 1, Confirmers: 1, HasFormal: true, Written: true}).Missing(); !strings.Contains(got, "kernel pass") {
		t.Errorf("Missing under required = %q; want the kernel pass named", got)
	}
}

// formalDone is a statement whose formal track the kernel passed.
func formalDone() *Statement {
	bob, proof := "bob", "Theorem t : True. Proof. exact I. Qed."
	stmt := "Theorem t : True. Admitted."
	f := &Formal{System: "coq", Theorem: "t", Statement: stmt, ConfirmedBy: &bob, Proof: &proof, Stage: StageChecked,
		Verdict: &Verdict{OK: true, Actor: "kernel:coq-8.16.1", StatementSHA256: SHA256Hex(stmt), ProofSHA256: SHA256Hex(proof)}}
	return &Statement{ID: "stmt_a_wrap", Status: StatementTrue, Formal: f}
}

func TestKernelCheckedAndVerdictProblem(t *testing.T) {
	st := formalDone()
	if !st.KernelChecked() || st.Formal.VerdictProblem() != "" {
		t.Fatalf("a passed formal track: KernelChecked %v, VerdictProblem %q; want true, none", st.KernelChecked(), st.Formal.VerdictProblem())
	}
	for name, edit := range map[string]func(f *Formal){
		"the proof edited":         func(f *Formal) { p := *f.Proof + " "; f.Proof = &p },
		"the statement edited":     func(f *Formal) { f.Statement += " " },
		"the hash edited":          func(f *Formal) { f.Verdict.ProofSHA256 = SHA256Hex("other") },
		"a refusal made a pass":    func(f *Formal) { f.Verdict.OK = false },
		"the actor made a person":  func(f *Formal) { f.Verdict.Actor = "mallory" },
		"no confirmation":          func(f *Formal) { f.ConfirmedBy = nil },
		"a stage with no verdict":  func(f *Formal) { f.Verdict = nil },
		"the stage moved on ahead": func(f *Formal) { f.Stage = StageProofSubmitted },
	} {
		st := formalDone()
		edit(st.Formal)
		if st.KernelChecked() {
			t.Errorf("%s: KernelChecked = true; want false", name)
		}
		if name != "no confirmation" && st.Formal.VerdictProblem() == "" {
			t.Errorf("%s: VerdictProblem is empty; want the inconsistency named", name)
		}
	}
}

func TestReservedActor(t *testing.T) {
	for _, a := range []string{"kernel:coq-8.16.1", "Kernel:coq", " KERNEL:x", "ｋｅｒｎｅｌ:x"} {
		if _, err := NormalizeActor(a); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("NormalizeActor(%q) = %v; want it refused as reserved", a, err)
		}
	}
	for _, a := range []string{"kernel", "kernelx:coq", "bob:kernel:x"} {
		if _, err := NormalizeActor(a); err != nil {
			t.Errorf("NormalizeActor(%q) = %v; want it accepted", a, err)
		}
	}
}

// TestFormalGuards: the guards of the formal track's rows, each refusing.
func TestFormalGuards(t *testing.T) {
	tests := []struct {
		skill  string
		status Status
		stage  FormalStage
		mutate func(f *Facts)
		guard  string
		reason string
	}{
		{"check-confirm-formalization", StatementPending, StageConfirmed, nil, "formal_stage_formalized", "formal stage is confirmed"},
		{"check-reject-formalization", StatementPending, StageFormalized, func(f *Facts) { f.Actor = "Alice" }, "not_formalizer", "alice wrote the formal statement"},
		{"check-confirm-formalization", StatementPending, StageFormalized, func(f *Facts) { f.Actor = "" }, "not_formalizer", "unknown"},
		{"check-formal", StatementAwaitingVerification, StageChecked, nil, "formal_stage_proof_submitted", "formal stage is checked"},
		{"state-formalize", StatementPending, StageConfirmed, func(f *Facts) { f.Source = SourceProve }, "formal_statement_open", "the prover acts at stage"},
		{"state-formalize", StatementHasGap, StageRejected, func(f *Facts) { f.Source, f.Named = SourceFix, []int{2} }, "formal_statement_open", "issue 2 is not an open issue on the formal statement"},
		{"state-complete-formal-proof", StatementPending, StageFormalized, func(f *Facts) { f.Source = SourceProve }, "formal_proof_due", "the prover acts at stage confirmed"},
		{"state-complete-formal-proof", StatementHasGap, StageFailed, func(f *Facts) { f.Source, f.Named = SourceFix, nil }, "formal_proof_due", "name the issue on the formal proof"},
		{"fix-patch-proof", StatementHasGap, StageFailed, func(f *Facts) { f.Named, f.OpenIssues = []int{2}, []int{1, 2} }, "named_issue_on_proof", "issue 2 is on the formal proof: answer it with state-complete-formal-proof"},
		{"fix-create-substatement", StatementHasGap, StageRejected, func(f *Facts) { f.OpenIssues = []int{1, 2} }, "named_issue_on_proof", "issue 1 is on the formal statement"},
	}
	for _, tt := range tests {
		f := passing(tt.status, "")
		f.Statement, f.Actor = formalStatement(tt.status, tt.stage), "bob"
		if tt.mutate != nil {
			tt.mutate(f)
		}
		err := Allow(tt.skill, f)
		var ge *GuardError
		if !errors.As(err, &ge) || ge.Guard != tt.guard || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s at %s: Allow = %v; want guard %s with %q", tt.skill, tt.stage, err, tt.guard, tt.reason)
		}
	}
}
