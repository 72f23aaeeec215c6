package loop_test

import (
	"strings"
	"testing"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// TestShowDerivesFacts: loop.Show returns the current document with its
// derived facts (not fully proved, open issues by severity), the document
// as it was --at a seq without them, one field, and refuses a missing
// field; the kept revisions and their diff come back as values.
func TestShowDerivesFacts(t *testing.T) {
	root := newRoot(t, nil)
	newOdd(t, root)
	must(t, root, "state-complete-proof", "--statement-path", "stmt_odd_wrap", "--strategy", "direct", "--proof-text", "It is clear. Hence it holds.")
	must(t, root, "--actor", "carol", "check-reject-proof", "--statement-path", "stmt_odd_wrap", "--sentence-number", "1",
		"--sentence-text", "It is clear.", "--error-type", "gap", "--explanation", "Why?")
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	got, err := loop.Show(s, []string{"stmt_odd_wrap", "prob_odd"}, loop.ShowQuery{})
	if err != nil {
		t.Fatal(err)
	}
	st := got[0]
	if len(got) != 2 || st.ID != "stmt_odd_wrap" || st.Proved == nil || st.Proved.FullyProved || st.Proved.NotProved != "stmt_odd_wrap" ||
		st.OpenBySeverity[model.SeverityCritical]+st.OpenBySeverity[model.SeverityGap] != 1 {
		t.Errorf("Show(stmt_odd_wrap) = %+v (proved %+v); want it not fully proved, for itself, with one open issue", st, st.Proved)
	}
	if pr := got[1]; pr.ID != "prob_odd" || pr.Proved == nil || pr.OpenBySeverity != nil {
		t.Errorf("Show(prob_odd) = %+v; want a verdict and no open issues (a problem has none)", pr)
	}

	at, err := loop.Show(s, []string{"stmt_odd_wrap"}, loop.ShowQuery{At: &store.Point{Seq: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if a := at[0]; a.Step == nil || a.Step.Event.Seq != 2 || a.Proved != nil || a.Doc.Status() != model.StatementPending {
		t.Errorf("Show(--at 2) = %+v; want the pending statement of seq 2, with no verdict (a verdict is a fact of now)", a)
	}

	f, err := loop.Show(s, []string{"stmt_odd_wrap"}, loop.ShowQuery{Field: "status"})
	if err != nil || f[0].FieldText != "has_gap" || string(f[0].FieldRaw) != `"has_gap"` || f[0].Proved != nil {
		t.Errorf("Show(--field status) = %+v, %v; want has_gap and no verdict", f, err)
	}
	if _, err := loop.Show(s, []string{"prob_odd", "stmt_odd_wrap"}, loop.ShowQuery{Field: "proof_strategy"}); store.CodeOf(err) != store.CodeNotFound ||
		!strings.Contains(err.Error(), "prob_odd has no field proof_strategy") {
		t.Errorf("Show(--field proof_strategy) on a problem = %v; want not_found naming prob_odd", err)
	}

	r, err := loop.ProofRevision(s, "stmt_odd_wrap", 1)
	if err != nil || r.Revision != 1 || r.Text != "It is clear. Hence it holds." || r.Cause != "complete" {
		t.Errorf("ProofRevision(1) = %+v, %v; want the completed text", r, err)
	}
	if _, err := loop.ProofRevision(s, "stmt_odd_wrap", 2); store.CodeOf(err) != store.CodeNotFound {
		t.Errorf("ProofRevision(2) = %v; want not_found (only revision 1 exists)", err)
	}
	if _, err := loop.ProofRevision(s, "prob_odd", 1); store.CodeOf(err) != store.CodeInvalidInput {
		t.Errorf("ProofRevision of a problem = %v; want invalid_input", err)
	}
	d, err := loop.DiffProofRevisions(s, "stmt_odd_wrap", 1, 1)
	if err != nil || len(d.Diff) != 0 || d.From.Revision != 1 || d.To.Revision != 1 {
		t.Errorf("DiffProofRevisions(1, 1) = %+v, %v; want an empty diff", d, err)
	}
}
