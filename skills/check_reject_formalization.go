package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkRejectFormalization records that a formal statement does not say
// what the claim says: an issue whose target is the formal statement, which
// the fixer answers with a new formalization.
var checkRejectFormalization = &Skill{
	Name:    "check-reject-formalization",
	Purpose: "Reject a formal statement.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
		text("explanation", "how the formal statement differs from the claim"),
		optText("suggested_fix", "what the formal statement should say"),
	},
	Example:       `--statement-path stmt_example_wrap --explanation "The claim is about integers; the theorem quantifies over nat, so it says less." --suggested-fix "State it over Z."`,
	When:          "Use it when the formal statement's theorem is not exactly the claim under its premises, however small the difference.",
	WhenNot:       "Do not use it for style or names; do not judge a formal statement you wrote.",
	Output:        "`issue_number` is the issue recorded (its target is the formal statement); `round` the round. `status` is `has_gap`, `stage` `rejected`: the fixer formalizes again.",
	ExampleAfter:  "state-formalize",
	ExampleOutput: `{"command":"check-reject-formalization","created":[],"id":"stmt_example_wrap","issue_number":1,"ok":true,"revision":3,"round":1,"stage":"rejected","status":"has_gap"}`,
	Refusals: []Refusal{
		formalStageRefusal("formal_stage_formalized", "state-formalize attaches one; after a confirmation or a rejection, nothing is left to judge"),
		notFormalizerRefusal,
	},
	Run: runCheckRejectFormalization,
}

func runCheckRejectFormalization(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	f.Actor = tx.Actor()
	if err := model.Allow("check-reject-formalization", f); err != nil {
		return nil, err
	}
	n, round, err := recordFormalIssue(tx, d, st, formalIssue{target: model.TargetFormalStatement, line: theoremLine(st.Formal),
		text: st.Formal.Statement, explanation: in.Text("explanation"), errorType: "wrong_target",
		suggested: in.OptText("suggested_fix"), actor: actor(tx)}, model.StageRejected)
	if err != nil {
		return nil, err
	}
	return &Result{ID: id, Status: model.StatementHasGap, Revision: d.Revision() + 1,
		Extra: map[string]any{"issue_number": n, "round": round, "stage": model.StageRejected},
		Text:  fmt.Sprintf("Recorded issue %d on the formal statement of %s (round %d); the fixer formalizes it again.", n, id, round)}, nil
}
