package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var stateCompleteProof = &Skill{
	Name:    "state-complete-proof",
	Purpose: "Submit a proof of a statement for verification.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
		text("proof_text", "the complete proof, structured in steps (@FILE reads a file)"),
		enum("strategy", "the proof strategy used", model.Strategies, true),
		lessonParam,
	},
	Example:       `--statement-path stmt_example_wrap --strategy induction --proof-text "Step 1: For n = 1 both sides are 1. Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives (n+1)^2. Hence the claim holds for all n."`,
	When:          "Use it when you have a complete proof of a pending statement, or when all of its sub-statements are resolved and the proof can cite the true ones by id.",
	WhenNot:       "Do not submit a partial proof: decompose it with state-setup-substatement instead. If the statement is false use state-mark-false; if it needs a change use state-propose-modification. While a sub-statement is still open, wait.",
	Output:        "`proof_revision` is the revision of the proof just submitted; `sentences` is how many sentences it has, numbered as checkers will cite them (`proofloop show ID --sentences`). `status` is `awaiting_verification`.",
	ExampleAfter:  "prob-wrapup-statement",
	ExampleOutput: `{"command":"state-complete-proof","created":[],"id":"stmt_example_wrap","ok":true,"proof_revision":1,"revision":2,"sentences":3,"status":"awaiting_verification"}`,
	Refusals: []Refusal{
		guardRefusal("proof_not_empty", "the proof text is empty",
			"Give the whole proof; for a long one write it to a file and pass --proof-text @FILE."),
		guardRefusal("no_open_substatement", "a sub-statement is still open (neither true nor false)",
			"Every sub-statement must be true or false first (the message names the open ones): end your turn."),
		reviewRefusal, lessonRefusal, deadEndRefusal,
		guardRefusal("plan_changed", "at level replan, a strategy a dead end used",
			"Decompose it (state-setup-substatement) or use another strategy."),
	},
	Run: runStateCompleteProof,
}

func runStateCompleteProof(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	f.NewProof, f.NewStrategy = in.Text("proof_text"), in.Text("strategy")
	if f.Lesson, err = lessonOf(in); err != nil {
		return nil, err
	}
	if err := model.Allow("state-complete-proof", f); err != nil {
		return nil, err
	}
	if err := abandon(tx, d, st, f, nil); err != nil {
		return nil, err
	}
	// A new proof replaces the text the open issues were about.
	if err := loop.Supersede(tx, d, st); err != nil {
		return nil, err
	}
	rev := st.ProofRevision + 1
	if err := set(d, "proof", f.NewProof, "proof_strategy", in.Text("strategy"), "proof_revision", rev); err != nil {
		return nil, err
	}
	if err := setProofAuthor(tx, d, st, false); err != nil {
		return nil, err
	}
	if err := d.Set("status", model.StatementAwaitingVerification); err != nil {
		return nil, err
	}
	strategy := in.Text("strategy")
	if err := tx.KeepProofRevision(d, model.ProofRevision{Revision: rev, Text: f.NewProof, Strategy: &strategy,
		Actor: actor(tx), AgentLabel: label(tx), At: tx.Now(), Cause: model.CauseComplete}); err != nil {
		return nil, err
	}
	n := len(model.SplitSentences(f.NewProof))
	return &Result{ID: id, Status: model.StatementAwaitingVerification, Revision: d.Revision() + 1,
		Extra: map[string]any{"proof_revision": rev, "sentences": n},
		Text:  fmt.Sprintf("Submitted proof revision %d of %s (%s); it awaits verification.", rev, id, plural(n, "sentence"))}, nil
}
