package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Finding is one thing doctor found wrong, at a root-relative path. Code
// names the kind of damage (see FindingCodes); Seq is the first event where
// the damage shows, when there is one.
type Finding struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Seq     int    `json:"seq,omitempty"`
}

// FindingCodes lists every kind of damage doctor reports, with what it
// means. `doctor --json` gives each finding its code.
var FindingCodes = map[string]string{
	"unreadable":         "a file or folder cannot be read or listed",
	"unexpected_file":    "a file that does not belong where it is",
	"not_strict_json":    "a duplicate object key or data after the JSON value",
	"schema":             "a file does not parse or fails its JSON Schema",
	"wrong_id":           "a document's id field is not its file name",
	"duplicate_number":   "two issues or two responses of a statement carry the same number",
	"bad_reference":      "a link between documents is missing or one-sided",
	"revision_mismatch":  "a document's revision is not the one the event log says it reached",
	"replay_mismatch":    "a document differs from the replay of the event log's patches",
	"event_invalid":      "a line of events.jsonl is not an event",
	"event_gap":          "event seqs do not count up by one: lines were deleted, emptied or moved",
	"chain_broken":       "an event's hash or prev does not match: a line was edited, removed or moved",
	"event_quarantined":  "a torn event line that no journal covered was moved to events.quarantine.jsonl",
	"config":             "config.json is damaged or out of range",
	"lease":              "a lease file is damaged",
	"revisions_missing":  "a statement keeps its proof revisions but its proofs/<id>.jsonl file is gone",
	"revisions_mismatch": "the kept proof revisions do not count up to the statement's proof",
	"issue_quote":        "an issue's sentence_text is not at its sentence in the proof revision it cites",
	"dependency_cycle":   "problems and statements depend on each other in a cycle",
	"head_mismatch":      "the event log does not pass through the head hash given to --expect-head: its events up to that one were rewritten",
	"index_mismatch":     "the derived index differs from its documents and the log (`doctor --reindex` rebuilds it)",
	"formal_verdict":     "a kernel's recorded verdict does not match the formal texts it names by their hashes, or its stage",
	"checkers_mismatch":  "checkers.jsonl differs from the records of the event log's canary-settle and eval events (`doctor --reindex` writes it again)",
}

// Report is what doctor did and found. Problems and Statements count the
// document files present, damaged ones included.
type Report struct {
	Recovery   Recovery  `json:"-"`
	Journal    string    `json:"journal"` // none, finished or discarded
	Swept      []string  `json:"swept"`
	Problems   int       `json:"problems"`
	Statements int       `json:"statements"`
	Events     int       `json:"events"`
	Log        LogReport `json:"log"`
	Index      string    `json:"index"` // consistent, or rebuilt and why
	Debates    int       `json:"debates,omitempty"`
	// Transcripts lists the debate transcripts doctor rewrote because they
	// were missing or stale (a transcript is derived from its debate).
	Transcripts []string  `json:"transcripts_regenerated,omitempty"`
	Findings    []Finding `json:"findings"`
	// Mode is full, routine, quick, or "full: no verified point" (a
	// routine check with no usable point to start from).
	Mode string `json:"mode"`
	// Since is the seq of the verified point a routine check started from,
	// and Rechecked the documents it read because they changed since.
	Since        int `json:"since,omitempty"`
	Rechecked    int `json:"rechecked,omitempty"`
	logSize      int64
	stamps       map[string]fileStamp // the files' fingerprints a routine check took
	digests      map[string]uint64    // the index digests a routine check took
	indexVersion string
}

// newReport is an empty report of a check that found rec of the journal.
func newReport(rec Recovery) *Report {
	r := &Report{Recovery: rec, Journal: "none", Swept: []string{}, Findings: []Finding{}}
	switch {
	case rec.Finished:
		r.Journal = fmt.Sprintf("finished transaction %d", rec.Seq)
	case rec.Found:
		r.Journal = "discarded: " + rec.Discarded
	}
	return r
}

// bad reports a finding (a FindingFunc).
func (r *Report) bad(code, p string, seq int, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{code, p, fmt.Sprintf(format, args...), seq})
}

// RenderTranscript renders a debate's transcript for doctor; package loop
// sets it (loop.RenderDebate), since the store does not import the loop.
var RenderTranscript func(d *model.Debate) []byte

// tempRe matches renameio's temp names for the store's own files: "." +
// target name + a random number, where the target is a document, a lease,
// config.json, the journal, or a derived file. Other dotfiles are left alone.
var tempRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\.(\.journal|\.wal|\.verified|[a-z0-9_]+\.json|[0-9]{4}-[0-9]{2}-[0-9]{2}-[\p{L}\p{N}\p{M}_-]+\.md)[0-9]+$`)
})

// Doctor is the full check, under the lock: it finishes or discards a
// leftover journal, removes stale temp files (under the lock no transaction
// is writing, so every temp file is stale), schema-checks every file, checks
// every cross-reference, verifies the event log's hash chain and replays its
// patches against the documents. Findings mean the store is damaged. A
// clean check records the verified point (PointFile) for DoctorRoutine; it
// ignores the one there.
func (s *Store) Doctor() (*Report, error) { return s.doctor(true, true) }

// CheckCopy is the full check of a copy that export made or import reads:
// it records no point there, since the copy's files are new (no
// fingerprint of them would carry over) and a point would make two exports
// of one store differ.
func (s *Store) CheckCopy() (*Report, error) { return s.doctor(true, false) }

// DoctorRoutine is the routine check: from the last verified point, it
// rechecks what changed since (see doctorRoutine). With no usable point it
// is the full check.
func (s *Store) DoctorRoutine() (*Report, error) { return s.doctor(false, true) }

func (s *Store) doctor(full, record bool) (*Report, error) {
	if s.backend != nil {
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
	if err != nil && CodeOf(err) != CodeStoreDamaged {
		return nil, err
	}
	r := newReport(rec)
	bad := r.bad
	if err != nil {
		bad("unreadable", JournalFile, 0, "%v", err)
	}
	if _, err := s.Config(); err != nil {
		bad("config", ConfigFile, 0, "%v", err)
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

// The modes of Report.Mode.
const (
	ModeFull        = "full"
	ModeFullNoPoint = "full: no verified point"
	ModeRoutine     = "routine"
	ModeQuick       = "quick"
)

func newDocSet() *docSet {
	return &docSet{problems: map[string]*model.Problem{}, statements: map[string]*model.Statement{}, debates: map[string]*model.Debate{},
		revision: map[string]int{}, present: map[string]bool{}, leases: map[string][]byte{}, logged: &logFacts{leases: map[string]leaseFact{}},
		proofs: map[string][]proofAt{}}
}

// doctorFull checks every file and the whole log.
func (s *Store) doctorFull(r *Report, docs *docSet, bad FindingFunc) {
	s.listProofFiles(docs)
	docs.first = NewFirstPass()
	for _, dir := range append([]string{"."}, append(KindDirs(), LeaseDir)...) {
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
func (s *Store) recordPoint(r *Report) {
	if r.Mode == ModeRoutine && r.Rechecked == 0 && r.Since == r.Log.VerifiedSeq && len(r.Swept) == 0 && len(r.Transcripts) == 0 {
		return // nothing changed: the point stands
	}
	p := &point{seq: r.Log.VerifiedSeq, hash: r.Log.VerifiedHash, size: r.logSize, chainFrom: r.Log.ChainFrom,
		files: r.stamps, index: r.digests, indexVersion: r.indexVersion}
	var err error
	if p.config, err = s.root.ReadFile(ConfigFile); err != nil {
		return
	}
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
func (s *Store) stampAll() (map[string]fileStamp, error) {
	out := map[string]fileStamp{}
	for _, dir := range pointDirs() {
		entries, err := fs.ReadDir(s.root.FS(), dir)
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
	mu         sync.Mutex // guards the maps above while documents are read in parallel
	logSize    int64      // the bytes of events.jsonl's whole lines
	first      *FirstPass // the full check's, for the index check; nil in a routine one
}

// doctorDir checks the files of one folder of the root.
func (s *Store) doctorDir(dir string, r *Report, docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	entries, err := fs.ReadDir(s.root.FS(), dir)
	if dir == LeaseDir && docs.first != nil {
		docs.first.ListedLeases(err == nil || errors.Is(err, fs.ErrNotExist))
	}
	if (dir == LeaseDir || dir == model.KindDebate.Dir()) && errors.Is(err, fs.ErrNotExist) {
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
			if err := s.root.Remove(p); err == nil {
				r.Swept = append(r.Swept, p)
			}
			continue
		}
		if dir == "." || strings.HasPrefix(name, ".") {
			continue // the root's own files; dotfiles such as .gitkeep
		}
		if dir == LeaseDir {
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
func (s *Store) checkLeaseFile(name string, docs *docSet, bad FindingFunc) {
	p := LeaseDir + "/" + name
	id, ok := strings.CutSuffix(name, ".json")
	if !ok {
		bad("unexpected_file", p, 0, "unexpected file: leases are named <id>.json")
		return
	}
	docs.leases[id] = nil // present; the bytes only when it reads
	docs.first.LeaseFile(id)
	if _, err := s.ReadLease(id); err != nil {
		bad("lease", p, 0, "%v", err)
	} else if raw, err := s.root.ReadFile(p); err == nil {
		docs.leases[id] = raw
	}
}

func (s *Store) checkDoc(k model.Kind, p, name string, docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	id, ok := strings.CutSuffix(name, ".json")
	if kk, err := model.KindOf(id); !ok || err != nil || kk != k {
		bad("unexpected_file", p, 0, "unexpected file: documents here are named <%s id>.json", k)
		return
	}
	raw, err := s.root.ReadFile(p)
	if err != nil {
		bad("unreadable", p, 0, "cannot read: %v", err)
		return
	}
	docs.first.Link(&Doc{ID: id, Kind: k, Raw: raw})
	if err := schemas.Validate(schemas.Kind(k), raw); err != nil {
		bad("schema", p, 0, "%v", err)
		return
	}
	if err := CheckJSON(raw); err != nil {
		bad("not_strict_json", p, 0, "%v", err)
		return
	}
	d := &Doc{ID: id, Kind: k, Raw: raw}
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

// checkDebates checks each debate's link to the issue it disputes, and
// rewrites a missing or stale transcript: the transcript is derived from
// the document, so doctor repairs it rather than reporting damage.
func (s *Store) checkDebates(r *Report, docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	checkDisputeLinks(docs, bad)
	for _, id := range slices.Sorted(maps.Keys(docs.debates)) {
		db, p := docs.debates[id], DocPath(model.KindDebate, id)
		if a := db.About; a != nil {
			st, ok := docs.statements[a.Statement]
			is := (*model.Issue)(nil)
			if ok {
				is = model.IssueOf(st, a.IssueNumber)
			}
			switch {
			case !ok && !docs.present[a.Statement]:
				bad("bad_reference", p, 0, "disputed statement %s does not exist", a.Statement)
			case ok && is == nil:
				bad("bad_reference", p, 0, "disputed issue %d does not exist in %s", a.IssueNumber, a.Statement)
			case is != nil && db.Status == model.DebateOpen && (is.Dispute == nil || is.Dispute.Debate != id):
				// A closed dispute may have been followed by a newer one on
				// the same issue; an open one must be the issue's.
				bad("bad_reference", p, 0, "issue %d of %s does not link back to this open dispute", a.IssueNumber, a.Statement)
			case is != nil && db.Status != model.DebateOpen && is.Dispute == nil:
				bad("bad_reference", p, 0, "issue %d of %s does not link back to this dispute", a.IssueNumber, a.Statement)
			}
		}
		if RenderTranscript == nil {
			continue
		}
		want := RenderTranscript(db)
		if db.ProjectArtifact != "" {
			s.checkProjectArtifact(r, db.ProjectArtifact, want, bad)
		}
		if got, err := s.root.ReadFile(db.Artifact); err == nil && bytes.Equal(got, want) {
			continue
		}
		if err := s.WriteDerived(db.Artifact, want); err != nil {
			bad("unreadable", db.Artifact, 0, "cannot regenerate the transcript: %v", err)
			continue
		}
		r.Transcripts = append(r.Transcripts, db.Artifact)
	}
}

// checkDisputeLinks checks every issue's dispute link from the statement
// side: the debate it names disputes that issue, and the two agree on
// whether the dispute is still open (the statement waits while it is). A
// dispute closed with no outcome may name a debate that is gone: close
// --discard removes an open debate.
func checkDisputeLinks(docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	for _, sid := range slices.Sorted(maps.Keys(docs.statements)) {
		p := DocPath(model.KindStatement, sid)
		for _, is := range docs.statements[sid].Validate.Issues {
			dis := is.Dispute
			if dis == nil {
				continue
			}
			db, ok := docs.debates[dis.Debate]
			switch {
			case !ok && docs.present[dis.Debate]:
				// Unreadable: reported where it was read.
			case !ok && dis.ClosedAt == nil:
				bad("bad_reference", p, 0, "issue %d is disputed in %s, which does not exist: the statement would wait for it forever", is.IssueNumber, dis.Debate)
			case !ok && (dis.Outcome != nil || is.WithdrawnAt != nil && is.WithdrawnBy == nil):
				// Only an open debate may be discarded (it leaves the dispute
				// closed with no outcome): one that reached an outcome is the
				// record of why the issue stands or was withdrawn. An issue
				// its own checker withdrew (withdrawn_by) owes nothing to
				// the debate.
				bad("bad_reference", p, 0, "issue %d's dispute %s ended with an outcome, but that debate does not exist: the record of the outcome is gone", is.IssueNumber, dis.Debate)
			case !ok:
			case db.About == nil || db.About.Statement != sid || db.About.IssueNumber != is.IssueNumber:
				bad("bad_reference", p, 0, "issue %d names %s as its dispute, but that debate does not dispute it", is.IssueNumber, dis.Debate)
			case dis.ClosedAt == nil && db.Status != model.DebateOpen:
				bad("bad_reference", p, 0, "issue %d's dispute is open here, but %s is %s", is.IssueNumber, dis.Debate, db.Status)
			case dis.ClosedAt != nil && db.Status == model.DebateOpen:
				bad("bad_reference", p, 0, "issue %d's dispute is closed here, but %s is still open", is.IssueNumber, dis.Debate)
			}
		}
	}
}

// duplicates lists the issue and response numbers a statement uses twice.
func duplicates(st *model.Statement) []string {
	var out []string
	seen := map[int]bool{}
	for _, is := range st.Validate.Issues {
		if seen[is.IssueNumber] {
			out = append(out, fmt.Sprintf("issue number %d is used twice", is.IssueNumber))
		}
		seen[is.IssueNumber] = true
	}
	seen = map[int]bool{}
	for _, re := range st.Validate.Responses {
		if seen[re.ResponseNumber] {
			out = append(out, fmt.Sprintf("response number %d is used twice", re.ResponseNumber))
		}
		seen[re.ResponseNumber] = true
	}
	return out
}

// checkRefs checks that every reference names an existing document of the
// right kind and that parent and child agree on each link.
func checkRefs(problems map[string]*model.Problem, statements map[string]*model.Statement, bad func(string, string, ...any)) {
	for _, id := range slices.Sorted(maps.Keys(problems)) {
		p, path := problems[id], DocPath(model.KindProblem, id)
		if p.Parent != nil {
			if par, ok := problems[*p.Parent]; !ok {
				bad(path, "parent %s does not exist", *p.Parent)
			} else if !slices.Contains(par.Preliminaries, id) {
				bad(path, "parent %s does not list it in preliminaries", *p.Parent)
			}
		}
		for _, c := range p.Preliminaries {
			if ch, ok := problems[c]; !ok {
				bad(path, "preliminary %s does not exist", c)
			} else if ch.Parent == nil || *ch.Parent != id {
				bad(path, "preliminary %s does not name it as parent", c)
			}
		}
		for _, c := range p.Progresses {
			if st, ok := statements[c]; !ok {
				bad(path, "progress %s does not exist", c)
			} else if st.Context != id {
				bad(path, "progress %s has context %s", c, st.Context)
			}
		}
		if p.ResolvedBy != nil && !slices.Contains(p.Progresses, *p.ResolvedBy) {
			bad(path, "resolved_by %s is not in its progresses", *p.ResolvedBy)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(statements)) {
		st, path := statements[id], DocPath(model.KindStatement, id)
		if k, _ := model.KindOf(st.Context); k == model.KindProblem {
			if p, ok := problems[st.Context]; !ok {
				bad(path, "context %s does not exist", st.Context)
			} else if !slices.Contains(p.Progresses, id) {
				bad(path, "context %s does not list it in progresses", st.Context)
			}
		} else if par, ok := statements[st.Context]; !ok {
			bad(path, "context %s does not exist", st.Context)
		} else if !slices.Contains(par.SubStatements, id) {
			bad(path, "context %s does not list it in sub_statements", st.Context)
		}
		for _, c := range st.SubStatements {
			if ch, ok := statements[c]; !ok {
				bad(path, "sub-statement %s does not exist", c)
			} else if ch.Context != id {
				bad(path, "sub-statement %s has context %s", c, ch.Context)
			}
		}
	}
}
