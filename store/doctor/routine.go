package doctor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/store"

	"github.com/tidwall/gjson"

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
//   - checkers.jsonl: what the point hashed unchanged, and the records
//     after it those of the events since;
//   - the index: its stamp, the entries of every changed item against a
//     fresh derivation, and the entries of every other item against the
//     point's digests.
//
// What it cannot see: a file rewritten with its whole fingerprint restored
// (ctime is the kernel's, so that takes a changed clock or a write beneath
// the file system), and a point file forged to match. `doctor --full` sees
// both.
func (s *checker) doctorRoutine(r *Report, pt *point, bad findingFunc) {
	r.Since = pt.seq
	rt := &routineCheck{s: s, r: r, pt: pt, bad: bad, docs: newDocSet(), suspects: map[string]bool{}, leaseIDs: map[string]bool{},
		checked: map[string]bool{}, locs: map[int]lineLoc{}, idSeqs: map[string][]int{}}
	rt.docs.count = map[model.Kind]int{}
	s.listProofFiles(rt.docs)
	s.doctorDir(".", r, rt.docs, bad) // sweeps the root's temp files
	rt.files()
	f, err := s.Root().Open(store.EventsFile)
	if err != nil {
		bad("unreadable", store.EventsFile, 0, "cannot read: %v", err)
		return
	}
	defer f.Close()
	rt.log = f
	rt.scan()
	rt.checkers.checkSince(s, pt, bad)
	rt.documents()
	rt.replay()
	configChanged := rt.leasesAndConfig()
	rt.index(configChanged)
	r.stamps = rt.stamps
}

// routineCheck is what the routine check's phases share.
type routineCheck struct {
	s    *checker
	r    *Report
	pt   *point
	bad  findingFunc
	docs *docSet
	log  *os.File
	// stamps are the files' fingerprints now; changed the files that
	// differ from the point's.
	stamps  map[string]fileStamp
	changed map[string]bool
	// suspects are the documents to recheck, leaseIDs the leases; checked
	// the documents read already, allDebates whether a transcript changed.
	suspects, leaseIDs, checked map[string]bool
	allDebates                  bool
	// locs is where each line of the log is, idSeqs the seqs of the lines
	// that name each id.
	locs     map[int]lineLoc
	idSeqs   map[string][]int
	complete bool // the log is chained from its first event
	// checkers are the checker records of the events after the point.
	checkers checkersLog
	setSince bool // a config-set event came after the point
}

// lineLoc is where a line of the log is: its offset and length.
type lineLoc struct {
	off int64
	n   int
}

// files lists the changed files (changedFiles) and sorts them into the
// documents, the leases and the transcripts to recheck; a changed
// document file is checked at once.
func (rt *routineCheck) files() {
	rt.changed, rt.stamps = rt.s.changedFiles(rt.r, rt.pt, rt.docs, rt.bad)
	for _, p := range slices.Sorted(maps.Keys(rt.changed)) {
		dir, file := path.Split(p)
		id := strings.TrimSuffix(strings.TrimSuffix(file, ".json"), ".jsonl")
		switch dir = strings.TrimSuffix(dir, "/"); dir {
		case store.LeaseDir:
			rt.leaseIDs[id] = true
		case model.TranscriptDir:
			rt.allDebates = true
		case store.ProofsDir:
			rt.suspects[id] = true
		default:
			rt.suspects[id] = true
			if _, ok := rt.stamps[p]; ok {
				rt.s.checkDoc(model.Kind(dir), p, file, rt.docs, rt.bad) // names it unexpected_file when it is no document
				rt.checked[id] = true
			}
		}
	}
}

// scan checks the whole chain, and notes the facts of the lines after the
// point: the ids they name are suspects, their leases and config-set
// events are kept.
func (rt *routineCheck) scan() {
	pt, r, bad, docs := rt.pt, rt.r, rt.bad, rt.docs
	atPoint := false
	sc := &logScan{deep: func(seq int) bool { return seq > pt.seq }, line: func(seq int, off int64, line []byte) {
		rt.locs[seq] = lineLoc{off, len(line)}
		ids := store.EventIDs(line)
		for _, id := range ids {
			rt.idSeqs[id] = append(rt.idSeqs[id], seq)
		}
		switch {
		case seq > pt.seq:
			docs.logged.add(seq, line)
			rt.checkers.add(seq, line, bad)
			for _, id := range ids {
				rt.suspects[id] = true
			}
		case bytes.Contains(line, []byte(store.ConfigSetCommand)):
			docs.logged.add(seq, line) // every config-set event, for checkConfigLog
		}
		if seq == pt.seq {
			atPoint = true
			hash, _, _, _ := store.LineHash(line)
			if hash != pt.hash || off+int64(len(line))+1 != pt.size {
				bad("chain_broken", store.EventsFile, seq, "seq %d is not the event the last clean check verified (hash %s, ending at byte %d): the log was rewritten up to it, its hashes recomputed", seq, short12(pt.hash), pt.size)
			}
		}
	}}
	r.Log = rt.s.scanLog(rt.log, sc, bad)
	r.Events, r.logSize = r.Log.Events, sc.size
	if !atPoint && pt.seq > 0 {
		bad("event_gap", store.EventsFile, pt.seq, "the last clean check verified the log up to seq %d, but it now ends at seq %d: events were removed", pt.seq, r.Log.VerifiedSeq)
	}
	r.Log.Quarantined = rt.s.checkQuarantine(bad)
	rt.s.checkExpectHead(&r.Log, bad)
	rt.complete = r.Log.ChainFrom == 1 || (r.Events == 0 && r.Log.ChainFrom == 0)
	for _, c := range docs.logged.configSets {
		rt.setSince = rt.setSince || c.seq > pt.seq
	}
	for id, l := range docs.logged.leases {
		if l.seq > pt.seq {
			rt.leaseIDs[id] = true
		}
	}
}

// documents checks the changed documents, then their neighbours (read
// quietly: they are as the point verified them), from their files and
// their index rows, and the links between them. A debate names the
// statement it disputes, and no index row links back to it: with any
// document changed, every debate is read (debates are few beside
// statements).
func (rt *routineCheck) documents() {
	s, docs, bad, suspects := rt.s, rt.docs, rt.bad, rt.suspects
	if rt.allDebates || len(suspects) > 0 {
		ids, _ := s.List(model.KindDebate)
		for _, id := range ids {
			suspects[id] = true
		}
	}
	quiet := func(string, string, int, string, ...any) {}
	for _, id := range slices.Sorted(maps.Keys(suspects)) {
		if k, err := model.KindOf(id); err == nil && docs.present[id] && !rt.checked[id] {
			s.checkDoc(k, store.DocPath(k, id), id+".json", docs, bad)
		}
	}
	rt.r.Rechecked = len(suspects)
	neighbours := map[string]bool{}
	s.IndexNeighbours(suspects, neighbours)
	for id := range suspects {
		for _, n := range links(docs, id) {
			neighbours[n] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(neighbours)) {
		if k, err := model.KindOf(id); err == nil && docs.present[id] && !suspects[id] {
			s.checkDoc(k, store.DocPath(k, id), id+".json", docs, quiet)
		}
	}
	near := rt.near
	checkRefs(docs.problems, docs.statements, func(p, format string, args ...any) {
		if len(args) > 0 && docs.present[fmt.Sprint(args[0])] && strings.Contains(format, "does not exist") {
			return
		}
		near("bad_reference", p, 0, format, args...)
	})
	s.checkRevisions(docs, near)
	s.checkDebates(rt.r, docs, near)
	s.checkProjectArtifacts(rt.r, docs, bad)
}

// near reports only what involves a changed document, which alone can be
// new: the rest was clean at the point.
func (rt *routineCheck) near(code, p string, seq int, format string, args ...any) {
	hit := code == "dependency_cycle" || rt.suspects[strings.TrimSuffix(strings.TrimSuffix(path.Base(p), ".json"), ".jsonl")]
	for _, a := range args {
		hit = hit || rt.suspects[fmt.Sprint(a)]
	}
	if hit {
		rt.bad(code, p, seq, format, args...)
	}
}

// line reads the line of seq from the log.
func (rt *routineCheck) line(seq int) ([]byte, error) {
	l := rt.locs[seq]
	buf := make([]byte, l.n)
	_, err := rt.log.ReadAt(buf, l.off)
	return buf, err
}

// replay replays each changed document from the lines that name it.
func (rt *routineCheck) replay() {
	for _, id := range slices.Sorted(maps.Keys(rt.suspects)) {
		var refs []changeRef
		for _, seq := range rt.idSeqs[id] {
			buf, err := rt.line(seq)
			if err != nil {
				rt.bad("unreadable", store.EventsFile, seq, "read seq %d: %v", seq, err)
				continue
			}
			l := rt.locs[seq]
			for i, c := range gjson.GetBytes(buf, "changes").Array() {
				if c.Get("id").String() == id {
					refs = append(refs, changeRef{seq: seq, off: l.off, n: l.n, index: i,
						revision: int(c.Get("revision").Int()), deleted: c.Get("deleted").Bool(),
						hasPatch: c.Get("patch").Exists()})
				}
			}
		}
		if len(refs) == 0 && !rt.docs.present[id] {
			continue // a lease's item, say: no document
		}
		if ok, skipped := rt.s.replayDoc(rt.log, id, refs, rt.docs, rt.complete, rt.bad); ok {
			rt.r.Log.Replayed++
		} else if skipped {
			rt.r.Log.NotReplayed++
		}
	}
	rt.s.checkKeptAgainstLog(rt.docs, rt.bad)
}

// leasesAndConfig checks the leases changed or written since the point,
// and config.json when it changed or was set since. A lease's facts are in
// the lines that name its item (a transaction names every item whose lease
// it wrote). It says whether config.json changed.
func (rt *routineCheck) leasesAndConfig() bool {
	s, docs := rt.s, rt.docs
	lf := &logFacts{leases: map[string]leaseFact{}}
	for _, seq := range slices.Sorted(func(yield func(int) bool) {
		for id := range rt.leaseIDs {
			for _, seq := range rt.idSeqs[id] {
				if !yield(seq) {
					return
				}
			}
		}
	}) {
		if buf, err := rt.line(seq); err == nil {
			lf.add(seq, buf)
		}
	}
	facts := &logFacts{leases: map[string]leaseFact{}, legacy: map[string]bool{}}
	leasesOnDisk := docs.leases
	docs.leases = map[string][]byte{}
	for id := range rt.leaseIDs {
		if l, ok := lf.leases[id]; ok {
			facts.leases[id] = l
		}
		facts.legacy[id] = lf.legacy[id]
		if raw, ok := leasesOnDisk[id]; ok {
			docs.leases[id] = raw
		}
	}
	cfg, err := s.Root().ReadFile(store.ConfigFile)
	configChanged := rt.setSince || err != nil || !bytes.Equal(cfg, rt.pt.config)
	if configChanged {
		s.checkConfigLog(docs.logged, rt.complete, rt.bad) // every config-set event was kept by the walk
	}
	docs.logged = facts
	s.checkLeases(docs, rt.complete, rt.bad)
	return configChanged
}

// index checks the index. A changed config.json (max_rounds) changes rows
// without damage: then it is compared whole, as by the full check.
// Otherwise the rows of the changed items, their leases' and their
// parents' are derived afresh (CheckIndexSince).
func (rt *routineCheck) index(configChanged bool) {
	rt.r.Index = "consistent"
	if configChanged {
		rt.r.Index = rt.s.CheckIndex(nil, rt.bad)
		return
	}
	rows := maps.Clone(rt.suspects)
	for id := range rt.leaseIDs {
		rows[id] = true
	}
	for id := range rt.suspects {
		for _, n := range parentsOf(rt.docs, id) {
			rows[n] = true
		}
	}
	rt.s.IndexNeighbours(rt.suspects, rows) // a parent's row reflects its children
	since := store.IndexDigests{Seq: rt.pt.seq, Digests: rt.pt.index, Version: rt.pt.indexVersion}
	index, now := rt.s.CheckIndexSince(since, rows, func(id string) []store.EventLine {
		var out []store.EventLine
		for _, seq := range rt.idSeqs[id] {
			out = append(out, store.EventLine{Seq: seq, Off: rt.locs[seq].off, N: rt.locs[seq].n})
		}
		return out
	}, rt.bad)
	rt.r.Index = index
	if now != nil {
		rt.r.digests, rt.r.indexVersion = now.Digests, now.Version
	}
}

func short12(h string) string { return h[:min(12, len(h))] }

// changedFiles lists every folder of the point's files: it sweeps stale temp
// files, counts the documents, notes every document present and returns the
// files whose fingerprint differs from the point's, new files and files
// gone. New or changed lease files are read (checkLeaseFile).
func (s *checker) changedFiles(r *Report, pt *point, docs *docSet, bad findingFunc) (map[string]bool, map[string]fileStamp) {
	changed := map[string]bool{}
	stamps := make(map[string]fileStamp, len(pt.files))
	for _, dir := range pointDirs() {
		entries, err := fs.ReadDir(s.Root().FS(), dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			bad("unreadable", dir, 0, "cannot list: %v", err)
			continue
		}
		kind, isDocs := model.Kind(dir), slices.Contains(store.KindDirs(), dir)
		sts, oks := statAll(entries)
		for i, e := range entries {
			name := e.Name()
			p := dir + "/" + name
			if strings.HasPrefix(name, ".") {
				if tempRe().MatchString(name) && e.Type().IsRegular() && dir != model.TranscriptDir {
					if err := s.Root().Remove(p); err == nil {
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
				if dir == store.LeaseDir {
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
