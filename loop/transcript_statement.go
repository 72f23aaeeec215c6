package loop

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/proofloop/proofloop/model"
)

// ProofRevisionView is one proof revision of a statement, as the caller
// found it (the store keeps revision texts apart from the statement).
type ProofRevisionView struct {
	Revision int
	Text     string
	Strategy string
	Author   string // "" when unknown
	At       string // ISO 8601
}

// threadEntry is one dated section of a statement thread.
type threadEntry struct {
	at    string
	order int // tie-break at equal times: revision, issue, response, ...
	n     int
	write func(b *strings.Builder)
}

// RenderStatementThread renders a statement's check/fix exchange in the
// transcript shape of a debate: a header (claim, premises, status), then
// in time order the proof revisions (numbered sentences), the issues with
// their quoted sentence, the responses, confirmations, proposals and
// decisions. With no revisions (older stores keep no revision texts), the
// current proof is shown first, and the transcript says so.
func RenderStatementThread(st *model.Statement, revisions []ProofRevisionView) []byte {
	var b strings.Builder
	writeThreadHeader(&b, st, revisions)
	es := threadEntries(st, revisions)
	slices.SortStableFunc(es, func(x, y threadEntry) int {
		return cmp.Or(cmp.Compare(instant(x.at), instant(y.at)), cmp.Compare(x.order, y.order), cmp.Compare(x.n, y.n))
	})
	for _, e := range es {
		e.write(&b)
	}
	if st.VerifiedAt != nil {
		b.WriteString("---\n\n## Conclusion\n\n")
		fmt.Fprintf(&b, "- **Outcome:** %s\n", st.Status)
		if st.VerificationSummary != nil {
			fmt.Fprintf(&b, "- **Summary:** %s\n", oneLine(*st.VerificationSummary))
		}
		fmt.Fprintf(&b, "- **At:** %s\n", *st.VerifiedAt)
	}
	return []byte(b.String())
}

// writeThreadHeader writes the claim, premises and status, and the current
// proof when the store keeps no revision texts.
func writeThreadHeader(b *strings.Builder, st *model.Statement, revisions []ProofRevisionView) {
	fmt.Fprintf(b, "# Statement thread: %s\n\n", st.ID)
	fmt.Fprintf(b, "- **Claim:** %s\n", oneLine(st.Claim))
	b.WriteString("- **Premises:**")
	if len(st.Premises) == 0 {
		b.WriteString(" none")
	}
	b.WriteString("\n")
	for _, p := range st.Premises {
		fmt.Fprintf(b, "  - %s\n", oneLine(p))
	}
	fmt.Fprintf(b, "- **Status:** %s\n", st.Status)
	fmt.Fprintf(b, "- **Proof revision:** %d\n", st.ProofRevision)
	fmt.Fprintf(b, "- **Context:** %s\n", st.Context)
	b.WriteString("\n---\n\n")
	if len(revisions) == 0 {
		b.WriteString("_This store keeps no earlier proof texts: only the current proof is shown._\n\n")
		if st.Proof == nil {
			b.WriteString("## Proof\n\nNo proof has been submitted yet.\n\n")
		} else {
			writeProof(b, ProofRevisionView{Revision: st.ProofRevision, Text: *st.Proof,
				Strategy: deref(st.ProofStrategy, ""), Author: deref(st.ProofAuthor, "")}, "current")
		}
	}
}

// threadEntries are the dated sections of the thread, unsorted: the
// revisions, issues, responses, confirmations, the proposal, the decisions
// and the refutation.
func threadEntries(st *model.Statement, revisions []ProofRevisionView) []threadEntry {
	var es []threadEntry
	add := func(at string, order, n int, w func(b *strings.Builder)) {
		es = append(es, threadEntry{at, order, n, w})
	}
	for _, r := range revisions {
		add(r.At, 0, r.Revision, func(b *strings.Builder) { writeProof(b, r, r.At) })
	}
	for _, is := range st.Validate.Issues {
		add(is.CreatedAt, 1, is.IssueNumber, func(b *strings.Builder) { writeIssue(b, &is) })
	}
	for _, r := range st.Validate.Responses {
		add(r.CreatedAt, 2, r.ResponseNumber, func(b *strings.Builder) { writeResponse(b, &r) })
	}
	for _, c := range st.Validate.Confirmations {
		add(c.CreatedAt, 3, c.ProofRevision, func(b *strings.Builder) {
			fmt.Fprintf(b, "## Confirmation — %s\n\nConfirms proof revision %d, %s.\n\n", actor(c.Actor), c.ProofRevision, c.CreatedAt)
		})
	}
	if m := st.ProposedModification; m != nil {
		add(m.ProposedAt, 4, 0, func(b *strings.Builder) {
			fmt.Fprintf(b, "## Proposed modification — %s — %s\n\n", m.Type, actor(m.Actor))
			writeClaim(b, "Claim", m.Claim, m.Premises)
			fmt.Fprintf(b, "%s\n\n_Waiting for a decision (proofloop decide)._\n\n", block(m.Rationale))
		})
	}
	for i, r := range st.ModificationHistory {
		add(r.DecidedAt, 5, i, func(b *strings.Builder) { writeDecision(b, &r) })
	}
	if r := st.Refutation; r != nil {
		add(r.At, 6, 0, func(b *strings.Builder) {
			fmt.Fprintf(b, "## Refutation — from %s — %s\n\n", r.Source, actor(r.Actor))
			if st.Counterexample != nil {
				fmt.Fprintf(b, "**Counterexample:** %s\n\n", block(*st.Counterexample))
			}
			fmt.Fprintf(b, "_Marked false at %s._\n\n", r.At)
		})
	}
	return es
}

// writeIssue writes an issue with the sentence (or formal line) it quotes.
func writeIssue(b *strings.Builder, is *model.Issue) {
	fmt.Fprintf(b, "## Issue %d — %s — %s\n\n", is.IssueNumber, is.ErrorType, actor(is.Actor))
	fmt.Fprintf(b, "_Round %d, proof revision %d, %s_\n\n", is.Round, is.ProofRevision, is.CreatedAt)
	where := fmt.Sprintf("Sentence %d", is.Sentence)
	if t := is.IssueTarget(); t != model.TargetProof {
		// An issue on the formal track cites a line of that text.
		where = fmt.Sprintf("Line %d of the %s", is.Sentence, strings.ReplaceAll(t, "_", " "))
	}
	fmt.Fprintf(b, "**%s:** %s\n\n%s\n\n", where, oneLine(is.SentenceText), block(is.Explanation))
	if is.SuggestedFix != nil {
		fmt.Fprintf(b, "**Suggested fix:** %s\n\n", oneLine(*is.SuggestedFix))
	}
	if is.SupersededAt != nil {
		fmt.Fprintf(b, "_Superseded at %s by an accepted modification._\n\n", *is.SupersededAt)
	}
	if is.WithdrawnAt != nil {
		by := "by a dispute's consensus"
		if is.WithdrawnBy != nil {
			by = "by " + *is.WithdrawnBy
		}
		fmt.Fprintf(b, "_Withdrawn at %s %s: %s_\n\n", *is.WithdrawnAt, by, oneLine(deref(is.WithdrawnReason, "no reason given")))
	}
}

// writeResponse writes a response and the issues it addresses.
func writeResponse(b *strings.Builder, r *model.Response) {
	fmt.Fprintf(b, "## Response %d — %s — %s\n\n", r.ResponseNumber, r.Type, actor(r.Actor))
	issues := r.IssuesAddressed
	if len(issues) == 0 {
		issues = []int{r.IssueAddressed}
	}
	fmt.Fprintf(b, "- **Addresses:** %s\n", numbered("issue", issues))
	if r.SubStatementID != "" {
		fmt.Fprintf(b, "- **Sub-statement:** %s\n", r.SubStatementID)
	}
	if r.RejectedAt != nil {
		fmt.Fprintf(b, "- **Rejected at:** %s\n", *r.RejectedAt)
	}
	fmt.Fprintf(b, "- **At:** %s\n\n", r.CreatedAt)
}

// writeDecision writes a decision on a proposed modification: the claim
// before and after, and why.
func writeDecision(b *strings.Builder, r *model.ModificationRecord) {
	fmt.Fprintf(b, "## Decision — %s %s — %s\n\n", r.Decision, r.Type, actor(r.Actor))
	writeClaim(b, "Claim before", &r.ClaimBefore, r.PremisesBefore)
	if r.ClaimAfter != nil || r.PremisesAfter != nil {
		writeClaim(b, "Claim after", r.ClaimAfter, r.PremisesAfter)
	}
	fmt.Fprintf(b, "%s\n\n", block(r.Rationale))
	if r.Reason != nil {
		fmt.Fprintf(b, "**Reason:** %s\n\n", oneLine(*r.Reason))
	}
	fmt.Fprintf(b, "_Decided at %s._\n\n", r.DecidedAt)
}

func writeProof(b *strings.Builder, r ProofRevisionView, when string) {
	fmt.Fprintf(b, "## Proof revision %d — %s", r.Revision, or(r.Author, "unknown author"))
	if r.Strategy != "" {
		fmt.Fprintf(b, " — %s", r.Strategy)
	}
	fmt.Fprintf(b, "\n\n_%s_\n\n", or(when, "undated"))
	for i, s := range model.Sentences(r.Text) {
		fmt.Fprintf(b, "- [%d] %s\n", i+1, oneLine(s))
	}
	b.WriteString("\n")
}

func writeClaim(b *strings.Builder, label string, claim *string, premises []string) {
	fmt.Fprintf(b, "- **%s:** %s\n", label, oneLine(deref(claim, "unchanged")))
	for _, p := range premises {
		fmt.Fprintf(b, "  - premise: %s\n", oneLine(p))
	}
	b.WriteString("\n")
}

func actor(a *string) string { return deref(a, "anonymous") }

// instant orders ISO 8601 timestamps; their strings do not sort by time
// when only some carry fractions of a second ("05.5Z" < "05Z").
func instant(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixNano()
}
