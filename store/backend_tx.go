package store

import (
	"errors"
	"math/rand/v2"
	"time"
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
	bt, err := s.backend.Begin(s.LockTimeout)
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
	rows, err := deriveAll(bt, cfg.MaxRounds)
	if err != nil {
		return 0, err
	}
	ops, err := rowsOps(rows)
	if err != nil {
		return 0, err
	}
	err = s.backend.Events(0, func(seq int, line []byte) error {
		for _, id := range eventIDs(line) {
			ops = append(ops, kvOp{B: string(bucketEvents), K: string(eventKey(id, seq)), V: eventLoc(0, 0)})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	ops = append(ops, metaOps(cfg.MaxRounds)...)
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
	bt, err := s.backend.Begin(s.LockTimeout)
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
