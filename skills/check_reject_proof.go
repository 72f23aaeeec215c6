package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

var checkRejectProof = &Skill{
	Name:    "check-reject-proof",
	Purpose: "Record the first gap of a proof, at its sentence.",
	Target:  "statement_path",
	Params: issueParams("the statement whose proof has the gap: its id, or the path of its JSON file",
		"the sentence with the gap, numbered as proofloop show ID --sentences prints them"),
	Example:       issueExample,
	When:          "Use it at the first sentence that does not follow, reading sentence by sentence: quote its exact text and classify the error.",
	WhenNot:       "Do not use it for style, for a terse step you can verify, or for a later error before the first. If every sentence holds and the proof proves the claim, use check-confirm-proof.",
	Output:        "`issue_number` is the issue recorded (fixers answer it by that number); `round` the check/fix round. `status` is `has_gap`.",
	ExampleAfter:  "state-complete-proof",
	ExampleOutput: `{"command":"check-reject-proof","created":[],"id":"stmt_example_wrap","issue_number":1,"ok":true,"revision":3,"round":1,"severity":"gap","status":"has_gap"}`,
	Refusals: []Refusal{
		guardRefusal("sentence_in_range", "the sentence number is not in the proof",
			"Take the number from `proofloop show ID --sentences` of the current proof revision."),
		quoteRefusal,
		selfCheckRefusal("you wrote any of the current proof revision, its proof or a patch (forbid_self_check)"),
		repeatRefusal("an open issue already records the same rejection word for word"),
	},
	Run: runCheckRejectProof,
}

// quoteRefusal is the refusal of a sentence_text_found guard, the same for
// every skill that quotes a sentence of the proof it records an issue on.
var quoteRefusal = guardRefusal("sentence_text_found", "the quoted text is not in that sentence",
	"Copy the text from that sentence exactly (a contiguous part will do; whitespace is ignored): the message shows the real sentence, and where your quote does appear, if anywhere.")

// issueParams are the parameters of an issue recorded on a proof
// (check-reject-proof, reopen); statement and sentence describe the
// statement and the sentence the skill's issue is on.
func issueParams(statement, sentence string) []Param {
	return []Param{
		ref("statement_path", statement),
		{Name: "sentence_number", Type: TypeInt, Required: true, Help: sentence},
		text("sentence_text", "the exact text of that sentence, or a quoted part of it (whitespace is ignored)"),
		enum("error_type", "the kind of error", model.ErrorTypes, true),
		text("explanation", "what is wrong, in detail"),
		optText("suggested_fix", "what would be needed to fix it"),
		severityParam,
	}
}

// issueExample is the example of a skill that records an issue.
const issueExample = `--statement-path stmt_example_wrap --sentence-number 2 --sentence-text "adding 2n+1 gives (n+1)^2" --error-type unjustified_leap --explanation "The identity n^2 + 2n + 1 = (n+1)^2 is used without being shown." --suggested-fix "Expand (n+1)^2."`

// selfCheckRefusal is a checker's not_self_check refusal; when says which
// proof the checker wrote part of.
func selfCheckRefusal(when string) Refusal {
	return guardRefusal("not_self_check", when,
		"Leave it to another checker: release the item and end your turn.")
}

// repeatRefusal is the not_a_repeat refusal of a recorded issue.
func repeatRefusal(when string) Refusal {
	return guardRefusal("not_a_repeat", when,
		"Do not record it again: the message names the open issue, which the fixer must answer; record another error, or end your turn.")
}

func runCheckRejectProof(tx *store.Tx, in *Input) (*Result, error) {
	// A rejection of a proof awaiting verification opens a round; further
	// rejections while it has a gap join that round.
	r, err := recordIssue(tx, in, "check-reject-proof", func(st *model.Statement) int {
		if st.Status == model.StatementAwaitingVerification {
			return st.Round + 1
		}
		return st.Round
	})
	if err != nil {
		return nil, err
	}
	res := &Result{ID: r.id, Status: r.doc.Status(), Revision: r.doc.Revision() + 1,
		Extra: map[string]any{"issue_number": r.number, "round": r.round, "severity": r.severity},
		Text:  fmt.Sprintf("Recorded issue %d at sentence %d of %s (round %d); it has a gap.", r.number, r.sentence, r.id, r.round)}
	r.climbed(res)
	return res, nil
}

// climbed adds to a result what a climb of escalation did in the call: the
// level the statement is at now, and its new dead end.
func (r *recorded) climbed(res *Result) {
	if r.level == nil {
		return
	}
	res.Extra["level"] = r.level.Name
	dead := ""
	if r.level.Abandons {
		n := len(r.st.DeadEnds) + 1
		res.Extra["dead_end"] = n
		dead = fmt.Sprintf(", and its proof is dead end %d", n)
	}
	res.Text += fmt.Sprintf(" It spent the last round of its level: it climbs to level %s (%s's turn: %s)%s.", r.level.Name, r.level.Turn, r.level.Task, dead)
}

// recorded is an issue that recordIssue wrote.
type recorded struct {
	id            string
	doc           *store.Doc
	st            *model.Statement
	number, round int
	sentence      int
	severity      string
	level         *model.Level // the level it climbed to, if the issue spent its level's last round
}

// recordIssue is what check-reject-proof and reopen share: check the cited
// sentence and quote against the proof, pass skill's guards, and append the
// issue in the round that round gives, leaving the statement has_gap.
func recordIssue(tx *store.Tx, in *Input, skill string, round func(*model.Statement) int) (*recorded, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	f.Sentence, f.Quote = in.Int("sentence_number"), in.Text("sentence_text")
	f.ErrorType, f.Explanation = in.Text("error_type"), in.Text("explanation")
	if _, err := checkFacts(tx, f, st); err != nil {
		return nil, err
	}
	if err := model.Allow(skill, f); err != nil {
		return nil, err
	}
	r := &recorded{id: id, doc: d, st: st, number: len(st.Validate.Issues) + 1, round: round(st), sentence: f.Sentence, severity: severity(in)}
	issue := map[string]any{"issue_number": r.number, "sentence": f.Sentence, "sentence_text": f.Quote,
		"error_type": in.Text("error_type"), "explanation": in.Text("explanation"),
		"suggested_fix": in.OptText("suggested_fix"), "severity": r.severity, "created_at": tx.Now(), "actor": actor(tx),
		"round": r.round, "proof_revision": st.ProofRevision}
	labelled(tx, issue)
	if err := set(d, "validate.issues.-1", issue, "round", r.round, "status", model.StatementHasGap); err != nil {
		return nil, err
	}
	// The issue that spends its level's last round climbs the ladder in
	// the same transaction (the table's escalate rules).
	if r.level, err = loop.Escalate(tx, d); err != nil {
		return nil, err
	}
	return r, nil
}
