package skills

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var stateSetupSubstatement = &Skill{
	Name:    "state-setup-substatement",
	Purpose: "Decompose a statement into simpler sub-statements.",
	Target:  "parent_statement_path",
	Params: []Param{
		ref("parent_statement_path", "the statement to decompose: its id, or the path of its JSON file"),
		{Name: "sub_statements", Type: TypeSubs, Required: true, Help: `a JSON array of {"claim": TEXT, "premises": [TEXT, ...]}`},
		text("rationale", "why this decomposition helps"),
		lessonParam,
	},
	Example:       `--parent-statement-path stmt_example_wrap --sub-statements '[{"claim": "(n+1)^2 = n^2 + (2n+1).", "premises": ["n is an integer"]}, {"claim": "2n - 1 > 0.", "premises": ["n is an integer", "n >= 0"]}]' --rationale "Induction needs the step identity, and every term of the sum must be positive."`,
	When:          "Use it when a statement's proof needs lemmas that deserve proofs of their own: list them all in one call, each with its premises. The statement waits until they are resolved and then comes back to the prover, who writes the proof citing them. Also use it to re-plan when a sub-statement turned out false.",
	WhenNot:       "Do not use it for a gap a checker found in an existing proof: that is fix-create-substatement, which answers the issue. Do not use it while a sub-statement is still open, and do not split a proof you could simply write.",
	Output:        "`created` lists the new sub-statements (`<id>_sub1`, `<id>_sub2`, ...), all pending; `sub_statements` lists their ids. `status` is `awaiting_substatements`.",
	ExampleAfter:  "prob-wrapup-statement",
	ExampleOutput: `{"command":"state-setup-substatement","created":[{"id":"stmt_example_wrap_sub1","path":"statement/stmt_example_wrap_sub1.json"},{"id":"stmt_example_wrap_sub2","path":"statement/stmt_example_wrap_sub2.json"}],"id":"stmt_example_wrap","ok":true,"revision":2,"status":"awaiting_substatements","sub_statements":["stmt_example_wrap_sub1","stmt_example_wrap_sub2"]}`,
	Refusals: []Refusal{
		guardRefusal("at_least_one", "no sub-statement was given",
			"Give a JSON array with at least one {\"claim\", \"premises\"} object."),
		guardRefusal("no_open_substatement", "re-planning while a sub-statement is still open",
			"Every sub-statement must be true or false first (the message names the open ones): end your turn."),
		reviewRefusal, lessonRefusal, deadEndRefusal,
	},
	Run: runStateSetupSubstatement,
}

func runStateSetupSubstatement(tx *store.Tx, in *Input) (*Result, error) {
	parent := in.Text("parent_statement_path")
	subs := in.Subs("sub_statements")
	// The cap comes first: every sub-statement is a document written under
	// the store's one lock, which every other agent waits for.
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	if len(subs) > cfg.MaxSubstatements {
		return nil, badInput("sub_statements has %d entries, more than max_substatements (%d) of config.json allows in one call", len(subs), cfg.MaxSubstatements).
			WithHint("decompose into fewer, larger lemmas (a sub-statement can be decomposed in turn), or raise max_substatements in config.json")
	}
	d, st, f, err := statementState(tx, parent)
	if err != nil {
		return nil, err
	}
	f.NewSubs = len(subs)
	claims := make([]model.SubClaim, len(subs))
	for i, sp := range subs {
		claims[i] = model.SubClaim{Claim: sp.Claim, Premises: sp.Premises}
	}
	f.NewPlan = model.PlanSum(claims)
	if f.Lesson, err = lessonOf(in); err != nil {
		return nil, err
	}
	plan, err := abandoning(tx, st, f)
	if err != nil {
		return nil, err
	}
	if err := model.Allow("state-setup-substatement", f); err != nil {
		return nil, err
	}
	if err := abandon(tx, d, st, f, plan); err != nil {
		return nil, err
	}
	ids, err := addSubStatements(tx, d, model.SubStatementID, subs, nil)
	if err != nil {
		return nil, err
	}
	made := make([]Created, len(ids))
	for i, id := range ids {
		made[i] = created(model.KindStatement, id)
	}
	if err := set(d, "rationale", in.Text("rationale"), "status", model.StatementAwaitingSubstatement); err != nil {
		return nil, err
	}
	return &Result{ID: parent, Status: model.StatementAwaitingSubstatement, Revision: d.Revision() + 1, Created: made,
		Extra: map[string]any{"sub_statements": nonNil(ids)},
		Text:  fmt.Sprintf("Created %s of %s: %s. It awaits them.", model.Count(len(ids), "sub-statement"), parent, strings.Join(ids, ", "))}, nil
}
