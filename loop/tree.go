// Package loop is the adversarial turn loop over the store: leases and
// next/claim, round budgets, the run orchestrator and events --follow.
// Whose turn it is comes from model (StatementTurn, ProblemTurn), through
// the store's derived index.
package loop

import (
	"cmp"
	"slices"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Item is one problem or statement with whose turn it is, as status, next
// and run show it.
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
	// Derived by Proved, at read time (nil until then): whether the item is fully proved
	// (a problem: soundly solved), the first statement that keeps it from
	// being so, and its open issues by severity.
	*model.Proved
	OpenBySeverity map[string]int `json:"open_by_severity,omitempty"`
	// ConfirmedModels are the models that confirmed the current proof
	// revision, when the agents had model labels (verify_distinct).
	ConfirmedModels []string `json:"confirmed_models,omitempty"`
	// Level is a statement's level of escalation once it climbed past
	// revise, and DeadEnds how many abandoned approaches it keeps.
	Level    string `json:"level,omitempty"`
	DeadEnds int    `json:"dead_ends,omitempty"`

	leased bool
	// node and openCritical are what Proved derives from, kept from the
	// row the item was read from, so that Proved over a whole snapshot
	// reads no row a second time.
	node         *model.Node
	openCritical int
}

// itemOf is the item of an index row at time now: its lease counts only
// while it is live.
func itemOf(r *store.Row, now time.Time) *Item {
	it := &Item{ID: r.ID, Kind: r.Kind, Status: r.Status, Role: r.Role, Reason: r.Reason, Outcome: r.Outcome,
		Round: r.Round, OpenIssues: r.OpenIssues, Parent: r.Parent, Children: r.Children, Depth: r.Depth, Root: r.Root, ConfirmedModels: r.ConfirmedModels, Level: r.Level, DeadEnds: r.DeadEnds,
		node: nodeOf(r), openCritical: r.OpenCritical}
	if it.OpenIssues == nil {
		it.OpenIssues = []int{}
	}
	if it.Children == nil {
		it.Children = []string{}
	}
	if r.Lease.Live(now) {
		it.leased, it.Holder, it.Expires = true, r.Lease.Holder, r.Lease.ExpiresAt
	}
	return it
}

// Snapshot is every item of a store, with turns derived.
type Snapshot struct {
	Items map[string]*Item
	Roots []string // root problems, sorted
	// Debates are the debates, sorted: items of the loop outside any tree.
	Debates []string
}

// Load reads every row of the index (one read of the index, no document)
// into a snapshot.
func Load(s *store.Store) (*Snapshot, error) {
	now := s.Now()
	snap := &Snapshot{Items: map[string]*Item{}}
	err := s.View(func(v *store.IndexView) error {
		return v.Rows(func(r *store.Row) error {
			it := itemOf(r, now)
			snap.Items[it.ID] = it
			if it.Kind == model.KindProblem && it.Parent == "" {
				snap.Roots = append(snap.Roots, it.ID)
			}
			if it.Kind == model.KindDebate {
				snap.Debates = append(snap.Debates, it.ID)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(snap.Roots)
	slices.Sort(snap.Debates)
	return snap, nil
}

// Subtree reads the rows of one item and everything below it: O(subtree).
func Subtree(s *store.Store, id string) (*Snapshot, error) {
	now := s.Now()
	snap := &Snapshot{Items: map[string]*Item{}, Roots: []string{id}}
	err := s.View(func(v *store.IndexView) error {
		queue := []string{id}
		for len(queue) > 0 {
			r, err := v.Row(queue[0])
			queue = queue[1:]
			if err != nil {
				return err
			}
			if r == nil {
				continue
			}
			snap.Items[r.ID] = itemOf(r, now)
			queue = append(queue, r.Children...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := snap.Items[id]; !ok {
		return nil, store.NotFound(id, "no problem or statement %s", id)
	}
	return snap, nil
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

// Actionable lists the actionable items for roles (every role when empty)
// under root ("" for all) from the index's turn keys: O(actionable), not
// O(store).
func Actionable(s *store.Store, roles []model.Role, root string) ([]*Item, error) {
	now := s.Now()
	var out []*Item
	err := s.View(func(v *store.IndexView) error {
		return v.Actionable(roles, func(r *store.Row) (bool, error) {
			if root == "" || r.Root == root {
				out = append(out, itemOf(r, now))
			}
			return true, nil
		})
	})
	return out, err
}

// itemIn derives one item's turn inside a transaction, from its document as
// the transaction holds it now.
func itemIn(s *store.Store, tx *store.Tx, id string, now time.Time) (*Item, error) {
	r, err := tx.Row(id)
	if err != nil {
		return nil, err
	}
	return itemOf(r, now), nil
}

// List returns the items that match every filter given ("" for none): a
// kind, a status, and the role whose turn it is. With a role it reads only
// that role's actionable keys.
func List(s *store.Store, kind model.Kind, status model.Status, role model.Role) ([]*Item, error) {
	keep := func(it *Item) bool {
		return (kind == "" || it.Kind == kind) && (status == "" || it.Status == status)
	}
	var out []*Item
	if role != "" {
		items, err := Actionable(s, []model.Role{role}, "")
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if keep(it) {
				out = append(out, it)
			}
		}
		return out, nil
	}
	now := s.Now()
	err := s.View(func(v *store.IndexView) error {
		return v.Rows(func(r *store.Row) error {
			if it := itemOf(r, now); keep(it) {
				out = append(out, it)
			}
			return nil
		})
	})
	return out, err
}
