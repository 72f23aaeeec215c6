package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var fixCreateSubstatement = &Skill{
	Name:    "fix-create-substatement",
	Purpose: "Fill an issue's gap with a sub-statement; the issue stays open until a patch uses it.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement with the gap: its id, or the path of its JSON file"),
		{Name: "issue_number", Type: TypeInt, Required: true, Help: "the open issue this addresses"},
		text("sub_claim", "the claim of the gap-filling sub-statement"),
		texts("sub_premises", "a premise of the sub-statement"),
		{Name: "gap_location", Type: TypeInt, Help: "the sentence the sub-statement will support (default: the issue's sentence)"},
		optText("purpose", "how this sub-statement fills the gap"),
	},
	Example:       `--statement-path stmt_example_wrap --issue-number 1 --sub-claim "For every integer n, n^2 + 2n + 1 = (n+1)^2." --gap-location 2 --purpose "Justifies the identity used in step 2."`,
	When:          "Use it for a gap too large to patch in place: state the missing step as a precise claim, with its premises, for a prover to prove separately. The issue stays open; once the sub-statement is true the statement comes back to the fixer, who patches the sentence to cite it (fix-patch-proof).",
	WhenNot:       "Do not use it for a small gap: patch it with fix-patch-proof. Do not use it for a decomposition planned before any check: that is state-setup-substatement.",
	Output:        "`sub_statement_id` (also in `created`) is the new sub-statement `<id>_fix1`, `_fix2`, ..., pending; `fills_gap_at` is the sentence it supports; `response_number` is the response recorded. `status` is `awaiting_substatements`.",
	ExampleAfter:  "check-reject-proof",
	ExampleOutput: `{"command":"fix-create-substatement","created":[{"id":"stmt_example_wrap_fix1","path":"statement/stmt_example_wrap_fix1.json"}],"fills_gap_at":2,"id":"stmt_example_wrap","ok":true,"response_number":1,"revision":4,"status":"awaiting_substatements","sub_statement_id":"stmt_example_wrap_fix1"}`,
	Refusals: []Refusal{
		guardRefusal("named_issue_open", "the issue is not open",
			"Answer an open issue; the message lists them."),
		guardRefusal("named_issue_on_proof", "the issue is on the formal statement or the formal proof",
			"Answer an issue on the formal track with state-formalize or state-complete-formal-proof (--source fix, the message names which); a sub-statement fills only a gap of the written proof."),
		{Code: store.CodeInvalidInput,
			When: "--gap-location is beyond the last sentence",
			Do:   "Take the number from `proofloop show ID --sentences`, or leave it out to use the issue's sentence."},
	},
	Run: runFixCreateSubstatement,
}

func runFixCreateSubstatement(tx *store.Tx, in *Input) (*Result, error) {
	parent := in.Text("statement_path")
	d, st, f, err := statementState(tx, parent)
	if err != nil {
		return nil, err
	}
	issue := in.Int("issue_number")
	f.Named = []int{issue}
	if err := model.Allow("fix-create-substatement", f); err != nil {
		return nil, err
	}
	gap := in.Int("gap_location")
	if gap == 0 {
		gap = st.Validate.Issues[issue-1].Sentence
	}
	if n := len(model.SplitSentences(f.Proof)); gap > n {
		return nil, store.Errorf(store.CodeInvalidInput, "gap_location %d is out of range: %s", gap, model.ProofHas(n))
	}
	child, err := addSubStatement(tx, d, model.FixStatementID, in.Text("sub_claim"), in.Texts("sub_premises"), in.OptText("purpose"))
	if err != nil {
		return nil, err
	}
	id := child.ID
	if err := set(child, "fills_gap_at", gap, "fills_issue", issue); err != nil {
		return nil, err
	}
	n, err := appendResponse(tx, d, st, "substatement", []int{issue},
		map[string]any{"sub_statement_id": id, "purpose": in.OptText("purpose"), "gap_location": gap})
	if err != nil {
		return nil, err
	}
	if err := d.Set("status", model.StatementAwaitingSubstatement); err != nil {
		return nil, err
	}
	c := created(model.KindStatement, id)
	return &Result{ID: parent, Status: model.StatementAwaitingSubstatement, Revision: d.Revision() + 1, Created: []Created{c},
		Extra: map[string]any{"response_number": n, "sub_statement_id": id, "fills_gap_at": gap},
		Text: fmt.Sprintf("Created gap-filling sub-statement %s for issue %d at sentence %d of %s (response %d); %s awaits it.",
			id, issue, gap, parent, n, parent)}, nil
}
