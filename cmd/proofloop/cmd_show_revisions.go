package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

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
		return nil, store.Errorf(store.CodeNotFound, "%s has no proof revision %d: %s", id, n, revisionRange(st.ProofRevision))
	}
	kept, err := s.ProofRevisions(id)
	if err != nil {
		return nil, err
	}
	if r := model.KeptRevision(kept, n); r != nil {
		return r, nil
	}
	if st.RevisionsKeptFrom == 0 || n < st.RevisionsKeptFrom {
		return nil, store.Errorf(store.CodeNotFound, "%s: revision %d was written before revisions were kept", id, n)
	}
	return nil, store.Errorf(store.CodeStoreDamaged, "%s: proof revision %d is not kept in %s", id, n, store.ProofsFile(id)).
		WithHint("run `proofloop doctor`")
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

// showRevision is show --proof-revision N: the kept text of revision N,
// numbered with --sentences as its checkers saw it.
func showRevision(s *store.Store, id string, d *store.Doc, n int, sentences bool) (shown, error) {
	r, err := keptRevision(s, id, d, n)
	if err != nil {
		return shown{}, err
	}
	obj := map[string]any{"id": id, "kind": d.Kind, "status": d.Status(), "revision": d.Revision(),
		"proof_revision": r, "current_proof_revision": d.Get("proof_revision").Int()}
	var buf bytes.Buffer
	who := "no actor"
	if r.Actor != nil {
		who = *r.Actor
	}
	cause := r.Cause
	if len(r.Issues) > 0 {
		cause += " of issue"
		if len(r.Issues) > 1 {
			cause += "s"
		}
		cause += " " + strings.Trim(fmt.Sprint(r.Issues), "[]")
	}
	fmt.Fprintf(&buf, "statement %s proof revision %d (%s, by %s, at %s)\n", id, r.Revision, cause, who, r.At)
	if sentences {
		obj["sentences"] = numbered(r.Text)
		for _, sn := range numbered(r.Text) {
			fmt.Fprintf(&buf, "[%d] %s\n", sn.Number, sn.Text)
		}
	} else {
		buf.WriteString(strings.TrimRight(r.Text, "\n"))
		buf.WriteByte('\n')
	}
	return shown{obj, buf.String()}, nil
}

// parseDiffRange parses --diff A..B.
func parseDiffRange(v string) (int, int, error) {
	a, b, ok := strings.Cut(v, "..")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || x < 1 || y < 1 {
		return 0, 0, store.Errorf(store.CodeUsage, "--diff takes two proof revisions as A..B, e.g. 1..3; got %q", v)
	}
	return x, y, nil
}

// showDiff is show --diff A..B: a unified diff of two kept revisions, one
// sentence per line, so that a hunk names the sentences that changed.
func showDiff(s *store.Store, id string, d *store.Doc, a, b int) (shown, error) {
	ra, err := keptRevision(s, id, d, a)
	if err != nil {
		return shown{}, err
	}
	rb, err := keptRevision(s, id, d, b)
	if err != nil {
		return shown{}, err
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
	obj := map[string]any{"id": id, "kind": d.Kind, "status": d.Status(), "revision": d.Revision(),
		"from": a, "to": b, "diff": string(out), "from_sentences": numbered(ra.Text), "to_sentences": numbered(rb.Text)}
	text := string(out)
	if len(out) == 0 {
		text = fmt.Sprintf("proof revisions %d and %d of %s have the same sentences\n", a, b, id)
	}
	return shown{obj, text}, nil
}

// addProved adds to a shown document what is derived at read time: whether
// it is fully proved (a problem: soundly solved) and what keeps it from
// being so, and a statement's open issues by severity. Plain output names
// them in the --sentences header; the document itself is printed as is.
func addProved(s *store.Store, id string, d *store.Doc, it *shown) error {
	li := &loop.Item{ID: id}
	if err := loop.Proved(s, []*loop.Item{li}); err != nil {
		return err
	}
	it.obj["fully_proved"] = li.FullyProved
	if !li.FullyProved {
		it.obj["not_proved"], it.obj["not_proved_status"] = li.NotProved, li.Proved.Status
		if li.Reopened {
			it.obj["reopened"] = true
		}
	}
	// The header names the verdict of a true statement only: any other is
	// not proved, for the reason its status gives.
	var notes []string
	if d.Status() == model.StatementTrue {
		notes = append(notes, "fully proved")
		if !li.FullyProved {
			notes[0] = "not fully proved: " + li.Proved.Why()
		}
	}
	if d.Kind == model.KindStatement {
		st, err := d.Statement()
		if err != nil {
			return store.Errorf(store.CodeStoreDamaged, "%s", err)
		}
		bySev := st.OpenBySeverity()
		it.obj["open_issues"] = bySev
		if n := bySev[model.SeverityCritical] + bySev[model.SeverityGap]; n > 0 {
			notes = append(notes, fmt.Sprintf("%s open: %d critical, %d gap", model.Count(n, "issue"), bySev[model.SeverityCritical], bySev[model.SeverityGap]))
		}
		if h, rest, ok := strings.Cut(it.text, ")\n"); ok && len(notes) > 0 && strings.HasPrefix(it.text, "statement ") {
			it.text = h + "; " + strings.Join(notes, "; ") + ")\n" + rest
		}
	}
	return nil
}
