package loop

import (
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The reads of debates: one debate, the list, a transcript, and what the
// open debates offer their participants (positions, evidence pools).

// ShowDebate reads a debate without a transaction.
func ShowDebate(s *store.Store, id string) (*model.Debate, *DebateResult, error) {
	if k, err := model.KindOf(id); err != nil {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "%v", err)
	} else if k != model.KindDebate {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "%s is a %s, not a debate", id, k).WithHint("debate ids start with deb_")
	}
	doc, err := s.Read(id)
	if err != nil {
		return nil, nil, err
	}
	d, err := doc.Debate()
	if err != nil {
		return nil, nil, store.Errorf(store.CodeStoreDamaged, "%v", err)
	}
	return d, resultOf(d), nil
}

// ListDebates lists the debates, optionally of one status, in id order.
func ListDebates(s *store.Store, status model.Status) ([]*DebateResult, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	out := []*DebateResult{}
	for _, id := range ids {
		_, r, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if status == "" || r.Status == status {
			out = append(out, r)
		}
	}
	return out, nil
}

// Transcript renders a debate's transcript, or a statement's check/fix
// thread in the same shape (statements are debates too).
func Transcript(s *store.Store, id string) ([]byte, error) {
	k, err := model.KindOf(id)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "%v", err)
	}
	switch k {
	case model.KindDebate:
		d, _, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		return RenderDebate(d), nil
	case model.KindStatement:
		doc, err := s.Read(id)
		if err != nil {
			return nil, err
		}
		st, err := doc.Statement()
		if err != nil {
			return nil, store.Errorf(store.CodeStoreDamaged, "%v", err)
		}
		kept, err := s.ProofRevisions(id)
		if err != nil {
			return nil, err
		}
		views := make([]ProofRevisionView, 0, len(kept))
		for _, r := range kept {
			v := ProofRevisionView{Revision: r.Revision, Text: r.Text, At: r.At}
			if r.Strategy != nil {
				v.Strategy = *r.Strategy
			}
			if r.Actor != nil {
				v.Author = *r.Actor
			}
			views = append(views, v)
		}
		return RenderStatementThread(st, views), nil
	}
	return nil, store.Errorf(store.CodeInvalidInput, "%s is a %s: a transcript is of a debate or a statement", id, k)
}

// OpenPositions returns the position names (the roles) of the open agora
// debates, sorted and without repeats: the roles `next --role` and `list
// --role` accept besides the fixed ones.
func OpenPositions(s *store.Store) ([]string, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		d, _, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if d.Status != model.DebateOpen {
			continue
		}
		for _, p := range d.Positions {
			out = append(out, p.Role)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// DebatePool is the evidence pool of one open debate, as prime shows it.
type DebatePool struct {
	ID       string           `json:"id"`
	Research int              `json:"research"`
	Pool     []model.PoolItem `json:"evidence_pool"`
}

// EvidencePools returns the evidence pools of the open debates with a
// research stage in which role takes part (a position, the researcher or
// the mediator): every participant reads the pool (seed 004's EVIDENCE
// POOL), so prime shows it.
func EvidencePools(s *store.Store, role string) ([]DebatePool, error) {
	ids, err := s.List(model.KindDebate)
	if err != nil {
		return nil, err
	}
	out := []DebatePool{}
	for _, id := range ids {
		d, _, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if d.Status != model.DebateOpen || d.Research == 0 {
			continue
		}
		p, err := model.LookupProtocol(d.Protocol)
		if err != nil || !slices.Contains(p.JoinOrder(d), role) && role != model.RoleResearcher && role != model.RoleMediator {
			continue
		}
		out = append(out, DebatePool{ID: d.ID, Research: d.Research, Pool: append([]model.PoolItem{}, d.EvidencePool...)})
	}
	return out, nil
}
