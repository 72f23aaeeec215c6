package store

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/model"
)

// indexOps derives the index changes of a transaction: the rows of the
// documents it changed, of their parents when a child's status changed
// (a parent's turn depends on its children's statuses), the lease of each
// lease it wrote, and one event-offset key per document of the event. It
// reads O(changed documents + their children) rows, never the whole index.
func (tx *Tx) indexOps(changed []*Doc, t logTail, seq int, n int, ids []string) ([]kvOp, error) {
	if len(changed) == 0 && len(tx.dirtyLeases) == 0 {
		return tx.stampOnly(t, seq)
	}
	ops, err := tx.rowOps(changed)
	if err != nil {
		return nil, err
	}
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		ops = append(ops, kvOp{B: string(bucketEvents), K: string(eventKey(id, seq)), V: eventLoc(t.Size, n)})
	}
	ops = append(ops, kvOp{B: string(bucketMeta), K: "seq", V: strconv.Itoa(seq)})
	return append(ops, metaOps(cfg.Policy())...), nil
}

// metaOps stamp the index with what its rows were derived under.
func metaOps(pol model.Policy) []kvOp {
	return []kvOp{{B: string(bucketMeta), K: "policy", V: pol.Key()},
		{B: string(bucketMeta), K: "version", V: indexVersion}}
}

// rowOps derives the index rows a transaction changes: those of the
// documents it changed, of their parents when a child's status changed, and
// of the items whose lease it wrote.
func (tx *Tx) rowOps(changed []*Doc) ([]kvOp, error) {
	if len(changed) == 0 && len(tx.dirtyLeases) == 0 {
		return nil, nil
	}
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	ix, err := tx.index()
	if err != nil {
		return nil, err
	}
	// Children before parents: a parent's turn reads its children's new
	// rows, so a document is derived once every changed child of it is.
	var parents []string
	pending := slices.Clone(changed)
	for len(pending) > 0 {
		progress := false
		for i := 0; i < len(pending); i++ {
			d := pending[i]
			if !d.deleted && slices.ContainsFunc(childIDs(d), func(c string) bool {
				return slices.ContainsFunc(pending, func(p *Doc) bool { return p.ID == c })
			}) {
				continue
			}
			pending = slices.Delete(pending, i, i+1)
			i--
			progress = true
			if err := tx.indexDoc(d, ix, cfg.Policy(), &parents); err != nil {
				return nil, err
			}
		}
		if !progress {
			return nil, Errorf(CodeInternal, "the documents of the transaction form a cycle")
		}
	}
	for len(parents) > 0 {
		id := parents[0]
		parents = parents[1:]
		if d, ok := tx.docs[id]; ok && (d.dirty || d.created || d.deleted) {
			continue // derived above, from its own new document
		}
		d, err := tx.Get(id)
		if err != nil {
			return nil, err
		}
		if err := ix.readRowsAhead(d); err != nil {
			return nil, err
		}
		old, err := ix.row(id)
		if err != nil {
			return nil, err
		}
		r, err := deriveRow(d, ix, cfg.Policy())
		if err != nil {
			return nil, err
		}
		if old != nil {
			r.Lease = old.Lease
		}
		if err := ix.put(old, r); err != nil {
			return nil, err
		}
	}
	for _, id := range tx.dirtyLeases {
		// The row is rewritten whole: read it under the document's lock,
		// which every writer of the row holds (on a backend, another
		// transaction may be changing the document meanwhile).
		// A damaged document does not keep a lease from being given
		// back (run releases the lease of a turn that damaged its item).
		if _, err := tx.Get(id); CodeOf(err) == CodeNotFound {
			continue
		} else if err != nil && CodeOf(err) != CodeStoreDamaged {
			return nil, err
		}
		r, err := ix.row(id)
		if err != nil {
			return nil, err
		}
		if r == nil {
			continue
		}
		rr := *r
		rr.Lease = rowLease(tx.leases[id])
		if err := ix.put(r, &rr); err != nil {
			return nil, err
		}
	}
	return ix.ops, nil
}

// stampOnly is the index change of a transaction that changes no document
// and no lease (config set): only the stamp moves on, and only when the
// index was current, so that a stale index still looks stale. It reads no
// config: it also runs when config.json is being repaired.
func (tx *Tx) stampOnly(t logTail, seq int) ([]kvOp, error) {
	var was int
	if tx.ix != nil {
		// Open already, for the sums of the documents the transaction
		// read (Tx.checkedSum): a second open would wait on bbolt's own
		// lock, which the first holds.
		was, _, _ = indexMeta(tx.ix.kv)
	} else {
		db, err := tx.s.openIndex(true)
		if err != nil {
			return nil, damaged(IndexFile, err)
		}
		defer db.Close()
		if err := db.View(func(btx *bolt.Tx) error { was, _, _ = indexMeta(boltKV{btx}); return nil }); err != nil {
			return nil, damaged(IndexFile, err)
		}
	}
	if was != t.Seq {
		return nil, nil
	}
	return []kvOp{{B: string(bucketMeta), K: "seq", V: strconv.Itoa(seq)}}, nil
}

// indexDoc derives the row of one changed document and notes its parent
// for re-derivation when the document's status changed.
func (tx *Tx) indexDoc(d *Doc, ix *indexState, pol model.Policy, parents *[]string) error {
	old, err := ix.row(d.ID)
	if err != nil {
		return err
	}
	if d.deleted {
		if old == nil {
			return nil
		}
		return ix.put(old, nil)
	}
	r, err := tx.deriveLater(d, ix, pol)
	if err != nil {
		return err
	}
	if l, ok := tx.leases[d.ID]; ok {
		r.Lease = rowLease(l)
	} else if old != nil {
		r.Lease = old.Lease
	}
	if err := ix.put(old, r); err != nil {
		return err
	}
	if r.Parent != "" && (old == nil || old.Status != r.Status) && !slices.Contains(*parents, r.Parent) {
		*parents = append(*parents, r.Parent)
	}
	return nil
}

// childIDs lists a document's children: a problem's preliminaries and
// progresses, a statement's sub-statements.
func childIDs(d *Doc) []string {
	var out []string
	for _, f := range []string{"preliminaries", "progresses", "sub_statements"} {
		for _, c := range d.Get(f).Array() {
			out = append(out, c.String())
		}
	}
	return out
}

// index opens the index for the transaction (once), rebuilding it first
// when it is missing, of another version or behind the log. The caller holds
// the lock, so the view stays current until the commit.
func (tx *Tx) index() (*indexState, error) {
	if tx.ix != nil && tx.ix.current {
		return tx.ix, nil
	}
	if tx.bt != nil {
		return tx.indexBackend()
	}
	for attempt := 0; ; attempt++ {
		if tx.ix == nil {
			ix, err := tx.s.openIndexState()
			if err != nil {
				return nil, err
			}
			tx.ix = ix
		}
		ix := tx.ix
		why, err := tx.s.stale(ix.kv)
		if err == nil && why == "" {
			ix.current = true
			return ix, nil
		}
		ix.close()
		tx.ix = nil
		if err != nil {
			return nil, err
		}
		if attempt > 0 {
			return nil, damaged(IndexFile, fmt.Errorf("it is still %s after a rebuild", why))
		}
		fmt.Fprintf(os.Stderr, "proofloop: the index is %s; rebuilding it from the documents\n", why)
		if _, err := tx.s.reindex(); err != nil {
			return nil, err
		}
	}
}

// openIndexState opens the file store's index in a read transaction,
// without judging its stamp (Tx.index does).
func (s *Store) openIndexState() (*indexState, error) {
	ix := &indexState{rows: map[string]*Row{}}
	var err error
	if ix.db, err = s.openIndex(true); err != nil {
		return nil, damaged(IndexFile, err)
	}
	if ix.btx, err = ix.db.Begin(false); err != nil {
		ix.close()
		return nil, damaged(IndexFile, err)
	}
	ix.kv = boltKV{ix.btx}
	return ix, nil
}

// Row derives the row of an item as it stands in the transaction now: from
// its document (read through the transaction), its children (their
// documents when the transaction holds them, else their index rows) and its
// lease. It is how a skill sees whose turn it is after its own changes.
func (tx *Tx) Row(id string) (*Row, error) {
	ix, err := tx.index()
	if err != nil {
		return nil, err
	}
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	d, err := tx.Get(id)
	if err != nil {
		return nil, err
	}
	view := &indexState{kv: ix.kv, rows: map[string]*Row{}}
	for _, c := range childIDs(d) {
		if cd, ok := tx.docs[c]; ok {
			view.rows[c] = placeholder(cd)
		}
	}
	r, err := deriveRow(d, view, cfg.Policy())
	if err != nil {
		return nil, err
	}
	l, err := tx.Lease(id)
	if err != nil {
		return nil, err
	}
	r.Lease = rowLease(l)
	return r, nil
}

// placeholder is what a parent's turn needs of a child document.
func placeholder(d *Doc) *Row {
	r := &Row{ID: d.ID, Kind: d.Kind, Status: d.Status()}
	if n := d.Get("fills_issue"); n.Exists() && n.Type == gjson.Number {
		v := int(n.Int())
		r.FillsIssue = &v
	}
	return r
}

// Actionable calls fn with the committed rows some role must act on, as
// IndexView.Actionable does, inside the transaction.
func (tx *Tx) Actionable(roles []model.Role, fn func(*Row) (bool, error)) error {
	ix, err := tx.index()
	if err != nil {
		return err
	}
	return (&IndexView{ix.kv}).Actionable(roles, fn)
}

// Existed reports whether id has ever had an event: a deleted document's
// id (a discarded debate) stays taken, since ids are never reused.
func (tx *Tx) Existed(id string) (bool, error) {
	ix, err := tx.index()
	if err != nil {
		return false, err
	}
	locs, err := (&IndexView{ix.kv}).Events(id)
	return len(locs) > 0, err
}

// deriveLater derives a changed document's row with the revision it will
// have once committed.
func (tx *Tx) deriveLater(d *Doc, ix *indexState, pol model.Policy) (*Row, error) {
	r, err := deriveRow(d, ix, pol)
	if err != nil {
		return nil, err
	}
	r.Revision = d.revision + 1
	return r, nil
}

// indexBackend opens a backend's index for the transaction, rebuilding it
// inside the transaction first when it is missing, of another version or
// derived for another max_rounds.
func (tx *Tx) indexBackend() (*indexState, error) { return tx.indexOn(tx.bt.KV()) }

// indexOn is indexBackend reading through kv (which may hold keys read
// ahead: a rebuild drops it for the rebuilt index).
func (tx *Tx) indexOn(kv KV) (*indexState, error) {
	ix := &indexState{kv: kv, rows: map[string]*Row{}, current: true}
	why, err := tx.s.stale(ix.kv)
	if err != nil {
		return nil, err
	}
	if why != "" {
		fmt.Fprintf(os.Stderr, "proofloop: the index is %s; rebuilding it from the documents\n", why)
		if _, err := tx.s.reindexIn(tx.bt); err != nil {
			return nil, err
		}
		ix.kv = tx.bt.KV()
	}
	tx.ix = ix
	return ix, nil
}

// rowsOps are the index changes that write rows (a rebuild's).
func rowsOps(rows map[string]*Row) ([]kvOp, error) {
	var ops []kvOp
	for _, r := range rows {
		v, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		ops = append(ops, kvOp{B: string(bucketItems), K: r.ID, V: string(v)})
		if r.Role != "" {
			ops = append(ops, kvOp{B: string(bucketTurn), K: string(turnKey(r))})
		}
	}
	return ops, nil
}
