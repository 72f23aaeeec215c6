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
	d, err := s.Read(id)
	if err != nil {
		return nil, err
	}
	if d.Kind != model.KindProblem {
		return nil, store.Errorf(store.CodeInvalidInput, "--problem must name a problem; %s is a %s", id, d.Kind).
			WithHint("`proofloop status` lists the problems")
	}
	p, err := d.Problem()
	if err != nil {
		return nil, err
	}
	it := &Item{ID: id}
	if err := Proved(s, []*Item{it}); err != nil {
		return nil, err
	}
	if !it.FullyProved && !draft {
		why := it.Why()
		if p.Status != model.ProblemSolved {
			why = "it is " + string(p.Status)
		}
		return nil, store.Errorf(store.CodeGuardFailed, "%s is not soundly solved (%s): there is no finished proof to export", id, why).
			WithHint("drive it to solved (`proofloop run --problem " + id + "`), or export what there is with --draft, which marks every unproved step")
	}
	doc := &ProofDoc{Problem: p, Draft: draft}
	seen := map[string]bool{}
	var visit func(id string) error
	visit = func(sid string) error {
		if seen[sid] {
			return nil
		}
		seen[sid] = true
		sd, err := s.Read(sid)
		if err != nil {
			return err
		}
		st, err := sd.Statement()
		if err != nil {
			return err
		}
		var uses []string
		for _, sub := range st.SubStatements {
			sub2, err := s.Read(sub)
			if err != nil {
				return err
			}
			if sub2.Status() == model.StatementFalse {
				continue // a refuted lemma is no step of the proof
			}
			if err := visit(sub); err != nil {
				return err
			}
			uses = append(uses, sub)
		}
		sit := &Item{ID: sid}
		if err := Proved(s, []*Item{sit}); err != nil {
			return err
		}
		doc.Statements = append(doc.Statements, ExportedStatement{Statement: st, Uses: uses, Proved: sit.FullyProved})
		return nil
	}
	// A preliminary sub-problem's proof comes first, under its objective;
	// then the problem's own.
	for _, sub := range p.Preliminaries {
		sp, err := s.Read(sub)
		if err != nil {
			return nil, err
		}
		pr, err := sp.Problem()
		if err != nil || pr.ResolvedBy == nil || *pr.ResolvedBy == "" {
			continue
		}
		start := len(doc.Statements)
		if err := visit(*pr.ResolvedBy); err != nil {
			return nil, err
		}
		if start < len(doc.Statements) {
			doc.Statements[start].Opens = pr
		}
	}
	start := len(doc.Statements)
	roots := p.Progresses
	if p.ResolvedBy != nil && *p.ResolvedBy != "" {
		roots = []string{*p.ResolvedBy}
	}
	for _, r := range roots {
		if err := visit(r); err != nil {
			return nil, err
		}
	}
	if start > 0 && start < len(doc.Statements) {
		doc.Statements[start].Main = true
	}
	if p.Status == model.ProblemSolved {
		if doc.Effort, err = ReadEffort(context.Background(), s, p); err != nil {
			return nil, err
		}
	}
	return doc, nil
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
