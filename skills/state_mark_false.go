package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var stateMarkFalse = &Skill{
	Name:    "state-mark-false",
	Purpose: "Mark a statement false with a counterexample.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement that is false: its id, or the path of its JSON file"),
		text("counterexample", "a description of the counterexample"),
		enum("source", "which role calls it", model.Sources, true),
		{Name: "issue_number", Type: TypeInt, Help: "source fix only: the open issue that revealed it"},
	},
	Example:       `--statement-path stmt_example_wrap_sub2 --source prove --counterexample "n = 0 satisfies both premises, but 2n - 1 = -1 is not positive."`,
	When:          "Use it when you have a counterexample: values that satisfy every premise and make the claim fail; as the fixer, when an open issue shows the statement itself is false.",
	WhenNot:       "Do not use it because a proof is hard or has a gap: a gap is not a counterexample. If a nearby claim is true and would serve, use state-propose-modification. The status false is final.",
	Output:        "`parent` is `{id, kind, status, effect}`: what the refutation means for the parent problem or statement, and who acts next. With source fix, `response_number` and `issue_number` name the response recorded. `status` is `false`.",
	ExampleAfter:  "state-setup-substatement",
	ExampleOutput: `{"command":"state-mark-false","created":[],"id":"stmt_example_wrap_sub2","ok":true,"parent":{"id":"stmt_example_wrap","kind":"statement","status":"awaiting_substatements","effect":"Its parent stmt_example_wrap (awaiting_substatements) now has a false sub-statement; its prover must re-plan (state-setup-substatement, state-mark-false or state-propose-modification)."},"revision":2,"status":"false"}`,
	Refusals: []Refusal{
		guardRefusal("fix_names_open_issue", "source fix without an open issue number",
			"Name the open issue that revealed it with --issue-number (the message lists the open ones)."),
		{Code: store.CodeInvalidInput,
			When: "--issue-number with source prove",
			Do:   "Drop --issue-number, or call as the fixer with --source fix."},
	},
	Run: runStateMarkFalse,
}

func runStateMarkFalse(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := sourcedFacts(tx, in, "state-mark-false")
	if err != nil {
		return nil, err
	}
	ce := in.Text("counterexample")
	refutation := map[string]any{"source": f.Source, "issue_number": nil, "response_number": nil, "actor": actor(tx), "at": tx.Now()}
	extra := map[string]any{}
	if f.Source == model.SourceFix {
		n, err := appendResponse(tx, d, st, "false", f.Named, map[string]any{"counterexample": ce})
		if err != nil {
			return nil, err
		}
		refutation["issue_number"], refutation["response_number"] = f.Named[0], n
		extra["response_number"], extra["issue_number"] = n, f.Named[0]
	}
	if err := set(d, "status", model.StatementFalse, "counterexample", ce, "refutation", refutation); err != nil {
		return nil, err
	}
	effect, err := parentEffect(tx, st)
	if err != nil {
		return nil, err
	}
	extra["parent"] = effect
	return &Result{ID: id, Status: model.StatementFalse, Revision: d.Revision() + 1, Extra: extra,
		Text: fmt.Sprintf("Marked %s false. %s", id, effect.Effect)}, nil
}

// sourcedFacts reads the statement of a skill that both prove and fix call,
// checks the source and issue number and asks the table.
func sourcedFacts(tx *store.Tx, in *Input, skill string) (*store.Doc, *model.Statement, *model.Facts, error) {
	d, st, f, err := statementState(tx, in.Text("statement_path"))
	if err != nil {
		return nil, nil, nil, err
	}
	f.Source = model.Source(in.Text("source"))
	if in.Has("issue_number") {
		if f.Source != model.SourceFix {
			return nil, nil, nil, store.Errorf(store.CodeInvalidInput, "issue_number is for source fix only").
				WithHint("drop --issue-number, or call with --source fix")
		}
		f.Named = []int{in.Int("issue_number")}
	}
	if err := model.Allow(skill, f); err != nil {
		return nil, nil, nil, err
	}
	return d, st, f, nil
}

// Effect says how a change to a statement bears on its parent.
type Effect struct {
	ID     string       `json:"id"`
	Kind   model.Kind   `json:"kind"`
	Status model.Status `json:"status"`
	Effect string       `json:"effect"`
}

// parentEffect describes what a false statement means for its context. The
// parent's status does not change: whose turn it is follows from it.
func parentEffect(tx *store.Tx, st *model.Statement) (*Effect, error) {
	pd, err := tx.Get(st.Context)
	if err != nil {
		return nil, err
	}
	e := &Effect{ID: st.Context, Kind: pd.Kind, Status: pd.Status()}
	switch {
	case pd.Kind == model.KindProblem:
		e.Effect = fmt.Sprintf("Problem %s cannot be solved through it; it needs another wrap-up statement (prob-wrapup-statement).", st.Context)
	case st.FillsIssue != nil:
		e.Effect = fmt.Sprintf("Issue %d of %s stays open: the gap at sentence %d is not filled; its fixer must answer it another way.", *st.FillsIssue, st.Context, *st.FillsGapAt)
	default:
		e.Effect = fmt.Sprintf("Its parent %s (%s) now has a false sub-statement; its prover must re-plan (state-setup-substatement, state-mark-false or state-propose-modification).", st.Context, pd.Status())
	}
	return e, nil
}
