package skills

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// NewProblemParams are the inputs of new-problem.
type NewProblemParams struct {
	Name       string
	Objective  string
	Hypothesis []string
}

// NewProblem creates the root problem prob_<name>. It is not one of the
// eleven skills: it is how a project starts.
func NewProblem(s *store.Store, opts store.TxOptions, p NewProblemParams) (*Result, error) {
	if p.Name == "" {
		return nil, store.Errorf(store.CodeInvalidInput, "--name is required").WithHint("e.g. --name goldbach_weak (a-z, 0-9 and _)")
	}
	if err := model.CheckName(p.Name); err != nil {
		return nil, &store.Error{Code: store.CodeInvalidInput, Msg: "bad problem name", Err: err,
			Hint: fmt.Sprintf("e.g. --name %s", suggestName(p.Name))}
	}
	if strings.TrimSpace(p.Objective) == "" {
		return nil, store.Errorf(store.CodeInvalidInput, "--objective is required and must not be empty").WithHint("state what the problem asks to show")
	}
	id := model.RootProblemID(p.Name)
	path := store.DocPath(model.KindProblem, id)
	opts.Target = id
	var doc *store.Doc
	_, err := s.Update(opts, func(tx *store.Tx) error {
		// A name that is taken stays taken (ids are never reused), so this
		// is a refusal (exit 4), not a conflict that a retry could get past.
		if ok, err := tx.Exists(id); err != nil {
			return err
		} else if ok {
			return store.Errorf(store.CodeGuardFailed, "problem %s already exists: %s", id, filepath.Join(s.Dir, path)).
				WithHint(fmt.Sprintf("choose another --name; `proofloop show %s` shows the existing problem", id))
		}
		var err error
		doc, err = tx.Create(id, newProblem(p.Objective, nonNil(p.Hypothesis), nil, nil))
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Result{ID: id, Status: model.ProblemPending, Revision: doc.Revision(),
		Created: []Created{{id, path}},
		Text:    fmt.Sprintf("Created problem %s (pending) at %s.", id, path)}, nil
}

// newProblem is the initial content of a problem document.
func newProblem(objective string, hypothesis []string, parent, rationale *string) *model.Problem {
	return &model.Problem{Status: model.ProblemPending, Objective: objective, Hypothesis: hypothesis,
		Parent: parent, Preliminaries: []string{}, Progresses: []string{}, Rationale: rationale}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// suggestName turns a free-form name into one new-problem accepts.
func suggestName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return "my_problem"
	}
	return out
}
