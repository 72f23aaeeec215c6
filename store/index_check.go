package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/proofloop/proofloop/model"
	bolt "go.etcd.io/bbolt"
)

// The index checks itself against its documents and the log, for doctor
// (package store/doctor): the index is the store's, and so is what it
// takes to derive it afresh. Each check reports through a FindingFunc and
// returns what became of the index: "consistent", or "rebuilt: it was"
// and why.

// FindingFunc reports one finding of a check of the store: its code (see
// doctor.FindingCodes), the root-relative path, the first event where it
// shows (0 when none) and a message.
type FindingFunc func(code, p string, seq int, format string, args ...any)

// IndexConsistent is what a check that found the index current says of it.
const IndexConsistent = "consistent"

// IndexStale says why the index must be rebuilt before it can be checked:
// "" when it is current.
func (s *Store) IndexStale() (string, error) {
	if s.backend != nil {
		var why string
		err := s.backend.View(func(sn Snapshot) error {
			var err error
			why, err = s.stale(sn)
			return err
		})
		return why, err
	}
	return s.indexStale()
}

// ReindexStale rebuilds a stale index, and says "rebuilt: it was" and why,
// or IndexConsistent. On the file store the caller holds the lock.
func (s *Store) ReindexStale() (string, error) {
	why, err := s.IndexStale()
	if err != nil || why == "" {
		return IndexConsistent, err
	}
	if s.backend != nil {
		_, err = s.Reindex()
	} else {
		_, err = s.reindex()
	}
	if err != nil {
		return "", err
	}
	return "rebuilt: it was " + why, nil
}

// rebuildStale rebuilds a stale index for a check: a failure to is a
// finding (ok false).
func (s *Store) rebuildStale(bad FindingFunc) (index string, ok bool) {
	why, err := s.indexStale()
	if err != nil || why == "" {
		if err == nil {
			return IndexConsistent, true
		}
	} else if _, err = s.reindex(); err == nil {
		return "rebuilt: it was " + why, true
	}
	bad("index_mismatch", IndexFile, 0, "the index is %s and could not be rebuilt: %v", why, err)
	return IndexConsistent, false
}

// indexStale is IndexStale on the file store.
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
// and schema-checking them again (see FirstPass); nil reads them afresh.
func (s *Store) CheckIndex(first *FirstPass, bad FindingFunc) (index string) {
	index, ok := s.rebuildStale(bad)
	if !ok {
		return index
	}
	db, err := s.openIndex(false)
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot open the index: %v", err)
		return index
	}
	defer db.Close()
	cfg, err := s.Config()
	if err != nil {
		return index // reported as config
	}
	want, err := deriveStream(s.src(), cfg.Policy(), first)
	if err != nil {
		return index // the documents are damaged, which is reported already
	}
	events, err := s.eventOffsets()
	if err != nil {
		return index
	}
	err = db.View(func(btx *bolt.Tx) error {
		compareIndex(boltKV{btx}, want, events, bad)
		return nil
	})
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot read the index: %v", fmt.Sprint(err))
	}
	return index
}

// compareIndex reports every difference between the index in ix and the
// rows and event keys derived afresh.
func compareIndex(ix KV, want map[string]*Row, events []kv, bad FindingFunc) {
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
					verdicts[i].differing = SummarizePatch(diff)
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

// deriveStream derives every row as deriveAll does, for the full doctor:
// it reads each document twice (once for what its parent's turn needs of
// it, once to derive its row) in parallel, and never holds the documents
// all at once, only their rows. With first, the first reading is the full
// check's, and a document whose bytes passed its checks there is not
// schema-checked again.
func deriveStream(src source, pol model.Policy, first *FirstPass) (map[string]*Row, error) {
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

// IndexNeighbours adds to out the parent and children the index's rows give
// each id: those of a document removed or rewritten, as they were.
func (s *Store) IndexNeighbours(ids, out map[string]bool) {
	db, err := s.openIndex(false)
	if err != nil {
		return
	}
	defer db.Close()
	db.View(func(btx *bolt.Tx) error {
		ix := &indexState{kv: boltKV{btx}}
		for id := range ids {
			if row, err := ix.row(id); err == nil && row != nil {
				if row.Parent != "" {
					out[row.Parent] = true
				}
				for _, c := range row.Children {
					out[c] = true
				}
			}
		}
		return nil
	})
}

// IndexDigests are the digests of the index's entries per item id at a
// verified point (seq), of the index's version.
type IndexDigests struct {
	Seq     int
	Digests map[string]uint64
	Version string
}

// EventLine locates a line of the log: its seq, offset and length
// (without its newline).
type EventLine struct {
	Seq int
	Off int64
	N   int
}

// CheckIndexSince checks the index from the point pt: its stamp (a stale
// index is rebuilt, as the full check does), the entries of the items in
// rows against a fresh derivation (events gives the lines that name an
// id), and every other item's entries against the point's digests. It
// returns what became of the index and, when it compared them, the
// digests now.
func (s *Store) CheckIndexSince(pt IndexDigests, rows map[string]bool, events func(id string) []EventLine, bad FindingFunc) (index string, now *IndexDigests) {
	if index, ok := s.rebuildStale(bad); !ok || index != IndexConsistent {
		return index, nil // derived afresh from the documents, which are checked
	}
	cfg, err := s.Config()
	if err != nil {
		return IndexConsistent, nil // reported as config
	}
	db, err := s.openIndex(false)
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot open the index: %v", err)
		return IndexConsistent, nil
	}
	err = db.View(func(btx *bolt.Tx) error {
		ix := boltKV{btx}
		have, version := indexDigests(ix)
		if version != pt.Version {
			return errIndexVersion
		}
		now = &IndexDigests{Seq: pt.Seq, Digests: have, Version: version}
		for _, id := range slices.Sorted(maps.Keys(have)) {
			if !rows[id] && have[id] != pt.Digests[id] {
				bad("index_mismatch", IndexFile, 0, "the index's entries of %s changed since the last verified point (seq %d), but %s did not", id, pt.Seq, id)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(pt.Digests)) {
			if _, ok := have[id]; !ok && !rows[id] {
				bad("index_mismatch", IndexFile, 0, "the index has no entries for %s, which it had at the last verified point (seq %d)", id, pt.Seq)
			}
		}
		want := map[string]*Row{}
		var evs []kv
		st := &indexState{kv: ix, rows: map[string]*Row{}}
		for _, id := range slices.Sorted(maps.Keys(rows)) {
			for _, e := range events(id) {
				evs = append(evs, kv{eventKey(id, e.Seq), []byte(eventLoc(e.Off, e.N+1))})
			}
			d, err := readDoc(s.src(), id)
			if errors.Is(err, fs.ErrNotExist) || isNotFound(err) {
				continue
			}
			if err != nil {
				return nil // the document is damaged, which is reported already
			}
			row, err := deriveRow(d, st, cfg.Policy())
			if err != nil {
				return nil
			}
			l, err := readLease(s.src(), id)
			if err != nil {
				return nil
			}
			row.Lease = rowLease(l)
			want[id] = row
		}
		compareIndex(onlyIDs{ix, rows}, want, evs, bad)
		return nil
	})
	db.Close()
	if errors.Is(err, errIndexVersion) {
		return s.CheckIndex(nil, bad), nil // another version's rows: compared whole
	}
	return IndexConsistent, now
}

// errIndexVersion says the index is of another version than the point's
// digests, so they cannot be compared.
var errIndexVersion = errors.New("the index is of another version than the point's digests")

func isNotFound(err error) bool { return CodeOf(err) == CodeNotFound }

// onlyIDs is an index that shows only the entries of some items.
type onlyIDs struct {
	KV
	ids map[string]bool
}

func (o onlyIDs) Scan(bucket string, prefix []byte, fn func(k, v []byte) error) error {
	return o.KV.Scan(bucket, prefix, func(k, v []byte) error {
		id := string(k)
		switch bucket {
		case string(bucketTurn):
			id = string(k[bytes.LastIndexByte(k, 0)+1:])
		case string(bucketEvents):
			id = string(k[:max(0, bytes.IndexByte(k, 0))])
		}
		if !o.ids[id] {
			return nil
		}
		return fn(k, v)
	})
}

// indexDigests digests the index's entries per item id: its row, its turn
// keys and its event-offset keys. A clean check records them; the routine
// check compares the entries of every item that did not change since.
func indexDigests(ix KV) (map[string]uint64, string) {
	out := map[string]uint64{}
	_, policy, version := indexMeta(ix)
	add := func(bucket []byte, id string, k, v []byte) {
		h := fnv.New64a()
		h.Write(bucket)
		h.Write([]byte{0})
		h.Write(k)
		h.Write([]byte{0})
		h.Write(v)
		out[id] ^= h.Sum64()
	}
	ix.Scan(string(bucketItems), nil, func(k, v []byte) error { add(bucketItems, string(k), k, v); return nil })
	ix.Scan(string(bucketTurn), nil, func(k, v []byte) error {
		add(bucketTurn, string(k[bytes.LastIndexByte(k, 0)+1:]), k, v)
		return nil
	})
	ix.Scan(string(bucketEvents), nil, func(k, v []byte) error {
		add(bucketEvents, string(k[:max(0, bytes.IndexByte(k, 0))]), k, v)
		return nil
	})
	return out, version + "/" + policy
}

// FileIndexDigests reads the digests of the file store's index per item
// id, and its version (see indexDigests).
func (s *Store) FileIndexDigests() (map[string]uint64, string, error) {
	db, err := s.openIndex(false)
	if err != nil {
		return nil, "", err
	}
	defer db.Close()
	var out map[string]uint64
	var version string
	err = db.View(func(btx *bolt.Tx) error {
		out, version = indexDigests(boltKV{btx})
		return nil
	})
	return out, version, err
}

// CheckBackendIndex compares a backend's own index with one derived afresh
// from a snapshot of its documents and log.
func (s *Store) CheckBackendIndex(bad FindingFunc) {
	cfg, err := s.Config()
	if err != nil {
		return // reported as config
	}
	err = s.backend.View(func(sn Snapshot) error {
		want, err := deriveAll(sn, cfg.Policy(), nil)
		if err != nil {
			return nil // the documents are damaged, which is reported already
		}
		var events []kv
		err = sn.Events(0, func(seq int, line []byte) error {
			for _, id := range EventIDs(line) {
				events = append(events, kv{eventKey(id, seq), []byte(eventLoc(0, 0))})
			}
			return nil
		})
		if err != nil {
			return err
		}
		compareIndex(sn, want, events, bad)
		return nil
	})
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot read the index: %v", err)
	}
}
