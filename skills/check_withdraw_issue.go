package skills

import (
	"fmt"
	"slices"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkWithdrawIssue is the checker's second thought: it takes back an
// issue it recorded itself, with a reason. It brings its own row of the
// transition table: allowed on has_gap, giving no one a turn there (the
// fixer's turn stays the fixer's); once no issue is left open the statement
// is awaiting_verification, where the table gives the checkers their turn.
var checkWithdrawIssue = &Skill{
	Name:    "check-withdraw-issue",
	Purpose: "Withdraw your own open issue.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
		{Name: "issue_number", Type: TypeInt, Required: true, Help: "your open issue"},
		text("reason", "why it does not hold (kept with the issue)"),
	},
	Example:       `--statement-path stmt_example_wrap --issue-number 1 --reason "The identity is expanded in sentence 1; the step follows."`,
	When:          "Use it when an issue you recorded on a proof with a gap turns out not to hold: withdraw it and say why, rather than have the fixer answer it.",
	WhenNot:       "Not on another checker's issue (the fixer may dispute it), nor while it is disputed or once answered.",
	Output:        "`issue_number` is the issue withdrawn; `open_issues` lists those still open. `status` is `awaiting_verification` once none is left open, else `has_gap`.",
	ExampleAfter:  "check-reject-proof",
	ExampleOutput: `{"command":"check-withdraw-issue","created":[],"id":"stmt_example_wrap","issue_number":1,"ok":true,"open_issues":[],"revision":4,"status":"awaiting_verification"}`,
	Transition: &model.Rule{Skill: "check-withdraw-issue", Roles: []model.Role{model.RoleCheck}, Kind: model.KindStatement,
		From:   []model.From{{Statuses: []model.Status{model.StatementHasGap}}},
		Leaves: "awaiting_verification when no issue is left open, else has_gap",
		Guards: []model.Guard{
			{Name: "withdrawn_issue_open", Text: "the issue named is open", Input: true, Check: func(f *model.Facts) error {
				n := f.Named[0]
				if n < 1 || n > f.IssueCount {
					return fmt.Errorf("there is no issue %d (the statement has %d)", n, f.IssueCount)
				}
				if !slices.Contains(f.OpenIssues, n) {
					return fmt.Errorf("issue %d is not open (open issues: %v)", n, f.OpenIssues)
				}
				return nil
			}},
			{Name: "own_issue", Text: "the caller recorded the issue", Input: true, Check: func(f *model.Facts) error {
				is := f.Statement.Validate.Issues[f.Named[0]-1]
				if model.ActorKey(f.Actor) == "" || is.Actor == nil || !model.SameActor(f.Actor, *is.Actor) {
					return fmt.Errorf("issue %d was recorded by %s, not by %q", is.IssueNumber, model.Deref(is.Actor, "nobody named"), model.ActorKey(f.Actor))
				}
				return nil
			}},
			{Name: "not_disputed", Text: "no dispute on the issue is open", Input: true, Check: func(f *model.Facts) error {
				if is := f.Statement.Validate.Issues[f.Named[0]-1]; is.DisputeOpen() {
					return fmt.Errorf("issue %d is disputed in %s", is.IssueNumber, is.Dispute.Debate)
				}
				return nil
			}},
		}},
	Refusals: []Refusal{
		guardRefusal("withdrawn_issue_open", "there is no such issue, or it is not open (answered, superseded or withdrawn already)",
			"Nothing to withdraw: `proofloop show ID --field validate.issues` lists the issues; end your turn."),
		guardRefusal("own_issue", "another checker recorded the issue",
			"Only its own checker withdraws an issue; if you think it wrong, say so to a person or leave it to the fixer, and end your turn."),
		guardRefusal("not_disputed", "a dispute on the issue is open",
			"The dispute's debate decides it: join it (`proofloop debate join DEB --participant-name NAME`) or wait for its outcome."),
	},
	Run: runCheckWithdrawIssue,
}

func runCheckWithdrawIssue(tx *store.Tx, in *Input) (*Result, error) {
	id, n := in.Text("statement_path"), in.Int("issue_number")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	f.Named, f.Actor = []int{n}, tx.Actor()
	if err := model.Allow("check-withdraw-issue", f); err != nil {
		return nil, err
	}
	if err := loop.WithdrawIssue(d, st, n-1, tx.Now(), model.Deref(actor(tx), ""), in.Text("reason")); err != nil {
		return nil, err
	}
	after := model.AfterWithdrawal(st, n)
	left := slices.DeleteFunc(slices.Clone(st.OpenIssues()), func(o int) bool { return o == n })
	return &Result{ID: id, Status: after, Revision: d.Revision() + 1,
		Extra: map[string]any{"issue_number": n, "open_issues": left},
		Text:  fmt.Sprintf("Withdrew issue %d of %s; %s is %s.", n, id, id, after)}, nil
}
