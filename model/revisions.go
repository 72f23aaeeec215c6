package model

import (
	"fmt"
	"strings"
)

// Causes of a kept proof revision. Only a change of the proof text makes a
// revision: state-complete-proof (complete) and fix-patch-proof (patch).
// decide --accept changes the claim, not the proof (the statement goes back
// to pending and its next proof is a new complete revision), and reopen
// records an issue against the accepted text without changing it: neither
// writes a revision line; the event log records both.
const (
	CauseComplete = "complete"
	CausePatch    = "patch"
)

// Causes lists the causes of a kept proof revision, for the schema.
var Causes = []string{CauseComplete, CausePatch}

// ProofRevision is one kept revision of a statement's proof: one line of
// proofs/<statement id>.jsonl, appended in the transaction that wrote the
// text to the statement.
type ProofRevision struct {
	Revision int     `json:"revision"`
	Text     string  `json:"text"`
	Strategy *string `json:"strategy"`
	Actor    *string `json:"actor"`
	AgentLabel
	At    string `json:"at"`
	Cause string `json:"cause"`
	// Issues are the issue numbers a patch answered.
	Issues []int `json:"issues,omitempty"`
	// ResponseNumber is the response that made the revision (a patch).
	ResponseNumber *int `json:"response_number,omitempty"`
}

// KeptRevision returns revision n of the kept lines, or nil.
func KeptRevision(kept []ProofRevision, n int) *ProofRevision {
	for i := range kept {
		if kept[i].Revision == n {
			return &kept[i]
		}
	}
	return nil
}

// CheckKept says how a statement's kept revisions disagree with it: they
// must count up by one from revisions_kept_from, and the last one must be
// the statement's proof at its proof_revision. A statement written before
// revisions were kept (revisions_kept_from absent) has no lines.
func CheckKept(st *Statement, kept []ProofRevision) []string {
	var out []string
	if st.RevisionsKeptFrom == 0 {
		if len(kept) > 0 {
			out = append(out, fmt.Sprintf("%d kept revision(s) but revisions_kept_from is not set", len(kept)))
		}
		return out
	}
	if len(kept) == 0 {
		return []string{fmt.Sprintf("revisions are kept from revision %d but none is kept", st.RevisionsKeptFrom)}
	}
	for i, r := range kept {
		if want := st.RevisionsKeptFrom + i; r.Revision != want {
			out = append(out, fmt.Sprintf("kept line %d is revision %d, want %d (revisions count up by one from %d)", i+1, r.Revision, want, st.RevisionsKeptFrom))
			return out
		}
	}
	last := kept[len(kept)-1]
	if last.Revision != st.ProofRevision {
		out = append(out, fmt.Sprintf("the last kept revision is %d but the proof is at revision %d", last.Revision, st.ProofRevision))
	} else if st.Proof == nil || *st.Proof != last.Text {
		out = append(out, fmt.Sprintf("kept revision %d differs from the statement's proof", last.Revision))
	}
	return out
}

// CheckIssueQuotes says which issues quote text that is not at their
// sentence in the kept revision they cite. Issues citing a revision that
// is not kept (written before revisions were kept) are skipped.
func CheckIssueQuotes(st *Statement, kept []ProofRevision) []string {
	var out []string
	for _, is := range st.Validate.Issues {
		r := KeptRevision(kept, is.ProofRevision)
		if r == nil {
			continue
		}
		if err := MatchSentence(r.Text, is.Sentence, is.SentenceText); err != nil {
			out = append(out, fmt.Sprintf("issue %d: its quote is not in proof revision %d: %s", is.IssueNumber, is.ProofRevision, strings.TrimSpace(err.Error())))
		}
	}
	return out
}
