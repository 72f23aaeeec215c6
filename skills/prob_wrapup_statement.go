package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var probWrapupStatement = &Skill{
	Name:    "prob-wrapup-statement",
	Purpose: "Create a statement whose proof resolves the problem.",
	Target:  "problem_path",
	Params: []Param{
		ref("problem_path", "the problem: its id, or the path of its JSON file"),
		text("claim", "the precise statement to be proved"),
		texts("premises", "a condition assumed true for this statement"),
		text("purpose", "how this statement completes the problem's resolution"),
	},
	Example:       `--problem-path prob_example --claim "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2." --premises "n is a positive integer" --purpose "This is the objective itself."`,
	When:          "Use it when you can state one precise claim whose proof resolves the problem (the objective itself, or a statement it follows from): on a pending problem with no wrap-up statement yet, or whose wrap-up statements were all shown false.",
	WhenNot:       "Do not use it while an earlier wrap-up statement of the problem is still being worked on: wait for it. Do not put a proof here: the prove role writes it. A vague claim wastes every later turn: state the quantifiers and the premises.",
	Output:        "`id` is the new statement (`stmt_<name>_wrap`, then `_wrap2`, ...), pending and listed in `created`; `problem` is the problem, which now lists it in its `progresses`.",
	ExampleOutput: `{"command":"prob-wrapup-statement","created":[{"id":"stmt_example_wrap","path":"statement/stmt_example_wrap.json"}],"id":"stmt_example_wrap","ok":true,"problem":"prob_example","revision":1,"status":"pending"}`,
	Run:           runProbWrapupStatement,
}

func runProbWrapupStatement(tx *store.Tx, in *Input) (*Result, error) {
	pid := in.Text("problem_path")
	d, p, err := problemDoc(tx, pid)
	if err != nil {
		return nil, err
	}
	if err := model.Allow("prob-wrapup-statement", &model.Facts{Status: p.Status}); err != nil {
		return nil, err
	}
	id := model.WrapID(pid, model.NextNumber(p.Progresses, func(n int) string { return model.WrapID(pid, n) }))
	purpose := in.Text("purpose")
	if _, err := newStatement(tx, id, pid, in.Text("claim"), in.Texts("premises"), &purpose); err != nil {
		return nil, err
	}
	if err := d.Set("progresses.-1", id); err != nil {
		return nil, err
	}
	c := created(model.KindStatement, id)
	return &Result{ID: id, Status: model.StatementPending, Revision: 1, Created: []Created{c},
		Extra: map[string]any{"problem": pid},
		Text:  fmt.Sprintf("Created wrap-up statement %s for %s at %s; it is pending a proof.", id, pid, c.Path)}, nil
}
