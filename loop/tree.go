package loop

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tidwall/gjson"

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
	var docs []*store.Doc
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
			docs = append(docs, d)
		}
	}
	children := map[string]Child{}
	for _, d := range docs {
		children[d.ID] = childOf(d)
	}
	snap := &Snapshot{Items: map[string]*Item{}}
	for _, d := range docs {
		it, err := newItem(d, r, func(id string) (Child, error) { return children[id], nil }, cfg.MaxRounds, now)
		if err != nil {
			return nil, err
		}
		snap.Items[d.ID] = it
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

// childOf is what a parent's turn needs of a statement.
func childOf(d *store.Doc) Child {
	c := Child{ID: d.ID, Status: d.Status()}
	if n := d.Get("fills_issue"); n.Exists() && n.Type != gjson.Null {
		issue := int(n.Int())
		c.FillsIssue = &issue
	}
	return c
}

// newItem builds the item of one document: its place in the tree, its
// turn and its live lease. child says what the turn needs of each child.
func newItem(d *store.Doc, r reader, child func(id string) (Child, error), maxRounds int, now time.Time) (*Item, error) {
	it := &Item{ID: d.ID, Kind: d.Kind, Status: d.Status(), OpenIssues: []int{}, Children: []string{}}
	kids := func(ids []string) ([]Child, error) {
		var out []Child
		for _, id := range ids {
			c, err := child(id)
			if err != nil {
				return nil, fmt.Errorf("child of %s: %w", d.ID, err)
			}
			out = append(out, c)
		}
		return out, nil
	}
	var t Turn
	if d.Kind == model.KindProblem {
		p, err := d.Problem()
		if err != nil {
			return nil, err
		}
		if p.Parent != nil {
			it.Parent = *p.Parent
		}
		it.Children = append(append(it.Children, p.Preliminaries...), p.Progresses...)
		wraps, err := kids(p.Progresses)
		if err != nil {
			return nil, err
		}
		t = ProblemTurn(p, wraps, maxRounds)
	} else {
		st, err := d.Statement()
		if err != nil {
			return nil, err
		}
		it.Parent, it.Round, it.OpenIssues = st.Context, st.Round, st.OpenIssues()
		it.Children = append(it.Children, st.SubStatements...)
		subs, err := kids(st.SubStatements)
		if err != nil {
			return nil, err
		}
		t = StatementTurn(st, subs, maxRounds)
	}
	it.Role, it.Reason, it.Outcome = t.Role, t.Reason, t.Outcome
	l, err := r.Lease(d.ID)
	if err != nil {
		return nil, err
	}
	if l.Live(now) {
		it.lease, it.Holder, it.Expires = l, l.Holder, l.ExpiresAt
	}
	return it, nil
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
