package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkConfirmFormalization is a checker's word that a formal statement
// says what the claim says: the one judgement the kernel cannot make.
var checkConfirmFormalization = &Skill{
	Name:    "check-confirm-formalization",
	Purpose: "Confirm a formal statement.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
	},
	Example:       `--statement-path stmt_example_wrap`,
	When:          "Use it when the formal statement's theorem states exactly the claim under exactly its premises: no premise added or dropped, nothing weakened, and definitions that mean what the claim's words mean.",
	WhenNot:       "Do not use it on a formal statement you wrote, or when it differs from the claim in any way: reject it (check-reject-formalization).",
	Output:        "`stage` is `confirmed`: a formal proof is written next. `status` stays what it was.",
	ExampleAfter:  "state-formalize",
	ExampleOutput: `{"command":"check-confirm-formalization","created":[],"id":"stmt_example_wrap","ok":true,"revision":3,"stage":"confirmed","status":"pending"}`,
	Refusals: []Refusal{
		formalStageRefusal("formal_stage_formalized", "state-formalize attaches one; after a confirmation or a rejection, nothing is left to judge"),
		notFormalizerRefusal,
	},
	Run: runCheckConfirmFormalization,
}

// formalStageRefusal is the refusal of a formal stage guard.
func formalStageRefusal(guard, what string) Refusal {
	return guardRefusal(guard, "the formal track is not at that stage (the message names the stage it is at)",
		"Nothing to do at this stage: "+what+"; `proofloop show ID --field formal.stage` shows it. End your turn.")
}

var notFormalizerRefusal = guardRefusal("not_formalizer", "you wrote the formal statement",
	"Another checker judges it: release the item and end your turn.")

func runCheckConfirmFormalization(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	f.Actor = tx.Actor()
	if err := model.Allow("check-confirm-formalization", f); err != nil {
		return nil, err
	}
	if err := set(d, "formal.confirmed_by", actor(tx), "formal.confirmed_at", tx.Now(), "formal.stage", model.StageConfirmed); err != nil {
		return nil, err
	}
	return &Result{ID: id, Status: st.Status, Revision: d.Revision() + 1, Extra: map[string]any{"stage": model.StageConfirmed},
		Text: fmt.Sprintf("Confirmed the formalization of %s (theorem %s); a formal proof is written next.", id, st.Formal.Theorem)}, nil
}
