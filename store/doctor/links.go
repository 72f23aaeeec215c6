package doctor

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkDebates checks each debate's link to the issue it disputes, and
// rewrites a missing or stale transcript: the transcript is derived from
// the document, so doctor repairs it rather than reporting damage.
func (s *checker) checkDebates(r *Report, docs *docSet, bad func(code, p string, seq int, format string, args ...any)) {
	checkDisputeLinks(docs, bad)
	for _, id := range slices.Sorted(maps.Keys(docs.debates)) {
		db, p := docs.debates[id], store.DocPath(model.KindDebate, id)
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
		if got, err := s.Root().ReadFile(db.Artifact); err == nil && bytes.Equal(got, want) {
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
		p := store.DocPath(model.KindStatement, sid)
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
		p, path := problems[id], store.DocPath(model.KindProblem, id)
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
		st, path := statements[id], store.DocPath(model.KindStatement, id)
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
