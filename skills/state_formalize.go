package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/formal"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// stateFormalize attaches a formal statement: the claim in a proof
// assistant's language, whose theorem a formal proof must then prove. Its
// row is in model's table (transitions_formal.go) with the rest of the
// formal track.
var stateFormalize = &Skill{
	Name:    "state-formalize",
	Purpose: "Formalize a statement.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
		{Name: "system", Type: TypeText, Required: true, Help: "the proof assistant, as config.json's formal.checkers names it (coq)"},
		text("formal_statement", "definitions, then one `Theorem NAME : TYPE.` ended by `Admitted.` (@FILE reads a file)"),
		sourceParam,
		formalIssueParam,
		optText("theorem", "the theorem's name; found in the text for coq, needed for another system"),
	},
	Example:       `--statement-path stmt_example_wrap --system coq --source prove --formal-statement "Fixpoint odd_sum (n : nat) : nat := match n with 0 => 0 | S k => odd_sum k + (2 * k + 1) end. Theorem odd_squares : forall n : nat, odd_sum n = n * n. Admitted."`,
	When:          "Use it on a pending statement to state its claim formally, premises as hypotheses, so that the kernel can check a formal proof; as the fixer, to answer a rejected formalization (--source fix --issue-number N).",
	WhenNot:       "Do not prove anything in it: the theorem ends with Admitted. Not once the formalization is confirmed (a checker rejects it first).",
	ExampleAfter:  "prob-wrapup-statement",
	Output:        "`theorem` is the theorem a formal proof must prove; `stage` is `formalized`: a checker who did not write it confirms or rejects it next. With source fix, `response_number` names the response.",
	ExampleOutput: `{"command":"state-formalize","created":[],"id":"stmt_example_wrap","ok":true,"revision":2,"stage":"formalized","status":"pending","theorem":"odd_squares"}`,
	Refusals: []Refusal{
		guardRefusal("formal_statement_open", "as the prover, a formalization was confirmed already; as the fixer, no open issue on the formal statement is named",
			"A confirmed formalization changes only after a checker rejects it; as the fixer, name the open issue on the formal statement (`proofloop show ID --field validate.issues`)."),
		reviewRefusal,
		{Code: store.CodeInvalidInput,
			When: "the text is refused: no theorem, a second one, a proof instead of Admitted, an axiom, or a command that reads or writes files",
			Do:   "Correct the line the message quotes and call again; nothing was written."},
	},
	Run: runStateFormalize,
}

func runStateFormalize(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := sourcedFacts(tx, in, "state-formalize")
	if err != nil {
		return nil, err
	}
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	system, text := in.Text("system"), in.Text("formal_statement")
	if _, err := checkerOf(cfg, system); err != nil {
		return nil, err
	}
	theorem := in.Text("theorem")
	if system == "coq" {
		name, err := formal.CheckStatement(text)
		if err != nil {
			return nil, refusedText("formal statement", err)
		}
		if theorem != "" && theorem != name {
			return nil, store.Errorf(store.CodeInvalidInput, "--theorem %s: the formal statement declares %s", theorem, name).
				WithHint("drop --theorem (it is found in the text), or name the theorem the text declares")
		}
		theorem = name
	} else if err := formal.ValidTheorem(theorem); err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "%v", err).WithHint("name the theorem with --theorem: the checker of " + system + " is told to look for it")
	}
	fm := model.Formal{System: system, Theorem: theorem, Statement: text, FormalizedBy: actor(tx), FormalizedAt: tx.Now(), Stage: model.StageFormalized}
	if err := d.Set("formal", fm); err != nil {
		return nil, err
	}
	res := &Result{ID: id, Status: st.Status, Revision: d.Revision() + 1, Extra: map[string]any{"theorem": theorem, "stage": model.StageFormalized}}
	if f.Source == model.SourceFix {
		status, n, err := answerFormal(tx, d, st, f, model.ResponseFormalization)
		if err != nil {
			return nil, err
		}
		if err := d.Set("status", status); err != nil {
			return nil, err
		}
		res.Status, res.Extra["response_number"] = status, n
	}
	res.Text = fmt.Sprintf("Formalized %s in %s as theorem %s; a checker who did not write it confirms or rejects it next (%s).", id, system, theorem, res.Status)
	return res, nil
}
