package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/formal"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// stateCompleteFormalProof submits a formal proof of a confirmed formal
// statement, for the kernel to check (check-formal).
var stateCompleteFormalProof = &Skill{
	Name:    "state-complete-formal-proof",
	Purpose: "Submit a formal proof.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
		text("formal_proof", "a whole file: the statement's definitions, any helper lemmas, and the theorem with its proof, ended by Qed (@FILE reads a file)"),
		sourceParam,
		formalIssueParam,
	},
	Example:       `--statement-path stmt_example_wrap --source prove --formal-proof "Require Import Arith. Fixpoint odd_sum (n : nat) : nat := match n with 0 => 0 | S k => odd_sum k + (2 * k + 1) end. Theorem odd_squares : forall n : nat, odd_sum n = n * n. Proof. induction n as [|k IH]; simpl odd_sum. - reflexivity. - rewrite IH. ring. Qed."`,
	When:          "Use it once the formal statement is confirmed: prove its theorem, under its name and with its type, in a file of its own; as the fixer, to answer the kernel's refusal (--source fix --issue-number N), reading the error it quotes.",
	WhenNot:       "No Admitted, admit, Axiom, Parameter, Conjecture or Hypothesis, and no command that reads or writes files: they are refused before any run.",
	Output:        "`stage` is `proof_submitted`: check-formal runs the kernel next. With source fix, `response_number` names the response.",
	ExampleAfter:  "check-confirm-formalization",
	ExampleOutput: `{"command":"state-complete-formal-proof","created":[],"id":"stmt_example_wrap","ok":true,"revision":4,"stage":"proof_submitted","status":"pending"}`,
	Refusals: []Refusal{
		guardRefusal("formal_proof_due", "as the prover, the formal statement is not confirmed (or a proof is already in); as the fixer, no open issue on the formal proof is named",
			"`proofloop show ID --field formal.stage` shows the stage; as the fixer, name the open issue on the formal proof."),
		{Code: store.CodeInvalidInput,
			When: "the proof is refused before any run: an unfinished or assumed step, a command that reads or writes files, or no theorem of the statement's name",
			Do:   "Correct the line the message quotes and call again; nothing was written."},
	},
	Run: runStateCompleteFormalProof,
}

func runStateCompleteFormalProof(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := sourcedFacts(tx, in, "state-complete-formal-proof")
	if err != nil {
		return nil, err
	}
	proof := in.Text("formal_proof")
	if st.Formal.System == "coq" {
		if err := formal.CheckProof(proof, st.Formal.Theorem); err != nil {
			return nil, refusedText("formal proof", err)
		}
	}
	if err := set(d, "formal.proof", proof, "formal.proof_by", actor(tx), "formal.proof_at", tx.Now(), "formal.stage", model.StageProofSubmitted); err != nil {
		return nil, err
	}
	if err := d.Delete("formal.verdict"); err != nil {
		return nil, err
	}
	res := &Result{ID: id, Status: st.Status, Revision: d.Revision() + 1, Extra: map[string]any{"stage": model.StageProofSubmitted}}
	if f.Source == model.SourceFix {
		status, n, err := answerFormal(tx, d, st, f, model.ResponseFormalProof)
		if err != nil {
			return nil, err
		}
		if err := d.Set("status", status); err != nil {
			return nil, err
		}
		res.Status, res.Extra["response_number"] = status, n
	}
	res.Text = fmt.Sprintf("Submitted a formal proof of %s (theorem %s); check-formal runs the kernel on it next (%s).", id, st.Formal.Theorem, res.Status)
	return res, nil
}
