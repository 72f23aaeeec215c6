package loop

import (
	"errors"
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Disputes: a fixer who believes an issue is wrong opens a socratic debate
// about it (debate start --about STMT#ISSUE). The issue records the open
// dispute, and the statement's turn is nobody's until it ends (the table's
// no_open_dispute hold, model.Holds). When the debate ends ACCEPTED_CONSENSUS with both
// participants' latest verdicts withdrawn, the issue is withdrawn in the same
// transaction; any other end leaves it standing. Participants join as in any
// socratic debate (by name; the checker and the fixer are expected).

// disputedIssue reads the statement and the index of the disputed issue.
func disputedIssue(tx *store.Tx, link *model.DisputeLink) (*store.Doc, *model.Statement, int, error) {
	if k, err := model.KindOf(link.Statement); err != nil || k != model.KindStatement {
		return nil, nil, 0, store.Errorf(store.CodeInvalidInput, "--about %s#%d: %s is not a statement id", link.Statement, link.IssueNumber, link.Statement)
	}
	doc, err := tx.Get(link.Statement)
	if err != nil {
		return nil, nil, 0, err
	}
	st, err := doc.Statement()
	if err != nil {
		return nil, nil, 0, store.Errorf(store.CodeStoreDamaged, "%v", err)
	}
	for i, is := range st.Validate.Issues {
		if is.IssueNumber == link.IssueNumber {
			return doc, st, i, nil
		}
	}
	return nil, nil, 0, store.Errorf(store.CodeNotFound, "%s has no issue %d", link.Statement, link.IssueNumber).
		WithHint(fmt.Sprintf("`proofloop show %s --field validate.issues` lists its issues by issue_number", link.Statement))
}

// openDispute marks the issue as disputed by d, in d's start transaction.
// Only an open issue of an unresolved statement can be disputed, once at a
// time.
func openDispute(tx *store.Tx, d *model.Debate) error {
	doc, st, i, err := disputedIssue(tx, d.About)
	if err != nil {
		return err
	}
	is := st.Validate.Issues[i]
	switch {
	case model.Resolved(st.Status):
		return store.Errorf(store.CodeInvalidTransition, "dispute refused: %s is %s", st.ID, st.Status)
	case is.DisputeOpen():
		return store.Errorf(store.CodeInvalidTransition, "dispute refused: issue %d of %s is already disputed in %s", is.IssueNumber, st.ID, is.Dispute.Debate)
	case !contains(st.OpenIssues(), is.IssueNumber):
		return store.Errorf(store.CodeInvalidTransition, "dispute refused: issue %d of %s is not open", is.IssueNumber, st.ID)
	}
	tx.Detail("dispute", fmt.Sprintf("%s#%d", st.ID, is.IssueNumber))
	return doc.Set(fmt.Sprintf("validate.issues.%d.dispute", i), model.IssueDispute{Debate: d.ID, OpenedAt: tx.Now()})
}

// settleDispute ends the issue's dispute when d closes (or is discarded,
// with no outcome), and withdraws the issue when the table's settle-dispute
// rule allows it: the debate's consensus says so, the issue is still open,
// and the statement is not final. The status the statement leaves is the
// rule's (model.AfterWithdrawal). It reports whether the issue was
// withdrawn.
func settleDispute(tx *store.Tx, d *model.Debate) (bool, error) {
	doc, st, i, err := disputedIssue(tx, d.About)
	if err != nil {
		return false, err
	}
	is := st.Validate.Issues[i]
	if is.Dispute == nil || is.Dispute.Debate != d.ID || is.Dispute.ClosedAt != nil {
		return false, nil
	}
	now := tx.Now()
	dis := *is.Dispute
	dis.ClosedAt = &now
	if d.Outcome != nil {
		o := d.Outcome.Outcome
		dis.Outcome = &o
	}
	path := fmt.Sprintf("validate.issues.%d", i)
	if err := doc.Set(path+".dispute", dis); err != nil {
		return false, err
	}
	f := model.StatementFacts(st, nil)
	f.Debate, f.Named = d, []int{is.IssueNumber}
	var refused *model.TransitionError
	switch err := model.Allow("settle-dispute", f); {
	case errors.As(err, &refused):
		return false, nil // a final statement keeps its issues
	case err != nil:
		var guard *model.GuardError
		if errors.As(err, &guard) {
			return false, nil // the issue stands
		}
		return false, err
	}
	tx.Detail("transition", "settle-dispute")
	return true, WithdrawIssue(doc, st, i, now, "", "the dispute in "+d.ID+" ended in consensus that the issue is withdrawn")
}

func contains(ns []int, n int) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}
