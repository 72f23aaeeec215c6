package loop

import (
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Proved derives fully_proved for each item from the index rows (model.
// Prover): nothing of it is stored, so a statement that is reopened or
// proved again changes the verdict of everything that relies on it
// without a write. It also fills in the open issues by severity.
//
// The items carry what it needs from the rows they were read from; only a
// statement they rely on outside items is read from the index, so Proved
// over a whole snapshot (status, a 100k store) reads no row twice.
func Proved(s *store.Store, items []*Item) error {
	measured, err := measuredLevel(s)
	if err != nil {
		return err
	}
	return s.View(func(v *store.IndexView) error {
		nodes := make(map[string]*model.Node, len(items))
		for _, it := range items {
			if it.node != nil {
				it.node.Backing.Measured = measured(it.Status, it.counted)
				nodes[it.ID] = it.node
			}
		}
		p := model.NewProver(func(id string) (*model.Node, error) {
			if n, ok := nodes[id]; ok {
				return n, nil
			}
			r, err := v.Row(id)
			if err != nil {
				return nil, err
			}
			nodes[id] = nodeOf(r)
			if nodes[id] != nil {
				nodes[id].Backing.Measured = measured(r.Status, r.Counted)
			}
			return nodes[id], nil
		})
		for _, it := range items {
			pr, err := p.Of(it.ID)
			if err != nil {
				return err
			}
			it.Proved = &pr
			if len(it.OpenIssues) == 0 {
				continue
			}
			critical := it.openCritical
			if it.node == nil { // an item made by id: its row says
				r, err := v.Row(it.ID)
				if err != nil || r == nil {
					continue
				}
				critical = r.OpenCritical
			}
			it.OpenBySeverity = map[string]int{model.SeverityCritical: critical, model.SeverityGap: len(it.OpenIssues) - critical}
		}
		return nil
	})
}

// nodeOf is what model.Prover needs of a row; nil for no row.
func nodeOf(r *store.Row) *model.Node {
	if r == nil {
		return nil
	}
	return &model.Node{Status: r.Status, Verified: r.Verified, ReliesOn: r.ReliesOn, Uncited: r.Uncited,
		Backing: model.Backing{Kernel: r.Kernel}}
}

// measuredLevel is the measured-checkers input of the grade: whether a
// true statement's counted confirmations are all by checkers measured at
// config.json's verify_min_reliability (model.MinReliability.MeasuredTrue),
// read against the checkers' records once per derivation. With no floor
// nothing is measured, and no record is read.
func measuredLevel(s *store.Store) (func(model.Status, []model.AgentLabel) bool, error) {
	none := func(model.Status, []model.AgentLabel) bool { return false }
	cfg, err := s.Config()
	if err != nil || cfg.VerifyMinReliability == nil {
		return none, err
	}
	recs, err := s.CheckerRecords()
	if err != nil {
		return none, err
	}
	counts, floor := model.Measured(recs, model.RoleCheck), cfg.VerifyMinReliability
	return func(status model.Status, counted []model.AgentLabel) bool {
		if len(counted) == 0 {
			return false
		}
		st := &model.Statement{Status: status}
		for _, l := range counted {
			st.Validate.Confirmations = append(st.Validate.Confirmations, model.Confirmation{AgentLabel: l})
		}
		return floor.MeasuredTrue(st, counts)
	}, nil
}
