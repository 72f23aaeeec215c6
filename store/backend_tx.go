package store

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/proofloop/proofloop/model"
)

// updateBackend is Update on a Backend. A transaction that the backend
// asks to retry (a deadlock, a serialization failure, a lost race to insert
// a new row) runs again from the start, up to MaxAttempts times, then fails
// with conflict (exit 5). Run again, it reads the other's result and
// decides anew: a create of a taken id fails with conflict, a claim of a
// leased item with lease_held.
func (s *Store) updateBackend(opts TxOptions, fn func(tx *Tx) error) (*Commit, error) {
	for attempt := 1; ; attempt++ {
		c, err := s.updateOnce(opts, fn)
		if err == nil || !errors.Is(err, ErrRetry) {
			return c, err
		}
		if attempt >= MaxAttempts {
			return nil, Errorf(CodeConflict, "%s met a concurrent transaction %d times in a row", opts.Command, attempt).
				WithHint("retry later").Wrap(err)
		}
		// Jitter, so that the two sides of a deadlock do not meet again.
		time.Sleep(time.Duration(rand.IntN(10*attempt)+1) * time.Millisecond)
	}
}

func (s *Store) updateOnce(opts TxOptions, fn func(tx *Tx) error) (*Commit, error) {
	// A command's target and its lease are what it reads first (a skill's
	// lease guard, then its document): they come with the first round trip.
	o := BeginOptions{LockTimeout: s.LockTimeout}
	if _, err := model.KindOf(opts.Target); err == nil {
		o.Files, o.Docs = []string{LeasePath(opts.Target)}, []string{opts.Target}
	}
	bt, err := s.backend.Begin(o)
	if err != nil {
		return nil, err
	}
	defer bt.Rollback()
	tx := &Tx{s: s, bt: bt, opts: opts, clock: bt.Now(), now: Timestamp(bt.Now()), docs: map[string]*Doc{}}
	if err := fn(tx); err != nil {
		return nil, err
	}
	return tx.commit()
}

// commitBackend commits the transaction's writes through the backend: the
// index rows are derived first (they read and lock parents), then the
// backend takes the log's next seq, and the event is sealed and numbered
// there, with the index keys that name its seq.
func (tx *Tx) commitBackend(ev *Event, changed []*Doc, writes []journalWrite) error {
	if err := tx.lockLog(changed); err != nil {
		return err
	}
	ops, err := tx.rowOps(changed)
	if err != nil {
		return err
	}
	// writes begin with one write per changed document, in order (commit).
	w := make([]Write, len(writes))
	for i, j := range writes {
		w[i] = Write{Path: j.Path, Content: []byte(j.Content), Append: j.At != nil, Remove: j.Remove}
		if i < len(changed) {
			d := changed[i]
			w[i].Doc, w[i].Kind, w[i].Revision = d.ID, d.Kind, d.revision+1
		}
	}
	_, err = tx.bt.Commit(w, func(seq int, prev string) ([]byte, []KVOp, error) {
		ev.Seq = seq
		line, _, err := Seal(*ev, prev)
		if err != nil {
			return nil, nil, Errorf(CodeInternal, "encode event").Wrap(err)
		}
		for _, id := range ev.IDs {
			ops = append(ops, kvOp{B: string(bucketEvents), K: string(eventKey(id, seq)), V: eventLoc(0, 0)})
		}
		return line, ops, nil
	})
	return err
}

// lockLog takes the backend's log counter before the index rows are
// derived, with the index keys deriving them reads, in one round trip: the
// stamp, and the rows of each changed document, of its children and of its
// parent. From here no other transaction commits until this one has, so
// the rows are derived from what is current, and the reads that remain
// (a parent whose turn changed) need no row lock.
func (tx *Tx) lockLog(changed []*Doc) error {
	var get []KVKey
	if len(changed) > 0 || len(tx.dirtyLeases) > 0 {
		for _, k := range []string{"seq", "policy", "version"} {
			get = append(get, KVKey{string(bucketMeta), k})
		}
		item := func(id string) { get = append(get, KVKey{string(bucketItems), id}) }
		for _, d := range changed {
			item(d.ID)
			for _, c := range childIDs(d) {
				item(c)
			}
			if p := parentID(d); p != "" {
				item(p)
			}
		}
		for _, id := range tx.dirtyLeases {
			item(id)
		}
	}
	vals, err := tx.bt.LockLog(get)
	if err != nil || len(get) == 0 {
		return err
	}
	kv := readAhead{KV: tx.bt.KV(), vals: vals, asked: map[KVKey]bool{}}
	for _, k := range get {
		kv.asked[k] = true
	}
	if tx.ix != nil {
		tx.ix.kv = kv
		return nil
	}
	_, err = tx.indexOn(kv)
	return err
}

// parentID is the document a document hangs under: a statement's context,
// a sub-problem's parent statement; "" for none.
func parentID(d *Doc) string {
	switch d.Kind {
	case model.KindStatement:
		return d.Get("context").String()
	case model.KindProblem:
		return d.Get("parent").String()
	}
	return ""
}

// readAhead serves the index keys read ahead (one absent is nil) and
// reads any other through KV.
type readAhead struct {
	KV
	vals  map[KVKey][]byte
	asked map[KVKey]bool
}

// GetMany reads many index keys in one round trip: a backend's KV may.
type GetMany interface {
	GetMany(get []KVKey) (map[KVKey][]byte, error)
}

// readRowsAhead reads in one round trip the rows deriving d's row reads (its
// children's and its parent's), when the index is a backend's read ahead:
// a parent re-derived for a child's new status then costs one round trip,
// not one per child.
func (ix *indexState) readRowsAhead(d *Doc) error {
	ra, ok := ix.kv.(readAhead)
	many, can := ra.KV.(GetMany)
	if !ok || !can {
		return nil
	}
	var get []KVKey
	for _, id := range append(childIDs(d), parentID(d)) {
		if k := (KVKey{string(bucketItems), id}); id != "" && !ra.asked[k] {
			get = append(get, k)
		}
	}
	if len(get) == 0 {
		return nil
	}
	vals, err := many.GetMany(get)
	if err != nil {
		return err
	}
	for _, k := range get {
		ra.asked[k], ra.vals[k] = true, vals[k]
	}
	return nil
}

func (r readAhead) Get(bucket string, key []byte) ([]byte, error) {
	if k := (KVKey{bucket, string(key)}); r.asked[k] {
		return r.vals[k], nil
	}
	return r.KV.Get(bucket, key)
}

// reindexIn rebuilds a backend's index inside transaction bt: it waits
// until no other transaction can commit, derives every row from the
// documents as committed, and replaces the index with them.
func (s *Store) reindexIn(bt BackendTx) (int, error) {
	if err := bt.Exclusive(); err != nil {
		return 0, err
	}
	cfg, err := s.Config()
	if err != nil {
		return 0, err
	}
	rows, err := deriveAll(bt, cfg.Policy(), nil)
	if err != nil {
		return 0, err
	}
	ops, err := rowsOps(rows)
	if err != nil {
		return 0, err
	}
	err = s.backend.Events(0, func(seq int, line []byte) error {
		for _, id := range EventIDs(line) {
			ops = append(ops, kvOp{B: string(bucketEvents), K: string(eventKey(id, seq)), V: eventLoc(0, 0)})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	ops = append(ops, metaOps(cfg.Policy())...)
	return len(rows), bt.ReplaceIndex(ops)
}

// reindexBackend is Reindex on a backend, as one transaction of its own.
func (s *Store) reindexBackend() (int, error) {
	for attempt := 1; ; attempt++ {
		n, err := s.reindexOnce()
		if err == nil || !errors.Is(err, ErrRetry) || attempt >= MaxAttempts {
			return n, err
		}
		time.Sleep(time.Duration(rand.IntN(10*attempt)+1) * time.Millisecond)
	}
}

func (s *Store) reindexOnce() (int, error) {
	bt, err := s.backend.Begin(BeginOptions{LockTimeout: s.LockTimeout})
	if err != nil {
		return 0, err
	}
	defer bt.Rollback()
	n, err := s.reindexIn(bt)
	if err != nil {
		return 0, err
	}
	_, err = bt.Commit(nil, nil)
	return n, err
}
