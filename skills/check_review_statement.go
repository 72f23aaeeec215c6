package skills

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkReviewStatement is not a seed skill: with config.json's
// review_statements on, a checker says whether a new statement is well
// posed before anyone proves it. Its row gives the check role the turn on
// a pending statement that waits for its review, and the prover's turns on
// it wait (model.ReviewDue): the review comes first.
var checkReviewStatement = &Skill{
	Name:    "check-review-statement",
	Purpose: "Review a new statement before any proof.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
		enum("verdict", "your verdict", model.ReviewVerdicts, true),
		text("explanation", "why"),
		enum("modification_type", "ill_posed: how it should change", model.ModificationTypes, false),
		optText("suggested_claim", "ill_posed: the claim it should make"),
		texts("suggested_premises", "ill_posed: its premises, one per flag"),
	},
	Example:       `--statement-path stmt_example_wrap --verdict well_posed --explanation "Both sides are defined for every integer n >= 1, the premise says which n, and n = 1 gives 1 = 1: nothing is unclear or trivially false."`,
	When:          "Is the new statement clear, consistent, complete, not trivially false? If not: ill_posed, with the change it needs.",
	WhenNot:       "Do not judge whether it is true: provers and checkers do.",
	Output:        "`verdict` is the verdict recorded. `status` stays `pending` (well_posed: the prover's turn), or is `needs_modification` (ill_posed: a person accepts or rejects the change you proposed).",
	ExampleAfter:  "prob-wrapup-statement",
	ExampleOutput: `{"command":"check-review-statement","created":[],"id":"stmt_example_wrap","ok":true,"revision":2,"status":"pending","verdict":"well_posed"}`,
	Transition: &model.Rule{Skill: "check-review-statement", Roles: []model.Role{model.RoleCheck}, Kind: model.KindStatement,
		From: []model.From{{Statuses: []model.Status{model.StatementPending}, Turn: model.RoleCheck, When: []model.Guard{model.ReviewOn},
			Why: func(*model.Facts) string {
				return "a new statement: say whether it is well posed before anyone proves it (review_statements: this turn comes before the prover's)"
			}}},
		Leaves: "well_posed: pending (the prover's turn); ill_posed: needs_modification (decide's turn on the proposed change)",
		Guards: []model.Guard{model.ReviewPending}},
	Refusals: []Refusal{
		guardRefusal("review_due", "the statement has a proof already, or its claim and premises were reviewed",
			"There is nothing to review: release the item and end your turn."),
		{Code: store.CodeInvalidInput,
			When: "ill_posed without --modification-type and a suggested claim or premises, or well_posed with them",
			Do:   "An ill_posed verdict proposes the change (--modification-type and --suggested-claim, --suggested-premises or both); a well_posed one proposes none."},
	},
	Run: runCheckReviewStatement,
}

func runCheckReviewStatement(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	verdict := in.Text("verdict")
	proposes := in.Has("modification_type") || in.Has("suggested_claim") || in.Has("suggested_premises")
	switch {
	case verdict == model.VerdictWellPosed && proposes:
		return nil, badInput("a well_posed verdict proposes no change: leave out --modification-type, --suggested-claim and --suggested-premises").
			WithHint("say ill_posed to propose a change")
	case verdict == model.VerdictIllPosed && (!in.Has("modification_type") || !in.Has("suggested_claim") && !in.Has("suggested_premises")):
		return nil, badInput("an ill_posed verdict proposes the change the statement needs: give --modification-type and --suggested-claim, --suggested-premises or both").
			WithHint("say what the statement should become; a person then accepts or rejects it")
	case in.Has("suggested_claim") && strings.TrimSpace(*in.OptText("suggested_claim")) == "":
		return nil, badInput("suggested_claim must not be empty").WithHint("give the claim it should make, or leave --suggested-claim out")
	}
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	if err := model.Allow("check-review-statement", f); err != nil {
		return nil, err
	}
	review := labelled(tx, map[string]any{"verdict": verdict, "explanation": in.Text("explanation"),
		"claim": st.Claim, "premises": nonNil(st.Premises), "actor": actor(tx), "at": tx.Now()})
	if err := d.Set("reviews.-1", review); err != nil {
		return nil, err
	}
	res := &Result{ID: id, Status: model.StatementPending, Revision: d.Revision() + 1, Extra: map[string]any{"verdict": verdict},
		Text: fmt.Sprintf("Reviewed %s: well posed; it is the prover's turn.", id)}
	if verdict == model.VerdictWellPosed {
		return res, nil
	}
	var premises []string
	if in.Has("suggested_premises") {
		premises = in.Texts("suggested_premises")
	}
	proposal := map[string]any{"type": in.Text("modification_type"), "claim": in.OptText("suggested_claim"), "premises": premises,
		"rationale": in.Text("explanation"), "source": model.SourceCheck, "issue_number": nil, "response_number": nil,
		"previous_status": st.Status, "actor": actor(tx), "proposed_at": tx.Now()}
	if err := set(d, "proposed_modification", proposal, "status", model.StatementNeedsModification); err != nil {
		return nil, err
	}
	res.Status = model.StatementNeedsModification
	res.Text = fmt.Sprintf("Reviewed %s: ill posed; the proposed %s change awaits a decision (proofloop decide %s --accept|--reject).", id, in.Text("modification_type"), id)
	return res, nil
}
