package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// showRevisions is show --proof-revision N or --diff A..B, on one statement.
// revGiven says --proof-revision was given: 0 is refused, not taken for
// "no revision asked".
func (a *app) showRevisions(s *store.Store, args []string, revGiven bool, n int, diffRange string, sentences bool, field string) error {
	switch {
	case len(args) != 1:
		return store.Errorf(store.CodeUsage, "--proof-revision and --diff take one statement id, not %d", len(args))
	case revGiven && diffRange != "":
		return store.Errorf(store.CodeUsage, "give --proof-revision or --diff, not both")
	case field != "":
		return store.Errorf(store.CodeUsage, "--field reads the current document; it does not go with --proof-revision or --diff")
	case diffRange != "" && sentences:
		return store.Errorf(store.CodeUsage, "--diff already prints one sentence per line; drop --sentences")
	}
	var it shown
	if diffRange != "" {
		from, to, err := parseDiffRange(diffRange)
		if err != nil {
			return err
		}
		pd, err := loop.DiffProofRevisions(s, args[0], from, to)
		if err != nil {
			return err
		}
		it = renderDiff(pd)
	} else {
		r, err := loop.ProofRevision(s, args[0], n)
		if err != nil {
			return err
		}
		it = renderRevision(r, sentences)
	}
	if a.json {
		it.obj["ok"], it.obj["command"] = true, "show"
		return a.writeJSON(it.obj)
	}
	fmt.Fprint(a.stdout, it.text)
	return nil
}

// renderRevision renders show --proof-revision N: the kept text of
// revision N, numbered with --sentences as its checkers saw it.
func renderRevision(r *loop.KeptRevision, sentences bool) shown {
	d := r.Doc
	obj := map[string]any{"id": r.ID, "kind": d.Kind, "status": d.Status(), "revision": d.Revision(),
		"proof_revision": r.ProofRevision, "current_proof_revision": d.Get("proof_revision").Int()}
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
	fmt.Fprintf(&buf, "statement %s proof revision %d (%s, by %s, at %s)\n", r.ID, r.Revision, cause, who, r.At)
	if sentences {
		obj["sentences"] = numbered(r.Text)
		for _, sn := range numbered(r.Text) {
			fmt.Fprintf(&buf, "[%d] %s\n", sn.Number, sn.Text)
		}
	} else {
		buf.WriteString(strings.TrimRight(r.Text, "\n"))
		buf.WriteByte('\n')
	}
	return shown{obj, buf.String()}
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

// renderDiff renders show --diff A..B.
func renderDiff(pd *loop.ProofDiff) shown {
	d, a, b := pd.Doc, pd.From.Revision, pd.To.Revision
	obj := map[string]any{"id": pd.ID, "kind": d.Kind, "status": d.Status(), "revision": d.Revision(),
		"from": a, "to": b, "diff": string(pd.Diff), "from_sentences": numbered(pd.From.Text), "to_sentences": numbered(pd.To.Text)}
	text := string(pd.Diff)
	if len(pd.Diff) == 0 {
		text = fmt.Sprintf("proof revisions %d and %d of %s have the same sentences\n", a, b, pd.ID)
	}
	return shown{obj, text}
}
