package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// ProofDoc is a problem's finished proof as one document: the problem, its
// resolution, and every statement it rests on in dependency order (a
// statement after the statements it uses), each with its accepted proof
// and its verification record. ExportProof builds it; WriteTeX and
// WriteMarkdown render it. Claims and proofs are copied byte for byte, so
// their math passes through untouched.
type ProofDoc struct {
	Problem    *model.Problem
	Draft      bool
	Statements []ExportedStatement // in dependency order
	// Effort is the account of what the problem took, once it is solved.
	Effort *Effort
	// Grade is what stands behind the problem's proof (model.Grade);
	// AgentsAlone are the statements whose truth rests on the agents'
	// word alone: true on it and not covered by a kernel-checked
	// statement above them, whose formal proof stands on its own.
	Grade       model.Grade
	AgentsAlone []string
}

// ExportedStatement is one statement of the export.
type ExportedStatement struct {
	*model.Statement
	Uses   []string // the statements its proof rests on, each exported before it
	Proved bool     // true and fully proved; a draft marks the others
	// Opens is the preliminary sub-problem whose proof starts with this
	// statement, introduced (its objective, its resolution) before it;
	// Main marks the first statement of the problem's own proof when
	// preliminaries came before, so a reader sees where they end.
	Opens *model.Problem
	Main  bool
}

// ExportProof gathers the proof of root problem id. A problem that is not
// soundly solved is refused (guard_failed) unless draft.
func ExportProof(s *store.Store, id string, draft bool) (*ProofDoc, error) {
	p, it, err := exportable(s, id, draft)
	if err != nil {
		return nil, err
	}
	g := &gathering{s: s, doc: &ProofDoc{Problem: p, Draft: draft, Grade: it.Grade},
		seen: map[string]bool{}, covered: map[string]bool{}, relied: map[string]bool{}}
	if err := g.preliminaries(p); err != nil {
		return nil, err
	}
	if err := g.own(p); err != nil {
		return nil, err
	}
	doc := g.doc
	for _, st := range doc.Statements {
		if g.relied[st.ID] && st.Status == model.StatementTrue && !st.KernelChecked() && !g.covered[st.ID] {
			doc.AgentsAlone = append(doc.AgentsAlone, st.ID)
		}
	}
	if p.Status == model.ProblemSolved {
		if doc.Effort, err = ReadEffort(context.Background(), s, p); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// exportable reads problem id and whether it is proved, refusing a
// problem that is not soundly solved unless draft.
func exportable(s *store.Store, id string, draft bool) (*model.Problem, *Item, error) {
	d, err := s.Read(id)
	if err != nil {
		return nil, nil, err
	}
	if d.Kind != model.KindProblem {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "--problem must name a problem; %s is a %s", id, d.Kind).
			WithHint("`proofloop status` lists the problems")
	}
	p, err := d.Problem()
	if err != nil {
		return nil, nil, err
	}
	it := &Item{ID: id}
	if err := Proved(s, []*Item{it}); err != nil {
		return nil, nil, err
	}
	if !it.FullyProved && !draft {
		why := it.Why()
		if p.Status != model.ProblemSolved {
			why = "it is " + string(p.Status)
		}
		return nil, nil, store.Errorf(store.CodeGuardFailed, "%s is not soundly solved (%s): there is no finished proof to export", id, why).
			WithHint("drive it to solved (`proofloop run --problem " + id + "`), or export what there is with --draft, which marks every unproved step")
	}
	return p, it, nil
}

// gathering is the export's walk over the statements a proof rests on:
// covered are those below a kernel-checked statement; relied, what the
// problem's key statement rests on (a preliminary sub-problem's proof is
// shown first, and the key does not rest on it).
type gathering struct {
	s                     *store.Store
	doc                   *ProofDoc
	seen, covered, relied map[string]bool
}

// preliminaries exports each solved preliminary sub-problem's proof first,
// under its objective.
func (g *gathering) preliminaries(p *model.Problem) error {
	for _, sub := range p.Preliminaries {
		sp, err := g.s.Read(sub)
		if err != nil {
			return err
		}
		pr, err := sp.Problem()
		if err != nil || pr.ResolvedBy == nil || *pr.ResolvedBy == "" {
			continue
		}
		start := len(g.doc.Statements)
		if err := g.visit(*pr.ResolvedBy, false, false); err != nil {
			return err
		}
		if start < len(g.doc.Statements) {
			g.doc.Statements[start].Opens = pr
		}
	}
	return nil
}

// own exports the problem's own proof: from the statement that resolved
// it, else from its progresses.
func (g *gathering) own(p *model.Problem) error {
	start := len(g.doc.Statements)
	roots := p.Progresses
	if p.ResolvedBy != nil && *p.ResolvedBy != "" {
		roots = []string{*p.ResolvedBy}
	}
	for _, r := range roots {
		if err := g.visit(r, false, true); err != nil {
			return err
		}
	}
	if start > 0 && start < len(g.doc.Statements) {
		g.doc.Statements[start].Main = true
	}
	return nil
}

// visit exports statement sid after the sub-statements it uses (a refuted
// one is no step of the proof).
func (g *gathering) visit(sid string, underKernel, counts bool) error {
	if underKernel {
		g.covered[sid] = true
	}
	if counts {
		g.relied[sid] = true
	}
	if g.seen[sid] {
		return nil
	}
	g.seen[sid] = true
	sd, err := g.s.Read(sid)
	if err != nil {
		return err
	}
	st, err := sd.Statement()
	if err != nil {
		return err
	}
	var uses []string
	for _, sub := range st.SubStatements {
		sub2, err := g.s.Read(sub)
		if err != nil {
			return err
		}
		if sub2.Status() == model.StatementFalse {
			continue // a refuted lemma is no step of the proof
		}
		if err := g.visit(sub, underKernel || st.KernelChecked(), counts); err != nil {
			return err
		}
		uses = append(uses, sub)
	}
	sit := &Item{ID: sid}
	if err := Proved(g.s, []*Item{sit}); err != nil {
		return err
	}
	g.doc.Statements = append(g.doc.Statements, ExportedStatement{Statement: st, Uses: uses, Proved: sit.FullyProved})
	return nil
}

// evidence says in a sentence what stands behind the problem's proof ("" for
// nothing: a draft of an unsolved problem), and lists the statements that
// rest on the agents' word alone; each renderer writes their references.
func (d *ProofDoc) evidence() (string, []string) {
	if d.Grade == "" {
		return "", nil
	}
	s := "Evidence: " + d.Grade.ProblemText() + "."
	if d.Grade == model.GradeKernel {
		s += " The key claim's formal proof was checked by a proof assistant's kernel, run by the engine, against a formal statement a checker confirmed; the claims below it are shown as the agents proved them."
	}
	return s, d.AgentsAlone
}

// kernelRecord is a statement's formal record in words ("" without one).
func kernelRecord(st *model.Statement) string {
	fm := st.Formal
	if fm == nil {
		return ""
	}
	s := fmt.Sprintf("Formal statement (%s, theorem %s) at stage %s", fm.System, fm.Theorem, fm.Stage)
	if fm.ConfirmedBy != nil {
		s += ", confirmed by " + *fm.ConfirmedBy
	}
	if v := fm.Verdict; v != nil && v.OK {
		s += fmt.Sprintf("; %s accepted its formal proof at %s (axioms: %s)", v.Actor, v.At, orNone(v.Axioms))
	} else if v != nil {
		s += fmt.Sprintf("; %s refused its formal proof: %s", v.Actor, v.Reason)
	}
	return s + "."
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// label is a statement's label in the export.
func label(id string) string { return "st:" + id }

// byID finds an exported statement.
func (d *ProofDoc) number(id string) int {
	for i, st := range d.Statements {
		if st.ID == id {
			return i + 1
		}
	}
	return 0
}

// confirmers are the checkers of a statement's accepted proof revision,
// each with its model when it had one.
func confirmers(st *model.Statement) []string {
	var out []string
	for _, c := range st.Validate.Confirmations {
		if c.ProofRevision != st.ProofRevision {
			continue
		}
		who := "?"
		if c.Actor != nil {
			who = *c.Actor
		}
		if c.Model != "" {
			who += " (" + c.Model + ")"
		}
		if !slices.Contains(out, who) {
			out = append(out, who)
		}
	}
	return out
}

// answer says how an issue was answered: by which responses, or that it
// was superseded, withdrawn, or is still open.
func answer(st *model.Statement, is model.Issue) string {
	var out []string
	for _, r := range st.Validate.Responses {
		if slices.Contains(r.IssuesAddressed, is.IssueNumber) || r.IssueAddressed == is.IssueNumber {
			s := fmt.Sprintf("response %d (%s", r.ResponseNumber, r.Type)
			if r.SubStatementID != "" {
				s += ", " + r.SubStatementID
			}
			if r.ChangeDescription != "" {
				s += ": " + r.ChangeDescription
			}
			out = append(out, s+")")
		}
	}
	switch {
	case is.WithdrawnAt != nil:
		out = append(out, "withdrawn after a dispute")
	case is.SupersededAt != nil:
		why := "superseded by a new proof"
		for _, d := range st.DeadEnds {
			if slices.Contains(d.Issues, is.IssueNumber) {
				why = fmt.Sprintf("superseded: its proof became dead end %d", d.Number)
			}
		}
		out = append(out, why)
	case len(out) == 0:
		out = append(out, "open")
	}
	return strings.Join(out, "; ")
}

func statusWord(st ExportedStatement) string {
	if st.Proved {
		return ""
	}
	return fmt.Sprintf("unproved: %s", st.Status)
}
