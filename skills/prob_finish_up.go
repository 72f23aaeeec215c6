package skills

import (
	"fmt"
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var probFinishUp = &Skill{
	Name:    "prob-finish-up",
	Purpose: "Mark a problem solved by its key statement.",
	Target:  "problem_path",
	Params: []Param{
		ref("problem_path", "the problem: its id, or the path of its JSON file"),
		text("resolution", "how the objective follows from the proved statement"),
		{Name: "key_statement_id", Type: TypeRef, Required: true, Help: "the true statement, listed in the problem's progresses, that enables the resolution"},
	},
	Example:       `--problem-path prob_example --key-statement-id stmt_example_wrap --resolution "The wrap-up statement is the objective."`,
	When:          "Use it when a statement listed in the problem's progresses (one of its wrap-up statements) has been proved true and the problem's objective follows from it.",
	WhenNot:       "Do not use it while the key statement is still pending, awaiting verification or has a gap: that work belongs to other roles, so end your turn. If every wrap-up statement turned out false, write a new one with prob-wrapup-statement instead.",
	Output:        "`resolved_by` names the key statement; `status` is `solved`.",
	ExampleAfter:  "check-confirm-proof",
	ExampleOutput: `{"command":"prob-finish-up","created":[],"id":"prob_example","ok":true,"resolved_by":"stmt_example_wrap","revision":3,"status":"solved"}`,
	Refusals: []Refusal{
		guardRefusal("key_statement_true", "the key statement is not true, or is not listed in the problem's progresses",
			"Name a true statement from the problem's `progresses` (`proofloop show PROBLEM`). If none is true yet, the problem is not ready: end your turn."),
		{Code: store.CodeNotFound,
			When: "the key statement does not exist",
			Do:   "Take the id from the problem's `progresses`."},
	},
	Run: runProbFinishUp,
}

func runProbFinishUp(tx *store.Tx, in *Input) (*Result, error) {
	id, key := in.Text("problem_path"), in.Text("key_statement_id")
	d, p, err := problemDoc(tx, id)
	if err != nil {
		return nil, err
	}
	f := &model.Facts{Status: p.Status, KeyListed: slices.Contains(p.Progresses, key)}
	if f.KeyListed && p.Status == model.ProblemPending {
		kd, err := tx.Get(key)
		if err != nil {
			return nil, err
		}
		f.KeyStatus = kd.Status()
	}
	if err := model.Allow("prob-finish-up", f); err != nil {
		return nil, err
	}
	if err := set(d, "status", model.ProblemSolved, "resolution", in.Text("resolution"),
		"resolved_by", key, "solved_at", tx.Now(), "solved_by", actor(tx)); err != nil {
		return nil, err
	}
	return &Result{ID: id, Status: model.ProblemSolved, Revision: d.Revision() + 1,
		Extra: map[string]any{"resolved_by": key},
		Text:  fmt.Sprintf("Problem %s is solved by %s.", id, key)}, nil
}
