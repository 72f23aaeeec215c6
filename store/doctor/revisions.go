package doctor

import (
	"crypto/sha256"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/store"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
)

// listProofFiles notes which statements keep revisions (a file
// proofs/<id>.jsonl), before the documents are read: checkDoc checks each
// statement's kept revisions as it reads it.
func (s *checker) listProofFiles(docs *docSet) {
	docs.proofFiles = map[string]bool{}
	entries, _ := fs.ReadDir(s.Root().FS(), store.ProofsDir)
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && !strings.HasPrefix(e.Name(), ".") && e.Type().IsRegular() {
			docs.proofFiles[id] = true
		}
	}
}

// checkRevisions checks the files of proofs/: every one is named for a
// statement that exists (each statement's kept revisions are checked as it
// is read: checkKept). It also asserts that the dependency graph has no
// cycle.
func (s *checker) checkRevisions(docs *docSet, bad findingFunc) {
	entries, err := fs.ReadDir(s.Root().FS(), store.ProofsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		bad("unreadable", store.ProofsDir, 0, "cannot list: %v", err)
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		p := store.ProofsDir + "/" + e.Name()
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case !ok || !e.Type().IsRegular():
			bad("unexpected_file", p, 0, "unexpected file: kept revisions are named <statement id>.jsonl")
		case docs.statements[id] == nil && !docs.present[id]:
			bad("unexpected_file", p, 0, "kept revisions of %s, which does not exist", id)
		}
	}
	edges := map[string][]string{}
	for id, p := range docs.problems {
		edges[id] = append(slices.Clone(p.Preliminaries), p.Progresses...)
	}
	for id, st := range docs.statements {
		edges[id] = st.SubStatements
	}
	if c := model.FindCycle(edges); c != nil {
		k, _ := model.KindOf(c[0])
		bad("dependency_cycle", store.DocPath(k, c[0]), 0, "dependency cycle: %s", strings.Join(c, " -> "))
	}
}

// checkKept checks one statement's kept revisions: a statement that keeps
// them has its file, the lines count up to the statement's proof, and every
// issue's quote is at its sentence in the revision it cites.
func (s *checker) checkKept(id string, st *model.Statement, docs *docSet, bad findingFunc) {
	p := store.ProofsFile(id)
	if !docs.proofFiles[id] {
		if st.RevisionsKeptFrom > 0 {
			bad("revisions_missing", p, 0, "%s keeps its proof revisions from %d on, but %s does not exist", id, st.RevisionsKeptFrom, p)
		}
		return
	}
	raw, err := s.Root().ReadFile(p)
	if err != nil {
		bad("unreadable", p, 0, "cannot read: %v", err)
		return
	}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		bad("schema", p, 0, "the last line is not terminated: a torn append")
		return
	}
	kept, err := store.ParseProofRevisions(raw)
	if err != nil {
		bad("schema", p, 0, "%v", err)
		return
	}
	for _, m := range model.CheckKept(st, kept) {
		bad("revisions_mismatch", p, 0, "%s", m)
	}
	for _, m := range model.CheckIssueQuotes(st, kept) {
		bad("issue_quote", store.DocPath(model.KindStatement, id), 0, "%s", m)
	}
}

// proofAt is a statement's proof at one proof revision, as the replay of
// the log's patches gives it: the fields a kept revision line repeats.
type proofAt struct {
	rev, seq        int
	text            [sha256.Size]byte // the text's hash: a replay keeps every revision of every statement
	isText          bool
	strategy, actor optional
	at              string
}

// optional is a field of a replayed document that a kept line may leave
// out: absent or null (set false), or a string (set, with str). valid is
// false for any other value, which no kept line equals.
type optional struct {
	set, valid bool
	str        string
}

func optionalOf(v gjson.Result) optional {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return optional{valid: true}
	case v.Type == gjson.String:
		return optional{set: true, valid: true, str: v.Str}
	}
	return optional{}
}

// noteProof records the proof of state at its proof revision, the first
// time the replay reaches that revision (the event that wrote the text).
// A statement's proofs are a slice in the order the replay reaches them: a
// map per statement costs a kilobyte where most hold one.
func noteProof(proofs *[]proofAt, state []byte, seq int) {
	f := gjson.GetManyBytes(state, "proof_revision", "proof", "proof_strategy", "proof_author", "updated_at")
	rev := int(f[0].Int())
	if _, ok := proofOf(*proofs, rev); ok || rev == 0 {
		return
	}
	*proofs = append(*proofs, proofAt{rev: rev, seq: seq, text: sha256.Sum256([]byte(f[1].Str)), isText: f[1].Type == gjson.String, strategy: optionalOf(f[2]), actor: optionalOf(f[3]), at: f[4].String()})
}

// proofOf is the proof at revision rev.
func proofOf(proofs []proofAt, rev int) (proofAt, bool) {
	for _, p := range proofs {
		if p.rev == rev {
			return p, true
		}
	}
	return proofAt{}, false
}

func (d *docSet) setProofs(id string, proofs []proofAt) {
	d.proofsMu.Lock()
	defer d.proofsMu.Unlock()
	d.proofs[id] = proofs
}

// checkKeptAgainstLog compares every kept proof revision, not only the
// last, with the proof the log's patches give at that revision: its text,
// strategy, author and time. A kept revision the log has no proof for (it
// predates the log's patches) is not compared.
func (s *checker) checkKeptAgainstLog(docs *docSet, bad findingFunc) {
	for _, id := range slices.Sorted(maps.Keys(docs.proofs)) {
		proofs := docs.proofs[id]
		p := store.ProofsFile(id)
		raw, err := s.Root().ReadFile(p)
		if err != nil {
			continue // a missing file is reported as revisions_missing
		}
		kept, err := store.ParseProofRevisions(raw)
		if err != nil {
			continue // reported as schema
		}
		for i, r := range kept {
			want, ok := proofOf(proofs, r.Revision)
			if !ok {
				continue
			}
			var diff []string
			if !want.isText || want.text != sha256.Sum256([]byte(r.Text)) {
				diff = append(diff, "text")
			}
			if !sameOptional(want.strategy, r.Strategy) {
				diff = append(diff, "strategy")
			}
			if !sameOptional(want.actor, r.Actor) {
				diff = append(diff, "actor")
			}
			if want.at != r.At {
				diff = append(diff, "at")
			}
			if len(diff) > 0 {
				bad("revisions_mismatch", p, want.seq, "kept line %d (proof revision %d) differs from the proof the event log wrote at seq %d (%s): it was edited by hand",
					i+1, r.Revision, want.seq, strings.Join(diff, ", "))
			}
		}
	}
}

// sameOptional compares a string field of a replayed document (absent,
// null or a string) with a kept line's optional string.
func sameOptional(v optional, s *string) bool {
	if s == nil {
		return v.valid && !v.set
	}
	return v.valid && v.set && v.str == *s
}
