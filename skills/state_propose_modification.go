package skills

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var stateProposeModification = &Skill{
	Name:    "state-propose-modification",
	Purpose: "Propose a corrected claim or premises for a statement.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement to modify: its id, or the path of its JSON file"),
		enum("modification_type", "how the statement changes", model.ModificationTypes, true),
		optText("suggested_claim", "the revised claim"),
		texts("suggested_premises", "a revised premise, once per premise; they replace the premises"),
		text("rationale", "why this modification is needed"),
		enum("source", "which role calls it", model.Sources, true),
		{Name: "issue_number", Type: TypeInt, Help: "source fix only: the open issue that revealed it"},
	},
	Example:       `--statement-path stmt_example_wrap_sub2 --source prove --modification-type strengthen_premises --suggested-premises "n is an integer" --suggested-premises "n >= 1" --rationale "The claim fails for n = 0; the sum only needs n >= 1."`,
	When:          "Use it when a nearby statement is true and still serves the purpose; a person then accepts or rejects it (`proofloop decide`).",
	WhenNot:       "Do not use it when no nearby version would serve (state-mark-false), nor to change a proof (fix-patch-proof).",
	Output:        "With source fix, `response_number` and `issue_number` name the response recorded. `status` is `needs_modification` until `proofloop decide ID --accept|--reject`.",
	ExampleAfter:  "state-setup-substatement",
	ExampleOutput: `{"command":"state-propose-modification","created":[],"id":"stmt_example_wrap_sub2","ok":true,"revision":2,"status":"needs_modification"}`,
	Refusals: []Refusal{
		guardRefusal("fix_names_open_issue", "source fix without an open issue number",
			"Name the open issue that revealed it with --issue-number (the message lists the open ones)."),
		{Code: store.CodeInvalidInput,
			When: "neither --suggested-claim nor --suggested-premises",
			Do:   "Say what the statement should become: a claim, premises, or both."},
		{Code: store.CodeInvalidInput,
			When: "--issue-number with source prove",
			Do:   "Drop --issue-number, or call as the fixer with --source fix."},
	},
	Run: runStateProposeModification,
}

func runStateProposeModification(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	if !in.Has("suggested_claim") && !in.Has("suggested_premises") {
		return nil, store.Errorf(store.CodeInvalidInput, "state-propose-modification needs --suggested-claim, --suggested-premises or both").
			WithHint("say what the statement should become")
	}
	if c := in.OptText("suggested_claim"); c != nil && strings.TrimSpace(*c) == "" {
		return nil, store.Errorf(store.CodeInvalidInput, "suggested_claim must not be empty").
			WithHint("give the revised claim, or leave --suggested-claim out to change only the premises")
	}
	d, st, f, err := sourcedFacts(tx, in, "state-propose-modification")
	if err != nil {
		return nil, err
	}
	var premises []string
	if in.Has("suggested_premises") {
		premises = in.Texts("suggested_premises")
	}
	proposal := map[string]any{"type": in.Text("modification_type"), "claim": in.OptText("suggested_claim"),
		"premises": premises, "rationale": in.Text("rationale")}
	record := map[string]any{"source": f.Source, "issue_number": nil, "response_number": nil,
		"previous_status": st.Status, "actor": actor(tx), "proposed_at": tx.Now()}
	for k, v := range proposal {
		record[k] = v
	}
	extra := map[string]any{}
	if f.Source == model.SourceFix {
		n, err := appendResponse(tx, d, st, "modification", f.Named, map[string]any{"proposal": proposal})
		if err != nil {
			return nil, err
		}
		record["issue_number"], record["response_number"] = f.Named[0], n
		extra["response_number"], extra["issue_number"] = n, f.Named[0]
	}
	if err := set(d, "proposed_modification", record, "status", model.StatementNeedsModification); err != nil {
		return nil, err
	}
	return &Result{ID: id, Status: model.StatementNeedsModification, Revision: d.Revision() + 1, Extra: extra,
		Text: fmt.Sprintf("Proposed a %s modification of %s; it awaits a decision (proofloop decide %s --accept|--reject).", in.Text("modification_type"), id, id)}, nil
}
