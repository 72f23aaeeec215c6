package store

import (
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// checkRevisions checks the kept proof revisions against the statements:
// every proofs file parses and belongs to a statement, a statement that
// keeps revisions has its file, the lines count up to the statement's
// proof, and every issue's quote is at its sentence in the revision it
// cites. It also asserts that the dependency graph has no cycle.
func (s *Store) checkRevisions(docs *docSet, bad findingFunc) {
	entries, err := fs.ReadDir(s.root.FS(), ProofsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		bad("unreadable", ProofsDir, 0, "cannot list: %v", err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		p := ProofsDir + "/" + e.Name()
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case !ok || !e.Type().IsRegular():
			bad("unexpected_file", p, 0, "unexpected file: kept revisions are named <statement id>.jsonl")
		case docs.statements[id] == nil && !docs.present[id]:
			bad("unexpected_file", p, 0, "kept revisions of %s, which does not exist", id)
		default:
			files[id] = true
		}
	}
	for _, id := range slices.Sorted(maps.Keys(docs.statements)) {
		st, p := docs.statements[id], ProofsFile(id)
		if !files[id] {
			if st.RevisionsKeptFrom > 0 {
				bad("revisions_missing", p, 0, "%s keeps its proof revisions from %d on, but %s does not exist", id, st.RevisionsKeptFrom, p)
			}
			continue
		}
		raw, err := s.root.ReadFile(p)
		if err != nil {
			bad("unreadable", p, 0, "cannot read: %v", err)
			continue
		}
		if len(raw) > 0 && raw[len(raw)-1] != '\n' {
			bad("schema", p, 0, "the last line is not terminated: a torn append")
			continue
		}
		kept, err := parseProofRevisions(raw)
		if err != nil {
			bad("schema", p, 0, "%v", err)
			continue
		}
		for _, m := range model.CheckKept(st, kept) {
			bad("revisions_mismatch", p, 0, "%s", m)
		}
		for _, m := range model.CheckIssueQuotes(st, kept) {
			bad("issue_quote", DocPath(model.KindStatement, id), 0, "%s", m)
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
		bad("dependency_cycle", DocPath(k, c[0]), 0, "dependency cycle: %s", strings.Join(c, " -> "))
	}
}
