package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var probSetupSubgoal = &Skill{
	Name:    "prob-setup-subgoal",
	Purpose: "Split a complex problem into a subproblem.",
	Target:  "parent_problem_path",
	Params: []Param{
		ref("parent_problem_path", "the parent problem: its id, or the path of its JSON file"),
		text("subproblem_objective", "what the subproblem should prove"),
		texts("subproblem_hypothesis", "a condition inherited or specified for the subproblem"),
		text("rationale", "why this decomposition helps"),
	},
	Example:       `--parent-problem-path prob_example --subproblem-objective "Show the bound for n <= 10." --subproblem-hypothesis "n is a positive integer" --rationale "Small cases first."`,
	When:          "Use it when the problem is too large for one statement: split off a self-contained part (a special case, an auxiliary question) as a subproblem with its own objective. Call it once per subproblem; then wrap the problem up with prob-wrapup-statement.",
	WhenNot:       "Do not use it for a claim you can state precisely and hand to a prover: that is a wrap-up statement (prob-wrapup-statement). Do not use it to split a statement's proof into lemmas: that is state-setup-substatement, the prover's skill.",
	Output:        "`id` is the new subproblem (`prob_<name>_sub1`, `_sub2`, ...), pending and listed in `created`; `parent` is the problem, which now lists it in its `preliminaries`.",
	ExampleOutput: `{"command":"prob-setup-subgoal","created":[{"id":"prob_example_sub1","path":"problem/prob_example_sub1.json"}],"id":"prob_example_sub1","ok":true,"parent":"prob_example","revision":1,"status":"pending"}`,
	Run:           runProbSetupSubgoal,
}

func runProbSetupSubgoal(tx *store.Tx, in *Input) (*Result, error) {
	parent := in.Text("parent_problem_path")
	d, p, err := problemDoc(tx, parent)
	if err != nil {
		return nil, err
	}
	if err := model.Allow("prob-setup-subgoal", &model.Facts{Status: p.Status}); err != nil {
		return nil, err
	}
	id := model.SubproblemID(parent, model.NextNumber(p.Preliminaries, func(n int) string { return model.SubproblemID(parent, n) }))
	rationale := in.Text("rationale")
	if _, err := tx.Create(id, newProblem(in.Text("subproblem_objective"), in.Texts("subproblem_hypothesis"), &parent, &rationale)); err != nil {
		return nil, err
	}
	if err := d.Set("preliminaries.-1", id); err != nil {
		return nil, err
	}
	c := created(model.KindProblem, id)
	return &Result{ID: id, Status: model.ProblemPending, Revision: 1, Created: []Created{c},
		Extra: map[string]any{"parent": parent},
		Text:  fmt.Sprintf("Created subproblem %s of %s at %s.", id, parent, c.Path)}, nil
}
