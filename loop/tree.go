package loop

import (
	"cmp"
	"slices"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Item is one problem or statement with whose turn it is.
type Item struct {
	ID         string       `json:"id"`
	Kind       model.Kind   `json:"kind"`
	Status     model.Status `json:"status"`
	Role       model.Role   `json:"role"`
	Reason     string       `json:"reason"`
	Outcome    string       `json:"outcome,omitempty"`
	Round      int          `json:"round"`
	OpenIssues []int        `json:"open_issues"`
	Holder     string       `json:"lease_holder,omitempty"`
	Expires    string       `json:"lease_expires_at,omitempty"`
	Parent     string       `json:"parent,omitempty"`
	Children   []string     `json:"children"`
	Depth      int          `json:"depth"`
	Root       string       `json:"root"` // the root problem it belongs to

	lease *store.Lease
}

// Snapshot is every item of a store, with turns derived.
type Snapshot struct {
	Items map[string]*Item
	Roots []string // root problems, sorted
}

// reader is what a snapshot reads through: a transaction (under the lock)
// or the store itself (lock-free).
type reader interface {
	Get(id string) (*store.Doc, error)
	Lease(id string) (*store.Lease, error)
}

// storeReader reads without the lock.
type storeReader struct{ s *store.Store }

func (r storeReader) Get(id string) (*store.Doc, error)     { return r.s.Read(id) }
func (r storeReader) Lease(id string) (*store.Lease, error) { return r.s.ReadLease(id) }

// Load reads every document of the store without the lock and derives
// every turn.
func Load(s *store.Store) (*Snapshot, error) {
	return load(s, storeReader{s}, time.Now())
}

func load(s *store.Store, r reader, now time.Time) (*Snapshot, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Items: map[string]*Item{}}
	problems := map[string]*model.Problem{}
	statements := map[string]*model.Statement{}
	for _, k := range []model.Kind{model.KindProblem, model.KindStatement} {
		ids, err := s.List(k)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			d, err := r.Get(id)
			if err != nil {
				return nil, err
			}
			it := &Item{ID: id, Kind: k, Status: d.Status(), OpenIssues: []int{}, Children: []string{}}
			if k == model.KindProblem {
				p, err := d.Problem()
				if err != nil {
					return nil, err
				}
				problems[id] = p
				if p.Parent != nil {
					it.Parent = *p.Parent
				}
				it.Children = append(append(it.Children, p.Preliminaries...), p.Progresses...)
			} else {
				st, err := d.Statement()
				if err != nil {
					return nil, err
				}
				statements[id] = st
				it.Parent, it.Round, it.OpenIssues = st.Context, st.Round, st.OpenIssues()
				it.Children = append(it.Children, st.SubStatements...)
			}
			l, err := r.Lease(id)
			if err != nil {
				return nil, err
			}
			if l.Live(now) {
				it.lease, it.Holder, it.Expires = l, l.Holder, l.ExpiresAt
			}
			snap.Items[id] = it
		}
	}
	child := func(id string) Child {
		c := Child{ID: id}
		if st, ok := statements[id]; ok {
			c.Status, c.FillsIssue = st.Status, st.FillsIssue
		}
		return c
	}
	for id, it := range snap.Items {
		var t Turn
		if p, ok := problems[id]; ok {
			var wraps []Child
			for _, w := range p.Progresses {
				wraps = append(wraps, child(w))
			}
			t = ProblemTurn(p, wraps, cfg.MaxRounds)
		} else {
			st := statements[id]
			var subs []Child
			for _, c := range st.SubStatements {
				subs = append(subs, child(c))
			}
			t = StatementTurn(st, subs, cfg.MaxRounds)
		}
		it.Role, it.Reason, it.Outcome = t.Role, t.Reason, t.Outcome
	}
	for _, it := range snap.Items {
		it.Depth, it.Root = depth(snap, it.ID, 0)
		if it.Kind == model.KindProblem && it.Parent == "" {
			snap.Roots = append(snap.Roots, it.ID)
		}
	}
	slices.Sort(snap.Roots)
	return snap, nil
}

// depth counts the parent links up to a root problem, which it returns.
func depth(snap *Snapshot, id string, n int) (int, string) {
	it, ok := snap.Items[id]
	if !ok || it.Parent == "" || n > 10000 {
		return n, id
	}
	return depth(snap, it.Parent, n+1)
}

// Actionable lists the items some role must act on, for role ("" for any),
// deepest first, then by id: a stable order that finishes sub-work before
// the work that waits on it. Items under another root than root ("" for
// all) are left out.
func (snap *Snapshot) Actionable(role model.Role, root string) []*Item {
	var out []*Item
	for _, it := range snap.Items {
		if it.Role == "" || (role != "" && it.Role != role) || (root != "" && it.Root != root) {
			continue
		}
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b *Item) int {
		return cmp.Or(cmp.Compare(b.Depth, a.Depth), cmp.Compare(a.ID, b.ID))
	})
	return out
}
