package skills

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// DecideParams are the inputs of decide.
type DecideParams struct {
	ID     string
	Accept bool
	Reason *string
}

// Decide resolves a statement in needs_modification. Accepting applies the
// proposed claim and premises, keeps the old ones in modification_history,
// retires the issues the old claim had open and sends the statement back to
// pending. Rejecting restores the status it came from; a rejected proposal
// from a fixer no longer answers its issue, so the issue is open again.
func Decide(s *store.Store, opts store.TxOptions, p DecideParams) (*Result, error) {
	id, _, err := s.ParseRef(p.ID)
	if err != nil {
		return nil, err
	}
	opts.Target = id
	var res *Result
	_, err = s.Update(opts, func(tx *store.Tx) error {
		d, st, err := statementDoc(tx, id)
		if err != nil {
			return err
		}
		if err := model.Allow("decide", &model.Facts{Status: st.Status}); err != nil {
			return err
		}
		m := st.ProposedModification
		rec := map[string]any{"decision": "rejected", "type": m.Type, "claim_before": st.Claim, "premises_before": st.Premises,
			"claim_after": nil, "premises_after": nil, "rationale": m.Rationale, "reason": p.Reason, "decided_at": tx.Now(), "actor": actor(tx)}
		status := m.PreviousStatus
		if p.Accept {
			status = model.StatementPending
			claim, premises := st.Claim, st.Premises
			if m.Claim != nil {
				claim = *m.Claim
			}
			if m.Premises != nil {
				premises = m.Premises
			}
			rec["decision"], rec["claim_after"], rec["premises_after"] = "accepted", claim, premises
			if err := set(d, "claim", claim, "premises", premises); err != nil {
				return err
			}
			for i, is := range st.Validate.Issues {
				if is.SupersededAt == nil && isOpen(st, is.IssueNumber) {
					if err := d.Set(fmt.Sprintf("validate.issues.%d.superseded_at", i), tx.Now()); err != nil {
						return err
					}
				}
			}
		} else if m.ResponseNumber != nil {
			if err := d.Set(fmt.Sprintf("validate.responses.%d.rejected_at", *m.ResponseNumber-1), tx.Now()); err != nil {
				return err
			}
		}
		if err := set(d, "modification_history.-1", rec, "proposed_modification", nil, "status", status); err != nil {
			return err
		}
		res = &Result{ID: id, Status: status, Revision: d.Revision() + 1,
			Extra: map[string]any{"decision": rec["decision"]}}
		if p.Accept {
			res.Text = fmt.Sprintf("Accepted the modification of %s: it now claims %q and is pending a proof.", id, rec["claim_after"])
		} else {
			res.Text = fmt.Sprintf("Rejected the modification of %s; it is back to %s.", id, status)
		}
		return nil
	})
	return res, err
}

// isOpen reports whether an issue was open before this decision; the
// modification response that led here answers its own issue, which the
// accepted change also settles.
func isOpen(st *model.Statement, n int) bool {
	for _, o := range st.OpenIssues() {
		if o == n {
			return true
		}
	}
	return false
}
