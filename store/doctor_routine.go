package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
	bolt "go.etcd.io/bbolt"

	"github.com/proofloop/proofloop/model"
)

// doctorRoutine checks what can have changed since the last verified point
// pt, trusting what the point says was clean then:
//
//   - the whole log's hash chain (its seqs, every line's hash and prev), the
//     line at the point still ending where it did with the hash it had, and
//     every line after it schema-checked;
//   - every file of the documents, leases, kept revisions and transcripts
//     listed and stat'ed: a file whose fingerprint (size, mtime, ctime,
//     inode) differs from the point's, a new file and a file gone are
//     changed, and so is every document an event after the point names;
//   - each changed document as the full check does (schema, strict JSON,
//     id, duplicates, the replay of its patches, its revision, its kept
//     revisions) and its references both ways, with its neighbours read;
//   - the leases changed or written since, config.json against the point's
//     config.json and the config-set events since, the quarantine;
//   - the index: its stamp, the entries of every changed item against a
//     fresh derivation, and the entries of every other item against the
//     point's digests.
//
// What it cannot see: a file rewritten with its whole fingerprint restored
// (ctime is the kernel's, so that takes a changed clock or a write beneath
// the file system), and a point file forged to match. `doctor --full` sees
// both.
func (s *Store) doctorRoutine(r *Report, pt *point, bad findingFunc) {
	r.Since = pt.seq
	docs := newDocSet()
	docs.count = map[model.Kind]int{}
	s.listProofFiles(docs)
	s.doctorDir(".", r, docs, bad) // sweeps the root's temp files
	changed, stamps := s.changedFiles(r, pt, docs, bad)
	suspects := map[string]bool{} // documents to recheck
	leaseIDs := map[string]bool{} // leases to recheck
	allDebates := false
	checked := map[string]bool{}
	for _, p := range slices.Sorted(maps.Keys(changed)) {
		dir, file := path.Split(p)
		id := strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".jsonl")
		switch dir = strings.TrimSuffix(dir, "/"); dir {
		case LeaseDir:
			leaseIDs[id] = true
		case model.TranscriptDir:
			allDebates = true
		case ProofsDir:
			suspects[id] = true
		default:
			suspects[id] = true
			if _, ok := stamps[p]; ok {
				s.checkDoc(model.Kind(dir), p, file, docs, bad) // names it unexpected_file when it is no document
				checked[id] = true
			}
		}
	}

	// The log: the whole chain, and the facts of the lines after the point.
	f, err := s.root.Open(EventsFile)
	if err != nil {
		bad("unreadable", EventsFile, 0, "cannot read: %v", err)
		return
	}
	defer f.Close()
	type loc struct {
		off int64
		n   int
	}
	locs := map[int]loc{}
	idSeqs := map[string][]int{}
	atPoint := false
	sc := &logScan{deep: func(seq int) bool { return seq > pt.seq }, line: func(seq int, off int64, line []byte) {
		locs[seq] = loc{off, len(line)}
		ids := eventIDs(line)
		for _, id := range ids {
			idSeqs[id] = append(idSeqs[id], seq)
		}
		switch {
		case seq > pt.seq:
			docs.logged.add(seq, line)
			for _, id := range ids {
				suspects[id] = true
			}
		case bytes.Contains(line, []byte(ConfigSetCommand)):
			docs.logged.add(seq, line) // every config-set event, for checkConfigLog
		}
		if seq == pt.seq {
			atPoint = true
			hash, _, _, _ := LineHash(line)
			if hash != pt.hash || off+int64(len(line))+1 != pt.size {
				bad("chain_broken", EventsFile, seq, "seq %d is not the event the last clean check verified (hash %s, ending at byte %d): the log was rewritten up to it, its hashes recomputed", seq, short12(pt.hash), pt.size)
			}
		}
	}}
	r.Log = s.scanLog(f, sc, bad)
	r.Events, r.logSize = r.Log.Events, sc.size
	if !atPoint && pt.seq > 0 {
		bad("event_gap", EventsFile, pt.seq, "the last clean check verified the log up to seq %d, but it now ends at seq %d: events were removed", pt.seq, r.Log.VerifiedSeq)
	}
	r.Log.Quarantined = s.checkQuarantine(bad)
	s.checkExpectHead(&r.Log, bad)
	complete := r.Log.ChainFrom == 1 || (r.Events == 0 && r.Log.ChainFrom == 0)
	setSince := false
	for _, c := range docs.logged.configSets {
		setSince = setSince || c.seq > pt.seq
	}
	for id, l := range docs.logged.leases {
		if l.seq > pt.seq {
			leaseIDs[id] = true
		}
	}

	// The changed documents, then their neighbours (read quietly: they are
	// as the point verified them), from their files and their index rows.
	// A debate names the statement it disputes, and no index row links
	// back to it: with any document changed, every debate is read (debates
	// are few beside statements).
	if allDebates || len(suspects) > 0 {
		ids, _ := s.List(model.KindDebate)
		for _, id := range ids {
			suspects[id] = true
		}
	}
	quiet := func(string, string, int, string, ...any) {}
	for _, id := range slices.Sorted(maps.Keys(suspects)) {
		if k, err := model.KindOf(id); err == nil && docs.present[id] && !checked[id] {
			s.checkDoc(k, DocPath(k, id), id+".json", docs, bad)
		}
	}
	r.Rechecked = len(suspects)
	neighbours := map[string]bool{}
	s.indexNeighbours(suspects, neighbours)
	for id := range suspects {
		for _, n := range links(docs, id) {
			neighbours[n] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(neighbours)) {
		if k, err := model.KindOf(id); err == nil && docs.present[id] && !suspects[id] {
			s.checkDoc(k, DocPath(k, id), id+".json", docs, quiet)
		}
	}
	// Only what involves a changed document can be new: the rest was clean
	// at the point.
	near := func(code, p string, seq int, format string, args ...any) {
		hit := code == "dependency_cycle" || suspects[strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".json"), ".jsonl")]
		for _, a := range args {
			hit = hit || suspects[fmt.Sprint(a)]
		}
		if hit {
			bad(code, p, seq, format, args...)
		}
	}
	checkRefs(docs.problems, docs.statements, func(p, format string, args ...any) {
		if len(args) > 0 && docs.present[fmt.Sprint(args[0])] && strings.Contains(format, "does not exist") {
			return
		}
		near("bad_reference", p, 0, format, args...)
	})
	s.checkRevisions(docs, near)
	s.checkDebates(r, docs, near)
	s.checkProjectArtifacts(r, docs, bad)

	// Replay each changed document from the lines that name it.
	for _, id := range slices.Sorted(maps.Keys(suspects)) {
		var refs []changeRef
		for _, seq := range idSeqs[id] {
			l := locs[seq]
			buf := make([]byte, l.n)
			if _, err := f.ReadAt(buf, l.off); err != nil {
				bad("unreadable", EventsFile, seq, "read seq %d: %v", seq, err)
				continue
			}
			for i, c := range gjson.GetBytes(buf, "changes").Array() {
				if c.Get("id").String() == id {
					refs = append(refs, changeRef{seq: seq, off: l.off, n: l.n, index: i,
						revision: int(c.Get("revision").Int()), deleted: c.Get("deleted").Bool(),
						hasPatch: c.Get("patch").Exists()})
				}
			}
		}
		if len(refs) == 0 && !docs.present[id] {
			continue // a lease's item, say: no document
		}
		if ok, skipped := s.replayDoc(f, id, refs, docs, complete, bad); ok {
			r.Log.Replayed++
		} else if skipped {
			r.Log.NotReplayed++
		}
	}
	s.checkKeptAgainstLog(docs, bad)

	// Leases and config.json. A lease's facts are in the lines that name
	// its item (a transaction names every item whose lease it wrote).
	lf := &logFacts{leases: map[string]leaseFact{}}
	for _, seq := range slices.Sorted(func(yield func(int) bool) {
		for id := range leaseIDs {
			for _, seq := range idSeqs[id] {
				if !yield(seq) {
					return
				}
			}
		}
	}) {
		buf := make([]byte, locs[seq].n)
		if _, err := f.ReadAt(buf, locs[seq].off); err == nil {
			lf.add(seq, buf)
		}
	}
	facts := &logFacts{leases: map[string]leaseFact{}, legacy: map[string]bool{}}
	leasesOnDisk := docs.leases
	docs.leases = map[string][]byte{}
	for id := range leaseIDs {
		if l, ok := lf.leases[id]; ok {
			facts.leases[id] = l
		}
		facts.legacy[id] = lf.legacy[id]
		if raw, ok := leasesOnDisk[id]; ok {
			docs.leases[id] = raw
		}
	}
	cfg, err := s.root.ReadFile(ConfigFile)
	configChanged := setSince || err != nil || !bytes.Equal(cfg, pt.config)
	if configChanged {
		s.checkConfigLog(docs.logged, complete, bad) // every config-set event was kept by the walk
	}
	docs.logged = facts
	s.checkLeases(docs, complete, bad)

	// The index. A changed config.json (max_rounds) changes rows without
	// damage: then it is compared whole, as by the full check.
	r.Index = "consistent"
	if configChanged {
		s.checkIndex(r, nil, bad)
		r.stamps = stamps
		return
	}
	rows := maps.Clone(suspects)
	for id := range leaseIDs {
		rows[id] = true
	}
	for id := range suspects {
		for _, n := range parentsOf(docs, id) {
			rows[n] = true
		}
	}
	s.indexNeighbours(suspects, rows) // a parent's row reflects its children
	s.checkIndexSince(r, pt, rows, func(id string) []kv {
		var out []kv
		for _, seq := range idSeqs[id] {
			out = append(out, kv{eventKey(id, seq), []byte(eventLoc(locs[seq].off, locs[seq].n+1))})
		}
		return out
	}, bad)
	r.stamps = stamps
}

func short12(h string) string { return h[:min(12, len(h))] }

// changedFiles lists every folder of the point's files: it sweeps stale temp
// files, counts the documents, notes every document present and returns the
// files whose fingerprint differs from the point's, new files and files
// gone. New or changed lease files are read (checkLeaseFile).
func (s *Store) changedFiles(r *Report, pt *point, docs *docSet, bad findingFunc) (map[string]bool, map[string]fileStamp) {
	changed := map[string]bool{}
	stamps := make(map[string]fileStamp, len(pt.files))
	for _, dir := range pointDirs() {
		entries, err := fs.ReadDir(s.root.FS(), dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			bad("unreadable", dir, 0, "cannot list: %v", err)
			continue
		}
		kind, isDocs := model.Kind(dir), slices.Contains(kindDirs(), dir)
		sts, oks := statAll(entries)
		for i, e := range entries {
			name := e.Name()
			p := dir + "/" + name
			if strings.HasPrefix(name, ".") {
				if tempRe().MatchString(name) && e.Type().IsRegular() && dir != model.TranscriptDir {
					if err := s.root.Remove(p); err == nil {
						r.Swept = append(r.Swept, p)
					}
				}
				continue
			}
			st, ok := sts[i], oks[i]
			if ok && e.Type().IsRegular() {
				stamps[p] = st
			}
			if isDocs {
				docs.count[kind]++
				docs.present[strings.TrimSuffix(name, ".json")] = true
			}
			if was, seen := pt.files[p]; !ok || !seen || was != st || !e.Type().IsRegular() {
				changed[p] = true
				if dir == LeaseDir {
					s.checkLeaseFile(name, docs, bad)
				}
			}
		}
	}
	for p := range pt.files {
		if _, ok := stamps[p]; !ok {
			changed[p] = true
		}
	}
	r.Problems, r.Statements, r.Debates = docs.count[model.KindProblem], docs.count[model.KindStatement], docs.count[model.KindDebate]
	return changed, stamps
}

// statAll fingerprints the entries of a folder on every core: at 100,000
// statements the lstat calls are a third of the routine check.
func statAll(entries []fs.DirEntry) ([]fileStamp, []bool) {
	sts, oks := make([]fileStamp, len(entries)), make([]bool, len(entries))
	n := runtime.NumCPU()
	var wg sync.WaitGroup
	for w := range n {
		wg.Go(func() {
			for i := w; i < len(entries); i += n {
				sts[i], oks[i] = stampOf(entries[i])
			}
		})
	}
	wg.Wait()
	return sts, oks
}

// links are the ids a loaded document names: parent, children, the
// statement it lives in, the debates of its issues, the statement a debate
// disputes.
func links(docs *docSet, id string) []string {
	var out []string
	if p := docs.problems[id]; p != nil {
		if p.Parent != nil {
			out = append(out, *p.Parent)
		}
		out = append(append(out, p.Preliminaries...), p.Progresses...)
	}
	if st := docs.statements[id]; st != nil {
		out = append(append(out, st.Context), st.SubStatements...)
		for _, is := range st.Validate.Issues {
			if is.Dispute != nil {
				out = append(out, is.Dispute.Debate)
			}
		}
	}
	if db := docs.debates[id]; db != nil && db.About != nil {
		out = append(out, db.About.Statement)
	}
	return out
}

// parentsOf is the parent a loaded document names.
func parentsOf(docs *docSet, id string) []string {
	if p := docs.problems[id]; p != nil && p.Parent != nil {
		return []string{*p.Parent}
	}
	if st := docs.statements[id]; st != nil {
		return []string{st.Context}
	}
	return nil
}

// indexNeighbours adds to out the parent and children the index's rows give
// each id: those of a document removed or rewritten, as they were.
func (s *Store) indexNeighbours(ids, out map[string]bool) {
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

// checkIndexSince checks the index from the point: its stamp (a stale index
// is rebuilt, as the full check does), the entries of the items in rows
// against a fresh derivation, and every other item's entries against the
// point's digests.
func (s *Store) checkIndexSince(r *Report, pt *point, rows map[string]bool, events func(id string) []kv, bad findingFunc) {
	if why, err := s.indexStale(); err != nil || why != "" {
		if err == nil {
			_, err = s.reindex()
		}
		if err != nil {
			bad("index_mismatch", IndexFile, 0, "the index is %s and could not be rebuilt: %v", why, err)
			return
		}
		r.Index = "rebuilt: it was " + why
		return // derived afresh from the documents, which are checked
	}
	cfg, err := s.Config()
	if err != nil {
		return // reported as config
	}
	db, err := s.openIndex(false)
	if err != nil {
		bad("index_mismatch", IndexFile, 0, "cannot open the index: %v", err)
		return
	}
	err = db.View(func(btx *bolt.Tx) error {
		ix := boltKV{btx}
		have, version := indexDigests(ix)
		if version != pt.indexVersion {
			return errIndexVersion
		}
		r.digests, r.indexVersion = have, version
		for _, id := range slices.Sorted(maps.Keys(have)) {
			if !rows[id] && have[id] != pt.index[id] {
				bad("index_mismatch", IndexFile, 0, "the index's entries of %s changed since the last verified point (seq %d), but %s did not", id, pt.seq, id)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(pt.index)) {
			if _, ok := have[id]; !ok && !rows[id] {
				bad("index_mismatch", IndexFile, 0, "the index has no entries for %s, which it had at the last verified point (seq %d)", id, pt.seq)
			}
		}
		want := map[string]*Row{}
		var evs []kv
		st := &indexState{kv: ix, rows: map[string]*Row{}}
		for _, id := range slices.Sorted(maps.Keys(rows)) {
			evs = append(evs, events(id)...)
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
		s.checkIndex(r, nil, bad) // another version's rows: compared whole
	}
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
