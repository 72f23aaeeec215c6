package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// reopen is not a seed skill: it is the check role's late finding. It takes
// check-reject-proof's fields and passes its guards, against the accepted
// proof of a true statement.
var reopen = &Skill{
	Name:    "reopen",
	Purpose: "Reopen a true statement on a flaw in its proof.",
	Target:  "statement_path",
	Params: issueParams("the true statement whose accepted proof has the flaw: its id, or the path of its JSON file",
		"the flawed sentence, numbered as proofloop show ID --sentences prints them"),
	Example:       issueExample,
	When:          "Use it on a flaw in the accepted proof of a true statement: the first invalid step, quoted exactly, as for check-reject-proof. What relies on the statement is no longer fully proved until it is proved again.",
	WhenNot:       "Do not use it before the statement is true (check-reject-proof), for style, or for a step you can verify yourself.",
	Output:        "`issue_number` is the issue recorded; `round` the new check/fix round; `proof_revision` the accepted revision it was found in. `status` is `has_gap`.",
	ExampleAfter:  "check-confirm-proof",
	ExampleOutput: `{"command":"reopen","created":[],"id":"stmt_example_wrap","issue_number":1,"ok":true,"proof_revision":1,"revision":4,"round":1,"severity":"gap","status":"has_gap"}`,
	Refusals: []Refusal{
		guardRefusal("sentence_in_range", "the sentence number is not in the accepted proof",
			"Take the number from `proofloop show ID --sentences`: a true statement's proof is the revision its checkers accepted."),
		quoteRefusal,
		selfCheckRefusal("you wrote any of the accepted proof revision, its proof or a patch (forbid_self_check)"),
		repeatRefusal("an open issue already records the same rejection word for word (a true statement has none: it shares check-reject-proof's checks)"),
	},
	Run: runReopen,
}

func runReopen(tx *store.Tx, in *Input) (*Result, error) {
	// A late finding opens a round of its own; verified_at stays, so that
	// a reader can tell a statement that was true and was reopened.
	r, err := recordIssue(tx, in, "reopen", func(st *model.Statement) int { return st.Round + 1 })
	if err != nil {
		return nil, err
	}
	res := &Result{ID: r.id, Status: r.doc.Status(), Revision: r.doc.Revision() + 1,
		Extra: map[string]any{"issue_number": r.number, "round": r.round, "severity": r.severity, "proof_revision": r.st.ProofRevision},
		Text: fmt.Sprintf("Reopened %s: recorded issue %d (%s) at sentence %d of its accepted proof revision %d (round %d); it has a gap, and whatever relies on it is no longer fully proved.",
			r.id, r.number, r.severity, r.sentence, r.st.ProofRevision, r.round)}
	r.climbed(res)
	return res, nil
}
