package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
)

// The views below are what the template reads: every agent string is
// either a template.HTML from Markdown/Inline (goldmark, inert) or a plain
// string that html/template escapes.

// treeNode is one problem or statement of the tree.
type treeNode struct {
	ID, Kind, Status, Holder string
	Level                    string // a statement's level of escalation past revise
	Round                    int
	OpenIssues               []int
	Title                    template.HTML
	FullyProved              bool
	NotProved                string // why not, when it is not
	Grade, GradeKey          string // what stands behind it (model.Grade), in words and as a key
	Href                     string // "" when the page does not show it
	Children                 []*treeNode
}

// stmtView is one statement's section.
type stmtView struct {
	ID, Status, Context string
	Round               int
	OpenIssues          []int
	Claim               template.HTML
	Premises            []template.HTML
	Purpose             template.HTML
	Revisions           []*revView
	Source              string
	FullyProved         bool
	NotProved           string
	Grade, GradeKey     string
	Formal              *formalView
	Thread              []entry
	Counterexample      template.HTML
	// Level is its level of escalation once it climbed past revise, and
	// DeadEnds its abandoned approaches.
	Level    string
	DeadEnds []deadEndView
}

// deadEndView is one dead end of a statement: agents' texts as inline
// Markdown (inert), the rest plain.
type deadEndView struct {
	Number          int
	Level, Approach string
	Killed, Lesson  template.HTML
}

// formalView is a statement's formal track: its texts (escaped by the
// template, shown as code), the kernel's verdict and the issues on it.
type formalView struct {
	System, Theorem, Stage, Statement, Proof, ConfirmedBy, ProofBy string
	OK                                                             bool
	Verdict                                                        *model.Verdict
	Issues                                                         []*issueView
}

// revView is one proof revision with numbered sentences.
type revView struct {
	ID                          string // anchor of the revision
	N                           int
	Author, At, Strategy, Cause string
	Sentences                   []*sentView
}

// sentView is one numbered sentence; Anchor is s-<stmt>-r<rev>-<n>.
type sentView struct {
	N      int
	Anchor string
	Source string // the sentence as the checker cited it
	HTML   template.HTML
	Issues []*issueView
}

// issueView is an issue, shown beside the sentence it cites.
type issueView struct {
	N                         int
	ID, Anchor                string // its own id, and the sentence's
	ErrorType, Severity       string
	Actor, At, Quote          string
	Round, Revision, Sentence int
	Explanation, SuggestedFix template.HTML
	Open, Anchored            bool
	Target                    string // for an issue on the formal track: what it is about
}

// entry is one dated step of a statement's thread.
type entry struct {
	At, Actor, What, Link string
	Body                  template.HTML
}

func sentenceAnchor(stmt string, rev, n int) string { return fmt.Sprintf("s-%s-r%d-%d", stmt, rev, n) }

// tree builds the nodes below id; href gives each statement's link.
func tree(d *Data, id string, href func(string) string) *treeNode {
	it := d.Items[id]
	if it == nil {
		return nil
	}
	n := &treeNode{ID: id, Kind: string(it.Kind), Status: string(it.Status), Holder: it.Holder, Level: it.Level, Round: it.Round,
		OpenIssues: it.OpenIssues, Href: href(id)}
	if it.Proved != nil {
		n.FullyProved, n.NotProved = it.FullyProved, it.Why()
		n.Grade, n.GradeKey = gradeWordsOf(it), string(it.Grade)
	}
	if p := d.Problems[id]; p != nil {
		n.Title = Inline(p.Objective)
	} else if st := d.Statements[id]; st != nil {
		n.Title = Inline(st.Claim)
	}
	for _, c := range it.Children {
		if cn := tree(d, c, href); cn != nil {
			n.Children = append(n.Children, cn)
		}
	}
	return n
}

// gradeWordsOf is an item's grade in words ("" for none).
func gradeWordsOf(it *loop.Item) string {
	if it.Grade == "" {
		return ""
	}
	return gradeWords(it)
}

// statementView lays out one statement: its revisions with each issue
// beside the sentence it cites (in the revision it cites), then its
// thread in time order.
func statementView(sd *StatementData, it *loop.Item) *stmtView {
	st := sd.Statement
	v := &stmtView{ID: st.ID, Status: string(st.Status), Context: st.Context, Round: st.Round, OpenIssues: st.OpenIssues(),
		Claim: Inline(st.Claim), Source: sd.Source}
	if it != nil && it.Proved != nil {
		v.FullyProved, v.NotProved = it.FullyProved, it.Why()
		v.Grade, v.GradeKey = gradeWordsOf(it), string(it.Grade)
	}
	if st.Formal != nil {
		v.formalTrack(st.Formal)
	}
	v.texts(sd)
	sents := v.revisions(sd)
	for _, is := range st.Validate.Issues {
		v.issue(st.ID, &is, sents)
	}
	v.work(sd)
	v.decisions(st)
	slices.SortStableFunc(v.Thread, func(a, b entry) int { return instant(a.At).Compare(instant(b.At)) })
	return v
}

// add puts one step in the statement's thread.
func (v *stmtView) add(e entry) { v.Thread = append(v.Thread, e) }

// formalTrack lays out the statement's formal texts and the kernel's
// verdict, and their steps in the thread.
func (v *stmtView) formalTrack(fm *model.Formal) {
	v.Formal = &formalView{System: fm.System, Theorem: fm.Theorem, Stage: string(fm.Stage), Statement: fm.Statement,
		ConfirmedBy: deref(fm.ConfirmedBy), ProofBy: deref(fm.ProofBy), Verdict: fm.Verdict}
	if fm.Proof != nil {
		v.Formal.Proof = *fm.Proof
	}
	v.Formal.OK = fm.Verdict != nil && fm.Verdict.OK
	v.add(entry{At: fm.FormalizedAt, Actor: deref(fm.FormalizedBy), What: "formalized in " + fm.System + " as theorem " + fm.Theorem})
	if fm.ConfirmedAt != nil {
		v.add(entry{At: *fm.ConfirmedAt, Actor: v.Formal.ConfirmedBy, What: "confirmed the formalization"})
	}
	if fm.ProofAt != nil {
		v.add(entry{At: *fm.ProofAt, Actor: v.Formal.ProofBy, What: "submitted the formal proof"})
	}
	if vd := fm.Verdict; vd != nil {
		what := "the kernel accepted the formal proof"
		if !vd.OK {
			what = "the kernel refused the formal proof: " + vd.Reason
		}
		v.add(entry{At: vd.At, Actor: vd.Actor, What: what})
	}
}

// texts sets the statement's premises, purpose, counterexample, level and
// dead ends.
func (v *stmtView) texts(sd *StatementData) {
	st := sd.Statement
	for _, p := range st.Premises {
		v.Premises = append(v.Premises, Inline(p))
	}
	if st.Purpose != nil {
		v.Purpose = Inline(*st.Purpose)
	}
	if st.Counterexample != nil {
		v.Counterexample = Markdown(*st.Counterexample)
	}
	v.Level = st.Level
	for i, d := range st.DeadEnds {
		dv := deadEndView{Number: d.Number, Level: d.Level, Approach: d.Approach(), Killed: Inline(sd.Killed[i])}
		if d.Lesson != nil {
			dv.Lesson = Inline(*d.Lesson)
		}
		v.DeadEnds = append(v.DeadEnds, dv)
	}
}

// revisions lays out the kept proof revisions in numbered sentences, and
// returns the sentences by their anchor.
func (v *stmtView) revisions(sd *StatementData) map[string]*sentView {
	sents := map[string]*sentView{}
	for i, r := range sd.Revisions {
		rv := &revView{ID: fmt.Sprintf("r-%s-%d", v.ID, r.Revision), N: r.Revision, Author: r.Author, At: r.At, Strategy: r.Strategy, Cause: sd.Causes[i]}
		for i, s := range model.Sentences(r.Text) {
			sv := &sentView{N: i + 1, Anchor: sentenceAnchor(v.ID, r.Revision, i+1), Source: s, HTML: Inline(s)}
			sents[sv.Anchor] = sv
			rv.Sentences = append(rv.Sentences, sv)
		}
		v.Revisions = append(v.Revisions, rv)
	}
	return sents
}

// issue puts an issue beside the sentence it cites (or with the formal
// texts it is about), and its step in the thread.
func (v *stmtView) issue(id string, is *model.Issue, sents map[string]*sentView) {
	iv := &issueView{N: is.IssueNumber, ID: fmt.Sprintf("i-%s-%d", id, is.IssueNumber),
		Anchor: sentenceAnchor(id, is.ProofRevision, is.Sentence), ErrorType: is.ErrorType, Severity: model.IssueSeverity(is), Actor: deref(is.Actor),
		At: is.CreatedAt, Quote: is.SentenceText, Round: is.Round, Revision: is.ProofRevision, Sentence: is.Sentence,
		Explanation: Markdown(is.Explanation), Open: slices.Contains(v.OpenIssues, is.IssueNumber)}
	if is.SuggestedFix != nil {
		iv.SuggestedFix = Markdown(*is.SuggestedFix)
	}
	if is.IssueTarget() != model.TargetProof && v.Formal != nil {
		// An issue on the formal track cites a line of a formal
		// text, not a sentence: it is shown with the formal texts.
		iv.Target = strings.ReplaceAll(is.IssueTarget(), "_", " ")
		v.Formal.Issues = append(v.Formal.Issues, iv)
		v.add(entry{At: is.CreatedAt, Actor: iv.Actor, Link: "#" + iv.ID,
			What: fmt.Sprintf("issue %d (%s) on the %s, line %d, round %d", is.IssueNumber, is.ErrorType, iv.Target, is.Sentence, is.Round)})
		return
	}
	link, body := "#"+iv.ID, template.HTML("")
	if sv := sents[iv.Anchor]; sv != nil {
		iv.Anchored = true
		sv.Issues = append(sv.Issues, iv)
	} else {
		// The revision it cites is not kept: show it in the thread.
		link, body = "", issueBody(iv)
	}
	v.add(entry{At: is.CreatedAt, Actor: iv.Actor, Link: link, Body: body,
		What: fmt.Sprintf("issue %d (%s, severity %s) on sentence %d of revision %d, round %d", is.IssueNumber, is.ErrorType, iv.Severity, is.Sentence, is.ProofRevision, is.Round)})
}

// work puts the proof revisions, the responses and the confirmations in
// the thread.
func (v *stmtView) work(sd *StatementData) {
	st := sd.Statement
	for i, r := range sd.Revisions {
		if r.At != "" {
			what := fmt.Sprintf("proof revision %d", r.Revision)
			if c := sd.Causes[i]; c != "" {
				what += " (" + c + ")"
			}
			v.add(entry{At: r.At, Actor: r.Author, Link: fmt.Sprintf("#r-%s-%d", st.ID, r.Revision), What: what})
		}
	}
	for _, r := range st.Validate.Responses {
		ns := r.IssuesAddressed
		if len(ns) == 0 {
			ns = []int{r.IssueAddressed}
		}
		what := fmt.Sprintf("response %d: %s answering issue %s", r.ResponseNumber, r.Type, joinInts(ns))
		if r.SubStatementID != "" {
			what += " with " + r.SubStatementID
		}
		if r.RejectedAt != nil {
			what += " (rejected at " + *r.RejectedAt + ")"
		}
		v.add(entry{At: r.CreatedAt, Actor: deref(r.Actor), What: what})
	}
	for _, c := range st.Validate.Confirmations {
		what := fmt.Sprintf("confirmed proof revision %d", c.ProofRevision)
		if c.Model != "" {
			what += " (model " + c.Model + ")" // verify_distinct: which models confirmed
		}
		v.add(entry{At: c.CreatedAt, Actor: deref(c.Actor), What: what})
	}
}

// decisions puts the proposed modification, the decisions on it, the
// refutation and the verification in the thread.
func (v *stmtView) decisions(st *model.Statement) {
	if m := st.ProposedModification; m != nil {
		v.add(entry{At: m.ProposedAt, Actor: deref(m.Actor), What: "proposed modification (" + m.Type + "), waiting for a decision",
			Body: claimBody(m.Claim, m.Premises, m.Rationale)})
	}
	for _, r := range st.ModificationHistory {
		v.add(entry{At: r.DecidedAt, Actor: deref(r.Actor), What: "decision: " + r.Decision + " " + r.Type,
			Body: template.HTML(string(claimBody(&r.ClaimBefore, r.PremisesBefore, "")) + string(claimBody(r.ClaimAfter, r.PremisesAfter, r.Rationale)) + string(reasonBody(r.Reason)))})
	}
	if r := st.Refutation; r != nil {
		v.add(entry{At: r.At, Actor: deref(r.Actor), What: "marked false (from " + string(r.Source) + ")", Body: v.Counterexample})
	}
	if st.VerifiedAt != nil {
		v.add(entry{At: *st.VerifiedAt, What: "verified: " + string(st.Status), Body: inlineOr(st.VerificationSummary)})
	}
}

// issueBody is an issue's explanation and suggested fix.
func issueBody(iv *issueView) template.HTML {
	h := string(iv.Explanation)
	if iv.SuggestedFix != "" {
		h += `<p class="fix">Suggested fix:</p>` + string(iv.SuggestedFix)
	}
	return template.HTML(h)
}

func claimBody(claim *string, premises []string, rationale string) template.HTML {
	var b strings.Builder
	if claim != nil {
		b.WriteString("<p>Claim: " + string(Inline(*claim)) + "</p>")
	}
	for _, p := range premises {
		b.WriteString("<p>Premise: " + string(Inline(p)) + "</p>")
	}
	if rationale != "" {
		b.WriteString(string(Markdown(rationale)))
	}
	return template.HTML(b.String())
}

func reasonBody(r *string) template.HTML {
	if r == nil {
		return ""
	}
	return template.HTML("<p>Reason: " + string(Inline(*r)) + "</p>")
}

func inlineOr(p *string) template.HTML {
	if p == nil {
		return ""
	}
	return Markdown(*p)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// debateView is one debate's transcript, rendered from loop.RenderDebate's
// Markdown.
type debateView struct {
	ID, Protocol, Status string
	HTML                 template.HTML
}

func debateViews(d *Data) []debateView {
	var out []debateView
	for _, db := range d.Debates {
		out = append(out, debateView{ID: db.ID, Protocol: db.Protocol, Status: string(db.Status), HTML: Markdown(string(loop.RenderDebate(db)))})
	}
	return out
}

// eventView is one line of the timeline.
type eventView struct {
	Seq                          int
	Time, Actor, Command, Holder string
	Changes                      []string
}

// maxTimeline bounds the timeline of one page: the most recent events are
// shown, and the page says how many it left out (`proofloop events` has
// them all).
const maxTimeline = 1000

func timeline(d *Data) (evs []eventView, left int) {
	from := max(0, len(d.Events)-maxTimeline)
	for _, ev := range d.Events[from:] {
		v := eventView{Seq: ev.Seq, Time: ev.Time, Actor: deref(ev.Actor), Command: ev.Command, Holder: deref(ev.LeaseHolder)}
		for _, c := range ev.Changes {
			before := "new"
			if c.Before != nil {
				before = string(*c.Before)
			}
			ch := fmt.Sprintf("%s: %s → %s", c.ID, before, c.After)
			if c.Deleted {
				ch = c.ID + ": deleted"
			}
			v.Changes = append(v.Changes, ch)
		}
		evs = append(evs, v)
	}
	slices.SortFunc(evs, func(a, b eventView) int { return cmp.Compare(b.Seq, a.Seq) }) // newest first
	return evs, from
}
