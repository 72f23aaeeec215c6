// Package doctor checks a store: every file's schema, every reference, the
// event log's hash chain and the replay of its patches, the leases,
// config.json, checkers.jsonl and the derived index (which checks itself:
// store.CheckIndex). Full reads everything; Routine rechecks what changed
// since the last verified point (store.PointFile); Quick only what a crash
// can leave. It sits above package store, which never imports it.
package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/store"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// RenderTranscript renders a debate's transcript for doctor; package loop
// sets it (loop.RenderDebate), since the doctor does not import the loop.
var RenderTranscript func(d *model.Debate) []byte

// tempRe matches renameio's temp names for the store's own files: "." +
// target name + a random number, where the target is a document, a lease,
// config.json, the journal, or a derived file. Other dotfiles are left alone.
var tempRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\.(\.journal|\.wal|\.verified|[a-z0-9_]+\.json|[0-9]{4}-[0-9]{2}-[0-9]{2}-[\p{L}\p{N}\p{M}_-]+\.md)[0-9]+$`)
})

// Full is the full check, under the lock: it finishes or discards a
// leftover journal, removes stale temp files (under the lock no transaction
// is writing, so every temp file is stale), schema-checks every file, checks
// every cross-reference, verifies the event log's hash chain and replays its
// patches against the documents. Findings mean the store is damaged. A
// clean check records the verified point (store.PointFile) for Routine; it
// ignores the one there.
func Full(s *store.Store) (*Report, error) { return (&checker{s}).doctor(true, true) }

// CheckCopy is the full check of a copy that export made or import reads:
// it records no point there, since the copy's files are new (no
// fingerprint of them would carry over) and a point would make two exports
// of one store differ.
func CheckCopy(s *store.Store) (*Report, error) { return (&checker{s}).doctor(true, false) }

// Routine is the routine check: from the last verified point, it rechecks
// what changed since (see doctorRoutine). With no usable point it is the
// full check.
func Routine(s *store.Store) (*Report, error) { return (&checker{s}).doctor(false, true) }

// Quick checks only what a crash can leave behind, in O(1) (see quick).
func Quick(s *store.Store) (*Report, error) { return (&checker{s}).quick() }

// Passes is store.Import's check of the store it loads: CheckCopy, and a
// damaged store is refused.
func Passes(s *store.Store) error {
	rep, err := CheckCopy(s)
	if err != nil {
		return err
	}
	if len(rep.Findings) > 0 {
		f := rep.Findings[0]
		return store.Errorf(store.CodeStoreDamaged, "%s does not pass doctor (%d findings; the first: %s: %s)", s.Dir, len(rep.Findings), f.Path, f.Message).
			WithHint("run `proofloop doctor --root " + s.Dir + "` and repair it first")
	}
	return nil
}

func (s *checker) doctor(full, record bool) (*Report, error) {
	if s.Backend() != nil {
		// A backend's doctor checks an exported snapshot, whose files are
		// new on every export: no stat fingerprint carries over, so each
		// doctor on a backend is the full check.
		r, err := s.doctorBackend()
		if r != nil {
			r.Mode = ModeFull
		}
		return r, err
	}
	unlock, err := s.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	rec, err := s.Recover()
	if err != nil && store.CodeOf(err) != store.CodeStoreDamaged {
		return nil, err
	}
	r := newReport(rec)
	bad := r.bad
	if err != nil {
		bad("unreadable", store.JournalFile, 0, "%v", err)
	}
	if _, err := s.Config(); err != nil {
		bad("config", store.ConfigFile, 0, "%v", err)
	}
	r.Mode = ModeFull
	if !full {
		if pt := s.readPoint(); pt != nil {
			r.Mode = ModeRoutine
			s.doctorRoutine(r, pt, bad)
		} else {
			r.Mode = ModeFullNoPoint
		}
	}
	docs := newDocSet()
	if r.Mode != ModeRoutine {
		// A soft memory limit for the full check: the collector runs more
		// often rather than let the heap double past what is live (at
		// 100,000 statements that is the difference between about 300 MB
		// and 850 MB); the limit is lifted after.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(fullCheckMemory))
		s.doctorFull(r, docs, bad)
	}
	slices.SortFunc(r.Findings, func(a, b Finding) int {
		return strings.Compare(a.Path+"\x00"+a.Message, b.Path+"\x00"+b.Message)
	})
	if len(r.Findings) == 0 && record {
		s.recordPoint(r)
	}
	return r, nil
}

// fullCheckMemory is the full check's soft memory limit (see doctor).
const fullCheckMemory = 200 << 20

func newDocSet() *docSet {
	return &docSet{problems: map[string]*model.Problem{}, statements: map[string]*model.Statement{}, debates: map[string]*model.Debate{},
		revision: map[string]int{}, present: map[string]bool{}, leases: map[string][]byte{}, logged: &logFacts{leases: map[string]leaseFact{}},
		proofs: map[string][]proofAt{}}
}

// doctorFull checks every file and the whole log.
func (s *checker) doctorFull(r *Report, docs *docSet, bad findingFunc) {
	s.listProofFiles(docs)
	docs.first = store.NewFirstPass()
	for _, dir := range append([]string{"."}, append(store.KindDirs(), store.LeaseDir)...) {
		s.doctorDir(dir, r, docs, bad)
	}
	r.Problems, r.Statements, r.Debates = docs.count[model.KindProblem], docs.count[model.KindStatement], docs.count[model.KindDebate]
	// A reference to a file that is there but damaged is reported once,
	// as the damaged file, not again as missing.
	checkRefs(docs.problems, docs.statements, func(p, format string, args ...any) {
		if len(args) > 0 && docs.present[fmt.Sprint(args[0])] && strings.Contains(format, "does not exist") {
			return
		}
		bad("bad_reference", p, 0, format, args...)
	})
	s.checkRevisions(docs, bad)
	s.checkDebates(r, docs, bad)
	// The checks across documents are done: let the documents go before
	// the replay, which holds every document's changes.
	docs.problems, docs.statements, docs.debates = nil, nil, nil
	r.Log = s.checkLog(docs, bad)
	r.Events = r.Log.Events
	r.logSize = docs.logSize
	first := docs.first
	*docs = docSet{} // the index check derives its own rows: let the documents' go first
	r.Index = s.CheckIndex(first, bad)
}

// recordPoint writes the verified point of a clean check: the log's head,
// config.json, the stat fingerprint of every file and the digests of the
// index. Under the lock nothing else writes, so it is the store as checked.
func (s *checker) recordPoint(r *Report) {
	if r.Mode == ModeRoutine && r.Rechecked == 0 && r.Since == r.Log.VerifiedSeq && len(r.Swept) == 0 && len(r.Transcripts) == 0 {
		return // nothing changed: the point stands
	}
	p := &point{seq: r.Log.VerifiedSeq, hash: r.Log.VerifiedHash, size: r.logSize, chainFrom: r.Log.ChainFrom,
		files: r.stamps, index: r.digests, indexVersion: r.indexVersion}
	var err error
	if p.config, err = s.Root().ReadFile(store.ConfigFile); err != nil {
		return
	}
	checkers, err := s.Root().ReadFile(store.CheckersFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
	p.checkersSize, p.checkersHash = int64(len(checkers)), model.SHA256Hex(string(checkers))
	if p.files == nil || len(r.Transcripts) > 0 {
		if p.files, err = s.stampAll(); err != nil {
			return
		}
	}
	if p.index == nil {
		if p.index, p.indexVersion, err = s.FileIndexDigests(); err != nil {
			return
		}
	}
	s.writePoint(p)
}

// stampAll fingerprints every file of the point's folders.
func (s *checker) stampAll() (map[string]fileStamp, error) {
	out := map[string]fileStamp{}
	for _, dir := range pointDirs() {
		entries, err := fs.ReadDir(s.Root().FS(), dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
				continue
			}
			st, ok := stampOf(e)
			if !ok {
				return nil, fmt.Errorf("cannot stat %s/%s", dir, e.Name())
			}
			out[dir+"/"+e.Name()] = st
		}
	}
	return out, nil
}

// docSet is what doctor learns of the documents on disk.
type docSet struct {
	problems   map[string]*model.Problem
	statements map[string]*model.Statement
	debates    map[string]*model.Debate
	revision   map[string]int  // every readable document's revision
	present    map[string]bool // every document file, damaged or not
	count      map[model.Kind]int
	leases     map[string][]byte // every lease file that reads, by item id
	logged     *logFacts         // what the event log says of config and leases
	// proofs holds, per statement, the proof at each proof revision as the
	// replay of the log's patches gives it (written by the replay workers).
	proofs   map[string][]proofAt
	proofsMu sync.Mutex
	// proofFiles holds the statements that have a proofs/<id>.jsonl file.
	proofFiles map[string]bool
	mu         sync.Mutex       // guards the maps above while documents are read in parallel
	logSize    int64            // the bytes of events.jsonl's whole lines
	first      *store.FirstPass // the full check's, for the index check; nil in a routine one
}

// doctorDir checks the files of one folder of the root.
func (s *checker) doctorDir(dir string, r *Report, docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	entries, err := fs.ReadDir(s.Root().FS(), dir)
	if dir == store.LeaseDir && docs.first != nil {
		docs.first.ListedLeases(err == nil || errors.Is(err, fs.ErrNotExist))
	}
	if (dir == store.LeaseDir || dir == model.KindDebate.Dir()) && errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		bad("unreadable", dir, 0, "cannot list: %v", err)
		return
	}
	var names []string // the documents, checked after the listing
	for _, e := range entries {
		name := e.Name()
		p := strings.TrimPrefix(dir+"/"+name, "./")
		if strings.HasPrefix(name, ".") && tempRe().MatchString(name) && e.Type().IsRegular() {
			if err := s.Root().Remove(p); err == nil {
				r.Swept = append(r.Swept, p)
			}
			continue
		}
		if dir == "." || strings.HasPrefix(name, ".") {
			continue // the root's own files; dotfiles such as .gitkeep
		}
		if dir == store.LeaseDir {
			s.checkLeaseFile(name, docs, bad)
			continue
		}
		k := model.Kind(dir)
		if docs.count == nil {
			docs.count = map[model.Kind]int{}
		}
		docs.count[k]++
		docs.present[strings.TrimSuffix(name, ".json")] = true
		names = append(names, name)
	}
	// The documents are read and checked in parallel: most of a full
	// check's time is reading files and checking schemas.
	var mu sync.Mutex
	locked := func(code, p string, seq int, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		bad(code, p, seq, format, args...)
	}
	next := make(chan string)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for name := range next {
				s.checkDoc(model.Kind(dir), dir+"/"+name, name, docs, locked)
			}
		})
	}
	for _, name := range names {
		next <- name
	}
	close(next)
	wg.Wait()
}

// checkLeaseFile reads one file of leases/.
func (s *checker) checkLeaseFile(name string, docs *docSet, bad findingFunc) {
	p := store.LeaseDir + "/" + name
	id, ok := strings.CutSuffix(name, ".json")
	if !ok {
		bad("unexpected_file", p, 0, "unexpected file: leases are named <id>.json")
		return
	}
	docs.leases[id] = nil // present; the bytes only when it reads
	docs.first.LeaseFile(id)
	if _, err := s.ReadLease(id); err != nil {
		bad("lease", p, 0, "%v", err)
	} else if raw, err := s.Root().ReadFile(p); err == nil {
		docs.leases[id] = raw
	}
}

func (s *checker) checkDoc(k model.Kind, p, name string, docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	id, ok := strings.CutSuffix(name, ".json")
	if kk, err := model.KindOf(id); !ok || err != nil || kk != k {
		bad("unexpected_file", p, 0, "unexpected file: documents here are named <%s id>.json", k)
		return
	}
	raw, err := s.Root().ReadFile(p)
	if err != nil {
		bad("unreadable", p, 0, "cannot read: %v", err)
		return
	}
	docs.first.Link(&store.Doc{ID: id, Kind: k, Raw: raw})
	if err := schemas.Validate(schemas.Kind(k), raw); err != nil {
		bad("schema", p, 0, "%v", err)
		return
	}
	if err := store.CheckJSON(raw); err != nil {
		bad("not_strict_json", p, 0, "%v", err)
		return
	}
	d := &store.Doc{ID: id, Kind: k, Raw: raw}
	if got := d.Get("id").String(); got != id {
		bad("wrong_id", p, 0, "its id field is %q, not %q", got, id)
		return
	}
	docs.first.Checked(id, raw)
	docs.mu.Lock()
	docs.revision[id] = int(d.Get("revision").Int())
	docs.mu.Unlock()
	switch k {
	case model.KindProblem:
		if pr, err := d.Problem(); err == nil {
			docs.mu.Lock()
			docs.problems[id] = slimProblem(pr)
			docs.mu.Unlock()
		}
	case model.KindStatement:
		st, err := d.Statement()
		if err != nil {
			return
		}
		for _, dup := range duplicates(st) {
			bad("duplicate_number", p, 0, "%s", dup)
		}
		// A kernel's verdict names the texts it judged by their hashes: a
		// verdict that no longer matches them was edited by hand.
		if msg := st.Formal.VerdictProblem(); msg != "" {
			bad("formal_verdict", p, 0, "%s: the recorded verdict is not the kernel's on these texts (edited by hand?); check-formal records a real one", msg)
		}
		s.checkKept(id, st, docs, bad)
		st = slimStatement(st)
		docs.mu.Lock()
		docs.statements[id] = st
		docs.mu.Unlock()
	case model.KindDebate:
		if db, err := d.Debate(); err == nil {
			docs.mu.Lock()
			docs.debates[id] = db
			docs.mu.Unlock()
		}
	}
}

// slimProblem and slimStatement keep what the checks across documents
// read (links, disputes, status): a full check holds one of each document
// at once, and the texts would make that the size of the store.
func slimProblem(p *model.Problem) *model.Problem {
	return &model.Problem{ID: p.ID, Status: p.Status, Parent: p.Parent, Preliminaries: p.Preliminaries, Progresses: p.Progresses, ResolvedBy: p.ResolvedBy}
}

func slimStatement(st *model.Statement) *model.Statement {
	out := &model.Statement{ID: st.ID, Status: st.Status, Context: st.Context, SubStatements: st.SubStatements, RevisionsKeptFrom: st.RevisionsKeptFrom}
	for _, is := range st.Validate.Issues {
		out.Validate.Issues = append(out.Validate.Issues, model.Issue{IssueNumber: is.IssueNumber, Dispute: is.Dispute, WithdrawnAt: is.WithdrawnAt, WithdrawnBy: is.WithdrawnBy})
	}
	return out
}
