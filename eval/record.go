package eval

import (
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// EvalCommand is the event command of an eval run's record.
const EvalCommand = "eval"

// Record appends an eval run's figures to the project's checkers.jsonl, one
// record per agent, in one transaction whose eval event carries them: what
// `status --checkers` shows and verify_min_reliability judges by.
func Record(s *store.Store, rep *Report, actor string) error {
	_, err := s.Update(store.TxOptions{Command: EvalCommand, Actor: actor}, func(tx *store.Tx) error {
		tx.Record()
		var recs []model.CheckerRecord
		for _, f := range rep.Agents {
			recs = append(recs, model.CheckerRecord{Source: model.RecordEval, At: tx.Now(), Role: rep.Role,
				AgentLabel: model.AgentLabel{Agent: f.Agent, Model: f.Model}, Label: f.Label, Set: rep.Set, Counts: f.Counts})
		}
		tx.Detail("set", rep.Set)
		tx.Detail("role", rep.Role)
		return tx.AppendCheckerRecords(recs)
	})
	return err
}
