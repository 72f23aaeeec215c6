package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/model"
)

// indexStale says why the index must be rebuilt before it can be checked.
func (s *Store) indexStale() (string, error) {
	db, err := s.openIndex(false)
	if isNotExist(err) {
		return "missing", nil
	} else if err != nil {
		return "unreadable (" + err.Error() + ")", nil
	}
	defer db.Close()
	var why string
	err = db.View(func(btx *bolt.Tx) error {
		why, err = s.stale(boltKV{btx})
		return err
	})
	return why, err
}

// checkIndex compares the derived index with a fresh derivation from the
// documents and the log: every row, every turn key, every event offset and
// the stamp. Any difference is damage (a hand edit, or a bug); `doctor
// --reindex` rebuilds the index.
//
// An index that is missing, of another version or behind the log (a store
// written by an older proofloop) is not damage: it is rebuilt, as its first
// reader would, and the report says so.
//
// first, when the full check read every document already, spares reading
// and schema-checking them again (see firstPass); nil reads them afresh.
func (s *Store) checkIndex(r *Report, first *firstPass, bad findingFunc) {
	if why, err := s.indexStale(); err != nil || why != "" {
		if err == nil {
			_, err = s.reindex()
		}
		if err != nil {
			bad("index_mismatch", IndexFile, 0, "the index is %s and could not be rebuilt: %v", why, err)
			return
		}
		r.Index = "rebuilt: it was " + why
	}
	db, err := s.openIndex(false)
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot open the index: %v", err)
		return
	}
	defer db.Close()
	cfg, err := s.Config()
	if err != nil {
		return // reported as config
	}
	want, err := deriveStream(s.src(), cfg.Policy(), first)
	if err != nil {
		return // the documents are damaged, which is reported already
	}
	events, err := s.eventOffsets()
	if err != nil {
		return
	}
	err = db.View(func(btx *bolt.Tx) error {
		compareIndex(boltKV{btx}, want, events, bad)
		return nil
	})
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot read the index: %v", fmt.Sprint(err))
	}
}

// compareIndex reports every difference between the index in ix and the
// rows and event keys derived afresh.
func compareIndex(ix KV, want map[string]*Row, events []kv, bad findingFunc) {
	got := map[string][]byte{}
	// bbolt's values stay valid while its transaction is open, which
	// outlives this call: not copying them spares a full doctor the size
	// of the index in memory. Another index's are copied.
	_, stable := ix.(boltKV)
	ix.Scan(string(bucketItems), nil, func(k, v []byte) error {
		if !stable {
			v = bytes.Clone(v)
		}
		got[string(k)] = v
		return nil
	})
	turns := map[string]bool{}
	reported := map[string]bool{} // a row reported once is not reported again for its turn key
	ids := slices.Sorted(maps.Keys(want))
	// Each row is compared on every core (a parse and two encodings per
	// row); the findings are then given in order.
	type verdict struct {
		missing   bool
		parseErr  error
		differing string // the summary of the difference
	}
	verdicts := make([]verdict, len(ids))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(ids); i = int(next.Add(1)) - 1 {
				v, ok := got[ids[i]]
				if !ok {
					verdicts[i].missing = true
					continue
				}
				var have Row
				if err := json.Unmarshal(v, &have); err != nil {
					verdicts[i].parseErr = err
					continue
				}
				wb, _ := json.Marshal(want[ids[i]])
				hb, _ := json.Marshal(&have)
				if !bytes.Equal(wb, hb) {
					diff, _ := Patch(wb, hb)
					verdicts[i].differing = summarizePatch(diff)
				}
			}
		})
	}
	wg.Wait()
	for i, id := range ids {
		if r := want[id]; r.Role != "" {
			turns[string(turnKey(r))] = true
		}
		delete(got, id)
		switch v := verdicts[i]; {
		case v.missing:
			bad("index_mismatch", IndexFile, 0, "the index has no row for %s", id)
			reported[id] = true
		case v.parseErr != nil:
			bad("index_mismatch", IndexFile, 0, "the row of %s does not parse: %v", id, v.parseErr)
		case v.differing != "":
			bad("index_mismatch", IndexFile, 0, "the row of %s differs from its documents: %s", id, v.differing)
			reported[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(got)) {
		bad("index_mismatch", IndexFile, 0, "the index has a row for %s, which is not a document", id)
		reported[id] = true
	}
	keyID := func(k []byte) string { return string(k[bytes.LastIndexByte(k, 0)+1:]) }
	ix.Scan(string(bucketTurn), nil, func(k, _ []byte) error {
		if !turns[string(k)] && !reported[keyID(k)] {
			bad("index_mismatch", IndexFile, 0, "the index lists %q as actionable; its documents do not", bytes.ReplaceAll(k, []byte{0}, []byte(" ")))
		}
		delete(turns, string(k))
		return nil
	})
	for _, k := range slices.Sorted(maps.Keys(turns)) {
		if reported[keyID([]byte(k))] {
			continue
		}
		bad("index_mismatch", IndexFile, 0, "the index does not list %q as actionable", bytes.ReplaceAll([]byte(k), []byte{0}, []byte(" ")))
	}
	have := map[string]string{}
	ix.Scan(string(bucketEvents), nil, func(k, v []byte) error { have[string(k)] = string(v); return nil })
	n := 0
	for _, e := range events {
		if v, ok := have[string(e.k)]; !ok || v != string(e.v) {
			n++
		}
		delete(have, string(e.k))
	}
	if n+len(have) > 0 {
		bad("index_mismatch", IndexFile, 0, "%d event offsets of the index differ from the log", n+len(have))
	}
}

// DoctorQuick checks only what a crash can leave behind, in O(1): it
// finishes or discards a leftover journal, checks the index's stamp
// against the log (rebuilding a stale index) and checks that the log's last
// line is whole and its hash matches.
func (s *Store) DoctorQuick() (*Report, error) {
	if s.backend != nil {
		return s.doctorQuickBackend()
	}
	unlock, err := lock(s.root, s.Dir, s.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.recover()
	if err != nil {
		return nil, err
	}
	r := &Report{Recovery: rec, Journal: "none", Swept: []string{}, Findings: []Finding{}, Index: "consistent", Mode: ModeQuick}
	switch {
	case rec.Finished:
		r.Journal = fmt.Sprintf("finished transaction %d", rec.Seq)
	case rec.Found:
		r.Journal = "discarded: " + rec.Discarded
	}
	bad := func(code, p string, seq int, format string, args ...any) {
		r.Findings = append(r.Findings, Finding{code, p, fmt.Sprintf(format, args...), seq})
	}
	t, err := s.tail()
	if err != nil {
		bad("event_invalid", EventsFile, 0, "%v", err)
		return r, nil
	}
	if t.Torn != nil {
		bad("event_invalid", EventsFile, t.Seq+1, "the log ends in a torn line that no journal covers (%d bytes)", len(t.Torn))
	}
	r.Events, r.Log.Events, r.Log.VerifiedSeq, r.Log.VerifiedHash = t.Seq, t.Seq, t.Seq, t.Hash
	if why, err := s.indexStale(); err != nil {
		return nil, err
	} else if why != "" {
		if _, err := s.reindex(); err != nil {
			return nil, err
		}
		r.Index = "rebuilt: it was " + why
	}
	return r, nil
}

// deriveStream derives every row as deriveAll does, for the full doctor:
// it reads each document twice (once for what its parent's turn needs of
// it, once to derive its row) in parallel, and never holds the documents
// all at once, only their rows. With first, the first reading is the full
// check's, and a document whose bytes passed its checks there is not
// schema-checked again.
func deriveStream(src source, pol model.Policy, first *firstPass) (map[string]*Row, error) {
	ids, err := allDocIDs(src)
	if err != nil {
		return nil, err
	}
	rows := make([]*Row, len(ids))
	each := func(ids []string, read func(string) (*Doc, error), fn func(i int, d *Doc) error) error {
		return eachDoc(src, ids, read, fn)
	}
	// The first pass needs a few fields: the schema is checked in the
	// second (readDoc), as deriveAll checks it.
	light := func(id string) (*Doc, error) {
		k, err := model.KindOf(id)
		if err != nil {
			return nil, err
		}
		raw, err := src.ReadDoc(id)
		if err == nil && raw == nil {
			err = NotFound(id, "no %s %s", k, id)
		}
		return &Doc{ID: id, Kind: k, Raw: raw}, err
	}
	var unread []string // not read by the full check's first pass
	var at []int
	for i, id := range ids {
		if r := first.linkOf(id); r != nil {
			rows[i] = r
		} else {
			unread, at = append(unread, id), append(at, i)
		}
	}
	err = each(unread, light, func(i int, d *Doc) error {
		rows[at[i]] = linkRow(d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ix := &indexState{rows: map[string]*Row{}, lenient: true}
	for _, r := range rows {
		ix.rows[r.ID] = r
	}
	placeRows(ix.rows)
	read := func(id string) (*Doc, error) {
		if first != nil {
			k, err := model.KindOf(id)
			if err != nil {
				return nil, err
			}
			raw, err := src.ReadDoc(id)
			if err == nil && first.wasChecked(id, raw) {
				return checkedDoc(id, k, raw), nil
			}
		}
		return readDoc(src, id)
	}
	// deriveRow only reads ix from here on, so the workers share it.
	out := make([]*Row, len(ids))
	err = each(ids, read, func(i int, d *Doc) error {
		r, err := deriveRow(d, ix, pol)
		if err != nil {
			return err
		}
		if !first.noLease(d.ID) { // most items have none: no file to fail to open
			l, err := readLease(src, d.ID)
			if err != nil {
				return err
			}
			r.Lease = rowLease(l)
		}
		out[i] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := make(map[string]*Row, len(out))
	for _, r := range out {
		m[r.ID] = r
	}
	return m, nil
}
