package loop

import (
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Proved derives fully_proved for each item from the index rows (model.
// Prover): nothing of it is stored, so a statement that is reopened or
// proved again changes the verdict of everything that relies on it
// without a write. It also fills in the open issues by severity.
func Proved(s *store.Store, items []*Item) error {
	return s.View(func(v *store.IndexView) error {
		rows := map[string]*store.Row{}
		row := func(id string) (*store.Row, error) {
			if r, ok := rows[id]; ok {
				return r, nil
			}
			r, err := v.Row(id)
			if err != nil {
				return nil, err
			}
			rows[id] = r
			return r, nil
		}
		p := model.NewProver(func(id string) (*model.Node, error) {
			r, err := row(id)
			if err != nil || r == nil {
				return nil, err
			}
			return &model.Node{Status: r.Status, Verified: r.Verified, ReliesOn: r.ReliesOn, Uncited: r.Uncited}, nil
		})
		for _, it := range items {
			pr, err := p.Of(it.ID)
			if err != nil {
				return err
			}
			it.Proved = &pr
			if r, err := row(it.ID); err == nil && r != nil && len(it.OpenIssues) > 0 {
				it.OpenBySeverity = map[string]int{model.SeverityCritical: r.OpenCritical, model.SeverityGap: len(it.OpenIssues) - r.OpenCritical}
			}
		}
		return nil
	})
}
