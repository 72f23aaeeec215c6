package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// ShowQuery is what show asks of each document: the document as it was at
// a point of the event log (At), or one field of it (Field).
type ShowQuery struct {
	At    *store.Point
	Field string
}

// Shown is one document as show reads it, with what is derived at read
// time.
type Shown struct {
	ID  string
	Doc *store.Doc
	// Step is the event of the document's last change by the query's At;
	// nil for the current document.
	Step *store.Step
	// FieldRaw and FieldText are the value of the query's Field, as JSON
	// and as text.
	FieldRaw  json.RawMessage
	FieldText string
	// Proved and OpenBySeverity are derived (nothing of them is stored),
	// and only for the current whole document: whether it is fully proved
	// is a fact of now, not of --at. OpenBySeverity is a statement's.
	Proved         *model.Proved
	OpenBySeverity map[string]int
}

// Show reads the documents refs name, each in full before the next, so a
// missing one fails the whole call before anything is shown.
func Show(s *store.Store, refs []string, q ShowQuery) ([]Shown, error) {
	out := make([]Shown, 0, len(refs))
	for _, ref := range refs {
		id, _, err := s.ParseRef(ref)
		if err != nil {
			return nil, err
		}
		sh := Shown{ID: id}
		if q.At != nil {
			sh.Doc, sh.Step, err = s.At(id, *q.At)
		} else {
			sh.Doc, err = s.Read(id)
		}
		if err != nil {
			return nil, err
		}
		if q.Field != "" {
			v := sh.Doc.Get(q.Field)
			if !v.Exists() {
				return nil, store.Errorf(store.CodeNotFound, "%s has no field %s", id, q.Field).WithHint(fieldHint(sh.Doc, q.Field))
			}
			sh.FieldRaw, sh.FieldText = json.RawMessage(v.Raw), v.String()
		} else if sh.Step == nil {
			if err := derive(s, &sh); err != nil {
				return nil, err
			}
		}
		out = append(out, sh)
	}
	return out, nil
}

// derive fills in what is derived at read time: whether the document is
// fully proved (a problem: soundly solved) and what keeps it from being
// so, and a statement's open issues by severity.
func derive(s *store.Store, sh *Shown) error {
	li := &Item{ID: sh.ID}
	if err := Proved(s, []*Item{li}); err != nil {
		return err
	}
	sh.Proved = li.Proved
	if sh.Doc.Kind == model.KindStatement {
		st, err := sh.Doc.Statement()
		if err != nil {
			return store.Errorf(store.CodeStoreDamaged, "%s", err)
		}
		sh.OpenBySeverity = st.OpenBySeverity()
	}
	return nil
}

// KeptRevision is one kept proof revision of a statement, beside the
// statement as it is now.
type KeptRevision struct {
	ID  string
	Doc *store.Doc
	*model.ProofRevision
}

// ProofRevision reads kept proof revision n of the statement ref names.
func ProofRevision(s *store.Store, ref string, n int) (*KeptRevision, error) {
	id, d, err := readRef(s, ref)
	if err != nil {
		return nil, err
	}
	r, err := keptRevision(s, id, d, n)
	if err != nil {
		return nil, err
	}
	return &KeptRevision{id, d, r}, nil
}

// ProofDiff is two kept proof revisions of a statement and their unified
// diff, one sentence per line, so that a hunk names the sentences that
// changed. Diff is empty when the two have the same sentences.
type ProofDiff struct {
	ID       string
	Doc      *store.Doc
	From, To *model.ProofRevision
	Diff     []byte
}

// DiffProofRevisions diffs kept proof revisions a and b of the statement
// ref names.
func DiffProofRevisions(s *store.Store, ref string, a, b int) (*ProofDiff, error) {
	id, d, err := readRef(s, ref)
	if err != nil {
		return nil, err
	}
	ra, err := keptRevision(s, id, d, a)
	if err != nil {
		return nil, err
	}
	rb, err := keptRevision(s, id, d, b)
	if err != nil {
		return nil, err
	}
	lines := func(text string) []byte {
		var buf bytes.Buffer
		for _, sn := range model.Sentences(text) {
			buf.WriteString(strings.Join(strings.Fields(sn), " "))
			buf.WriteByte('\n')
		}
		return buf.Bytes()
	}
	out := diff.Diff(fmt.Sprintf("%s@%d", id, a), lines(ra.Text), fmt.Sprintf("%s@%d", id, b), lines(rb.Text))
	return &ProofDiff{ID: id, Doc: d, From: ra, To: rb, Diff: out}, nil
}

func readRef(s *store.Store, ref string) (string, *store.Doc, error) {
	id, _, err := s.ParseRef(ref)
	if err != nil {
		return "", nil, err
	}
	d, err := s.Read(id)
	return id, d, err
}

// keptRevision reads revision n of a statement's kept proof revisions. A
// revision written before revisions were kept, or one that does not exist,
// is not found, with a message that says which.
func keptRevision(s *store.Store, id string, d *store.Doc, n int) (*model.ProofRevision, error) {
	if d.Kind != model.KindStatement {
		return nil, store.Errorf(store.CodeInvalidInput, "%s is a %s; proof revisions belong to statements", id, d.Kind)
	}
	st, err := d.Statement()
	if err != nil {
		return nil, store.Errorf(store.CodeStoreDamaged, "%s", err)
	}
	if n < 1 {
		return nil, store.Errorf(store.CodeUsage, "--proof-revision takes a revision number from 1, not %d: %s", n, revisionRange(st.ProofRevision)).
			WithHint(fmt.Sprintf("e.g. proofloop show %s --proof-revision 1", id))
	}
	if n > st.ProofRevision {
		return nil, store.Errorf(store.CodeNotFound, "%s has no proof revision %d: %s", id, n, revisionRange(st.ProofRevision)).
			WithHint(keptHint(id, st))
	}
	kept, err := s.ProofRevisions(id)
	if err != nil {
		return nil, err
	}
	if r := model.KeptRevision(kept, n); r != nil {
		return r, nil
	}
	if st.RevisionsKeptFrom == 0 || n < st.RevisionsKeptFrom {
		return nil, store.Errorf(store.CodeNotFound, "%s: revision %d was written before revisions were kept", id, n).
			WithHint(keptHint(id, st))
	}
	return nil, store.Errorf(store.CodeStoreDamaged, "%s: proof revision %d is not kept in %s", id, n, store.ProofsFile(id)).
		WithHint("run `proofloop doctor`")
}

// fieldHint names the fields of d nearest to field (a path's first part),
// then all of its top-level fields.
func fieldHint(d *store.Doc, field string) string {
	var keys []string
	for k := range d.Get("@this").Map() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	first, rest, _ := strings.Cut(field, ".")
	hint := "--field takes a field of " + d.ID + " (a dotted path for a nested one): " + strings.Join(keys, ", ")
	if near := model.Nearest(first, keys, 2); len(near) > 0 {
		if rest != "" {
			for i := range near {
				near[i] += "." + rest
			}
		}
		hint = "did you mean --field " + strings.Join(near, " or --field ") + "? (" + hint + ")"
	}
	return hint
}

// keptHint names the proof revisions of st that show can read (those kept,
// up to the latest) and how to read them.
func keptHint(id string, st *model.Statement) string {
	hi := st.ProofRevision
	if hi == 0 {
		return fmt.Sprintf("%s has no proof yet: `proofloop show %s` shows the statement", id, id)
	}
	lo := st.RevisionsKeptFrom
	switch {
	case lo == 0:
		return fmt.Sprintf("%s was written before revisions were kept: `proofloop show %s` shows its proof as it is now", id, id)
	case lo >= hi:
		return fmt.Sprintf("only revision %d is kept: `proofloop show %s --proof-revision %d`", hi, id, hi)
	}
	return fmt.Sprintf("the kept revisions are %d to %d: `proofloop show %s --proof-revision %d` for the latest, `proofloop show %s --diff %d..%d` for what changed", lo, hi, id, hi, id, lo, hi)
}

func revisionRange(n int) string {
	switch n {
	case 0:
		return "it has no proof yet"
	case 1:
		return "its only proof revision is 1"
	}
	return fmt.Sprintf("its proof revisions are 1 to %d", n)
}
