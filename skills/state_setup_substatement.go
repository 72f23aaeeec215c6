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
		ref("parent_statement_path", "the statement to decompose: a bare id or a path of its JSON file"),
		{Name: "sub_statements", Type: TypeSubs, Required: true, Help: `a JSON array of {"claim": TEXT, "premises": [TEXT, ...]}`},
		text("rationale", "why this decomposition helps"),
	},
	Example: `--parent-statement-path stmt_example_wrap --sub-statements '[{"claim": "1 = 1^2.", "premises": []}, {"claim": "n^2 + 2n + 1 = (n+1)^2.", "premises": ["n is an integer"]}]' --rationale "Base case and inductive step."`,
	Run:     runStateSetupSubstatement,
}

func runStateSetupSubstatement(tx *store.Tx, in *Input) (*Result, error) {
	parent := in.Text("parent_statement_path")
	d, st, err := statementDoc(tx, parent)
	if err != nil {
		return nil, err
	}
	f, err := statementFacts(tx, st)
	if err != nil {
		return nil, err
	}
	subs := in.Subs("sub_statements")
	f.NewSubs = len(subs)
	if err := model.Allow("state-setup-substatement", f); err != nil {
		return nil, err
	}
	taken := st.SubStatements
	var made []Created
	var ids []string
	for _, sub := range subs {
		id := model.SubStatementID(parent, model.NextNumber(taken, func(n int) string { return model.SubStatementID(parent, n) }))
		if _, err := newStatement(tx, id, parent, sub.Claim, sub.Premises, nil); err != nil {
			return nil, err
		}
		if err := d.Set("sub_statements.-1", id); err != nil {
			return nil, err
		}
		taken = append(taken, id)
		ids = append(ids, id)
		made = append(made, created(model.KindStatement, id))
	}
	if err := set(d, "rationale", in.Text("rationale"), "status", model.StatementAwaitingSubstatement); err != nil {
		return nil, err
	}
	return &Result{ID: parent, Status: model.StatementAwaitingSubstatement, Revision: d.Revision() + 1, Created: made,
		Extra: map[string]any{"sub_statements": ids},
		Text:  fmt.Sprintf("Created %d sub-statements of %s: %s. It awaits them.", len(ids), parent, strings.Join(ids, ", "))}, nil
}
