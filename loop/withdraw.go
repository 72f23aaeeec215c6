package loop

import (
	"fmt"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// WithdrawIssue is the one step every withdrawal takes, a dispute's
// settlement and a checker's own (check-withdraw-issue): it marks issue i
// of st withdrawn at now, by whom ("" for a dispute's consensus) and why,
// and gives the statement the status the withdrawal leaves
// (model.AfterWithdrawal). The caller has passed the rule's guards.
func WithdrawIssue(doc *store.Doc, st *model.Statement, i int, now, by, reason string) error {
	path := fmt.Sprintf("validate.issues.%d.", i)
	if err := doc.Set(path+"withdrawn_at", now); err != nil {
		return err
	}
	if by != "" {
		if err := doc.Set(path+"withdrawn_by", by); err != nil {
			return err
		}
	}
	if err := doc.Set(path+"withdrawn_reason", reason); err != nil {
		return err
	}
	// A withdrawn rejection of a formalization leaves the formal statement
	// to be judged again.
	if st.Validate.Issues[i].IssueTarget() == model.TargetFormalStatement && st.Formal != nil && st.Formal.Stage == model.StageRejected {
		if err := doc.Set("formal.stage", model.StageFormalized); err != nil {
			return err
		}
	}
	if after := model.AfterWithdrawal(st, st.Validate.Issues[i].IssueNumber); after != st.Status {
		return doc.Set("status", after)
	}
	return nil
}
