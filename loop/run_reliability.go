package loop

import (
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// cannotConfirm says, for a check turn on statement id, why an agent's
// confirmation would not count toward verify_quorum: its party wrote or
// confirmed the proof revision (cannotCount, verify_distinct), or it is
// measured below verify_min_reliability (docs/eval.md). run gives such an
// agent no check turn: a confirmation recorded and not counted, turn after
// turn, would never make the statement true.
func (r *runner) cannotConfirm(tx *store.Tx, id string) (func(Acting) string, error) {
	distinct, err := r.cannotCount(tx, id)
	if err != nil {
		return nil, err
	}
	cfg, err := tx.Config()
	if err != nil || cfg.VerifyMinReliability == nil {
		return distinct, err
	}
	recs, err := tx.CheckerRecords()
	if err != nil {
		return nil, err
	}
	measured := model.Measured(recs, model.RoleCheck)
	return func(a Acting) string {
		if distinct != nil {
			if why := distinct(a); why != "" {
				return why
			}
		}
		return cfg.VerifyMinReliability.Uncounted(measured, model.AgentLabel{Agent: a.Agent, Model: a.Model})
	}, nil
}
