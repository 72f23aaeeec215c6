package skills

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var fixPatchProof = &Skill{
	Name:    "fix-patch-proof",
	Purpose: "Patch the proof sentences an issue names.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement whose proof is patched: its id, or the path of its JSON file"),
		{Name: "issue_number", Type: TypeInts, Required: true, Help: "an open issue this patch answers"},
		{Name: "sentence_range", Type: TypeRange, Required: true, Help: `the sentences to replace: "3-5" or "4" (JSON also {"start": 3, "end": 5})`},
		text("replacement_text", "the new text for that span of sentences"),
		text("change_description", "a brief description of what was changed"),
	},
	Example:       `--statement-path stmt_example_wrap --issue-number 1 --sentence-range 2 --replacement-text "Step 2: If the sum up to 2n-1 is n^2, adding 2n+1 gives n^2 + 2n + 1, which is (n+1)^2 by expanding the square." --change-description "Justify the identity."`,
	When:          "Use it for a gap a few sentences close: replace the cited sentence, or the smallest span around it, with the missing step; or, once a gap-filling sub-statement is true, cite it by id. One patch may answer several issues (repeat --issue-number).",
	WhenNot:       "Do not use it for a gap that needs a lemma (fix-create-substatement), to rewrite the whole proof, or on a statement false or misstated (state-mark-false, state-propose-modification --source fix).",
	Output:        "`response_number` is the response recorded; `proof_revision` the new proof revision; `open_issues` the issues still open. `status` is `awaiting_verification` when none is open, else `has_gap`: answer the rest.",
	ExampleAfter:  "check-reject-proof",
	ExampleOutput: `{"command":"fix-patch-proof","created":[],"id":"stmt_example_wrap","ok":true,"open_issues":[],"proof_revision":2,"response_number":1,"revision":4,"status":"awaiting_verification"}`,
	Refusals: []Refusal{
		guardRefusal("named_issue_open", "an issue number named is not open (answered already, or never recorded)",
			"Answer only open issues: `proofloop show ID --json` lists `validate.issues` and `validate.responses`; the message lists the open ones."),
		guardRefusal("named_issue_on_proof", "an issue named is on the formal statement or the formal proof",
			"Answer an issue on the formal track with state-formalize or state-complete-formal-proof (--source fix, the message names which); patch only issues on the written proof."),
		guardRefusal("no_open_substatement", "a gap-filling sub-statement is still open",
			"The gap-filling sub-statement must be true or false first (the message names it): end your turn."),
		guardRefusal("range_in_bounds", "the sentence range is outside the proof",
			"Take the numbers from `proofloop show ID --sentences` of the current proof revision."),
	},
	Run: runFixPatchProof,
}

func runFixPatchProof(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	r := in.Range("sentence_range")
	f.Named, f.First, f.Last = dedup(in.Ints("issue_number")), r.Start, r.End
	if err := model.Allow("fix-patch-proof", f); err != nil {
		return nil, err
	}
	proof, err := model.ReplaceSpans(f.Proof, f.ProofSpans(), r.Start, r.End, in.Text("replacement_text"))
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "%v", err)
	}
	rev := st.ProofRevision + 1
	n, err := appendResponse(tx, d, st, "patch", f.Named, map[string]any{"sentence_range": r,
		"change_description": in.Text("change_description"), "replacement_text": in.Text("replacement_text"), "proof_revision": rev})
	if err != nil {
		return nil, err
	}
	var open []int
	for _, i := range f.OpenIssues {
		if !slices.Contains(f.Named, i) {
			open = append(open, i)
		}
	}
	status := model.StatementAwaitingVerification
	if len(open) > 0 {
		status = model.StatementHasGap
	}
	if err := set(d, "proof", proof, "proof_revision", rev); err != nil {
		return nil, err
	}
	if err := setProofAuthor(tx, d, st, true); err != nil {
		return nil, err
	}
	if err := d.Set("status", status); err != nil {
		return nil, err
	}
	if err := tx.KeepProofRevision(d, model.ProofRevision{Revision: rev, Text: proof, Strategy: st.ProofStrategy,
		Actor: actor(tx), AgentLabel: label(tx), At: tx.Now(), Cause: model.CausePatch, Issues: f.Named, ResponseNumber: &n}); err != nil {
		return nil, err
	}
	span := fmt.Sprintf("sentences %d-%d", r.Start, r.End)
	if r.Start == r.End {
		span = fmt.Sprintf("sentence %d", r.Start)
	}
	text := fmt.Sprintf("Patched %s of %s (proof revision %d, response %d); it awaits verification.", span, id, rev, n)
	switch {
	case len(open) == 1:
		text = fmt.Sprintf("Patched %s of %s (proof revision %d, response %d); issue %d is still open.", span, id, rev, n, open[0])
	case len(open) > 1:
		text = fmt.Sprintf("Patched %s of %s (proof revision %d, response %d); issues %s are still open.", span, id, rev, n, strings.Trim(fmt.Sprint(open), "[]"))
	}
	return &Result{ID: id, Status: status, Revision: d.Revision() + 1,
		Extra: map[string]any{"response_number": n, "proof_revision": rev, "open_issues": nonNilInts(open)},
		Text:  text}, nil
}

func dedup(ns []int) []int {
	var out []int
	for _, n := range ns {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func nonNilInts(ns []int) []int {
	if ns == nil {
		return []int{}
	}
	return ns
}
