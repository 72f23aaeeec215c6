package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var stateCompleteProof = &Skill{
	Name:    "state-complete-proof",
	Purpose: "Submit a completed proof of a statement for verification.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: a bare id or a path of its JSON file"),
		text("proof_text", "the complete proof, structured in steps (@FILE reads a file)"),
		enum("strategy", "the proof strategy used", model.Strategies, true),
	},
	Example: `--statement-path stmt_example_wrap --strategy induction --proof-text "Step 1: For n = 1 both sides are 1. Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives (n+1)^2. Hence the claim holds for all n."`,
	Run:     runStateCompleteProof,
}

func runStateCompleteProof(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, err := statementDoc(tx, id)
	if err != nil {
		return nil, err
	}
	f, err := statementFacts(tx, st)
	if err != nil {
		return nil, err
	}
	f.NewProof = in.Text("proof_text")
	if err := model.Allow("state-complete-proof", f); err != nil {
		return nil, err
	}
	rev := st.ProofRevision + 1
	if err := set(d, "proof", f.NewProof, "proof_strategy", in.Text("strategy"), "proof_revision", rev,
		"proof_author", actor(tx), "status", model.StatementAwaitingVerification); err != nil {
		return nil, err
	}
	n := len(model.SplitSentences(f.NewProof))
	return &Result{ID: id, Status: model.StatementAwaitingVerification, Revision: d.Revision() + 1,
		Extra: map[string]any{"proof_revision": rev, "sentences": n},
		Text:  fmt.Sprintf("Submitted proof revision %d of %s (%d sentences); it awaits verification.", rev, id, n)}, nil
}
