package store

import (
	"fmt"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/tidwall/pretty"

	"github.com/proofloop/proofloop/schemas"
)

// commit writes every changed document through the journal, with one
// event that records each document's patch and is chained to the log.
//
// It runs in phases, and their order is the point:
//
//  1. collect: the documents, leases and derived files the transaction
//     changed. A transaction that changed nothing writes nothing, not even
//     an event, so a refused or read-only command leaves no trace.
//  2. describe: the event's header (who, under which lease, with what
//     details), before any document is touched.
//  3. stamp: each changed document gets its new updated_at and revision,
//     is schema-checked and diffed. Every check that can refuse runs here,
//     before the first byte is written, so a failure leaves the store as
//     it was.
//  4. write: on a backend, one database transaction; on the file store,
//     the event is sealed to the log's tail, the index changes are added,
//     and the journal, the commit point, is written (see Store.commit).
func (tx *Tx) commit() (*Commit, error) {
	changed := tx.changedDocs()
	leaseWrites, err := tx.leaseWrites()
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 && len(leaseWrites) == 0 && len(tx.files) == 0 && !tx.record {
		return &Commit{}, nil
	}
	ev := tx.newEvent()
	writes, err := tx.stamp(&ev, changed)
	if err != nil {
		return nil, err
	}
	writes = append(append(writes, leaseWrites...), tx.files...)
	if tx.bt != nil {
		if err := tx.commitBackend(&ev, changed, writes); err != nil {
			return nil, err
		}
		return tx.committed(ev, changed), nil
	}
	if err := tx.commitFile(&ev, changed, writes); err != nil {
		return nil, err
	}
	return tx.committed(ev, changed), nil
}

// changedDocs lists the documents the transaction created, changed or
// deleted, in the order it first touched them: the event lists them in
// that order, so the same command always records the same event.
func (tx *Tx) changedDocs() []*Doc {
	var changed []*Doc
	for _, id := range tx.order {
		if d := tx.docs[id]; d.dirty || d.created || d.deleted {
			changed = append(changed, d)
		}
	}
	return changed
}

// newEvent describes the transaction before its documents are stamped:
// the time, the command, the details the skill added, the leases it
// claimed or released, the actor and the lease it acted under. Seq and
// the hash are left to the write phase, which alone knows the log's tail.
func (tx *Tx) newEvent() Event {
	ev := Event{Time: tx.now, Command: tx.opts.Command, Detail: tx.detail}
	if recs := tx.leaseRecords(); recs != nil {
		if ev.Detail == nil {
			ev.Detail = map[string]any{}
		}
		ev.Detail[LeasesDetail] = recs
	}
	if tx.opts.Actor != "" {
		ev.Actor = &tx.opts.Actor
	}
	for k, v := range map[string]string{"agent": tx.opts.Agent, "model": tx.opts.Model} {
		if v != "" {
			if ev.Detail == nil {
				ev.Detail = map[string]any{}
			}
			ev.Detail[k] = v
		}
	}
	if tx.opts.LeaseHolder != "" {
		holder := tx.opts.LeaseHolder
		ev.LeaseHolder = &holder
	}
	return ev
}

// stamp moves each changed document to its next revision and returns the
// writes that store them, recording in ev one change (status before and
// after, RFC 6902 patch) per document. It is the last phase that may
// refuse: a document that would fail its schema is an internal error,
// caught here so that it is never written. The patch is taken after the
// stamp, from the revision read, so that replaying the log's patches
// (doctor) reproduces the document byte for byte.
func (tx *Tx) stamp(ev *Event, changed []*Doc) ([]journalWrite, error) {
	ev.IDs, ev.Changes = []string{}, []Change{}
	var writes []journalWrite
	for _, d := range changed {
		p := DocPath(d.Kind, d.ID)
		ch := Change{ID: d.ID, Kind: d.Kind, After: d.Status(), Revision: d.revision + 1}
		if !d.created {
			before := d.statusBefore
			ch.Before = &before
		}
		if d.deleted {
			ch.After, ch.Revision, ch.Deleted = d.statusBefore, d.revision, true
			writes = append(writes, journalWrite{Path: p, Remove: true})
		} else {
			if err := d.Set("updated_at", tx.now); err != nil {
				return nil, err
			}
			if err := d.Set("revision", d.revision+1); err != nil {
				return nil, err
			}
			d.Raw = pretty.Pretty(d.Raw)
			if err := validateWrite(d); err != nil {
				return nil, Errorf(CodeInternal, "%s would not pass its schema; nothing was written", p).Wrap(err)
			}
			var err error
			if ch.Patch, err = Patch(d.orig, d.Raw); err != nil {
				return nil, Errorf(CodeInternal, "diff %s", p).Wrap(err)
			}
			ch.After = d.Status()
			writes = append(writes, journalWrite{Path: p, Content: string(d.Raw)})
		}
		ev.IDs = append(ev.IDs, d.ID)
		ev.Changes = append(ev.Changes, ch)
	}
	// A lease claimed or released on a document the transaction did not
	// change still names that document, so `events <id>` shows who held it.
	for _, id := range tx.dirtyLeases {
		if !slices.Contains(ev.IDs, id) {
			ev.IDs = append(ev.IDs, id)
		}
	}
	return writes, nil
}

// validateWrite schema-checks the document about to be written. A
// document the transaction read passed its schema then (readDoc, or this
// transaction's earlier commit), so only what the transaction changed is
// checked, where the schema allows (schemas.ValidateChange): the issue a
// skill appended to 300, not the 300. A created document is checked whole.
func validateWrite(d *Doc) error {
	if d.created {
		return schemas.Validate(schemas.Kind(d.Kind), d.Raw)
	}
	return schemas.ValidateChange(schemas.Kind(d.Kind), d.orig, d.Raw)
}

// commitFile is the write phase on the file store. It holds the lock, so
// the log's tail it reads cannot move before the journal is written.
func (tx *Tx) commitFile(ev *Event, changed []*Doc, writes []journalWrite) error {
	// Chain to the tail. A committed transaction keeps its journal until
	// its event is whole in the log, so a torn last line that no journal
	// covers was not written by a proofloop commit: it is damage, set
	// aside (never sealed over, never dropped) so the chain stays
	// verifiable and doctor reports it.
	t, err := tx.s.tail()
	if err != nil {
		return err
	}
	if t.Torn != nil {
		if t, err = tx.s.quarantine(t); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "proofloop: warning: %s ended in a torn line that no journal covered; it was moved to %s (run `proofloop doctor`)\n", EventsFile, QuarantineFile)
	}
	ev.Seq = t.Seq + 1
	line, _, err := Seal(*ev, t.Hash)
	if err != nil {
		return Errorf(CodeInternal, "encode event").Wrap(err)
	}
	// The index changes ride in the same journal as the documents: a
	// derived index written separately could survive a crash that the
	// documents did not, and readers would trust a stale index.
	ops, err := tx.indexOps(changed, t, ev.Seq, len(line)+1, ev.IDs)
	if err != nil {
		return err
	}
	ops = append(ops, sumOps(changed)...)
	for _, op := range ops {
		// The journal is JSON: bytes that are not UTF-8 would not survive
		// the round trip, and the journal would fail its checksum.
		if !utf8.ValidString(op.K) || !utf8.ValidString(op.V) {
			return Errorf(CodeInternal, "index key %q of %s is not text; nothing was written", op.K, op.B)
		}
	}
	if len(ops) > 0 {
		writes = append(writes, journalWrite{Path: IndexFile, KV: ops})
	}
	if tx.ix != nil {
		tx.ix.close() // applying the journal opens the index for writing
		tx.ix = nil
	}
	// From here the journal is the commit point: once it is on disk the
	// transaction has happened, whatever fails after.
	return tx.s.commit(ev.Seq, line, t.Size, writes)
}
