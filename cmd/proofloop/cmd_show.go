package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) showCommand() *cobra.Command {
	var sentences bool
	var field, at, diffRange string
	var proofRevision int
	c := &cobra.Command{
		Use:   "show ID... [--sentences] [--field PATH] [--at SEQ|TIME] [--proof-revision N | --diff A..B]",
		Short: "Print problems or statements; --sentences numbers the proof as checkers cite it",
		Long: `Print problems or statements.

With several ids, every one is read before anything is printed, so a missing
id fails the whole command (exit 3) without partial output. Plain output
separates the documents with a blank line; --json prints
{"ok":true,"command":"show","items":[...]}, one object per id in the order
given, each shaped like the single-id output without "ok" and "command".

--at SEQ|TIME shows a document as it was then (after event SEQ, or at an RFC
3339 time, or at the end of a date), rebuilt from the patches of the event
log; --json adds "at" and "seq" (the event of its last change by then).

Every proof revision is kept (proofs/<id>.jsonl). With one statement id,
--proof-revision N prints revision N (--sentences numbers it as its checkers
saw it), and --diff A..B prints a unified diff of revisions A and B, one
sentence per line. A revision written before revisions were kept is not
found (exit 3), and show says so.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return store.Errorf(store.CodeUsage, "show takes at least one document id").
					WithHint("e.g. proofloop show stmt_example_wrap prob_example")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(func(s *store.Store) error {
				if revGiven := cmd.Flags().Changed("proof-revision"); revGiven || diffRange != "" {
					if at != "" {
						return store.Errorf(store.CodeUsage, "--at and --proof-revision/--diff do not go together: a kept revision is the same at any time")
					}
					return a.showRevisions(s, args, revGiven, proofRevision, diffRange, sentences, field)
				}
				q := loop.ShowQuery{Field: field}
				if at != "" {
					p, err := store.ParsePoint(at)
					if err != nil {
						return err
					}
					q.At = &p
				}
				docs, err := loop.Show(s, args, q)
				if err != nil {
					return err
				}
				items := make([]shown, len(docs))
				for i, sh := range docs {
					items[i] = renderShown(sh, q, sentences)
				}
				return a.writeShown(items)
			})
		},
	}
	c.Flags().BoolVar(&sentences, "sentences", false, "number the proof's sentences, as checkers cite them")
	c.Flags().StringVar(&at, "at", "", "show the document as it was at `SEQ|TIME`, rebuilt from the event log")
	c.Flags().IntVar(&proofRevision, "proof-revision", 0, "print that kept proof revision of one statement (with --sentences, numbered)")
	c.Flags().StringVar(&diffRange, "diff", "", "print a unified diff of two kept proof revisions A..B of one statement, one sentence per line")
	c.Flags().StringVar(&field, "field", "", "print one field, e.g. status or validate.issues.0.sentence (a gjson path; # counts a list: validate.issues.#)")
	return c
}

// shown is one document as show prints it: obj for --json, text otherwise.
type shown struct {
	obj  map[string]any
	text string
}

// writeShown prints the documents: one JSON object, or the texts
// separated by a blank line.
func (a *app) writeShown(items []shown) error {
	if a.json {
		if len(items) == 1 {
			out := items[0].obj
			out["ok"], out["command"] = true, "show"
			return a.writeJSON(out)
		}
		objs := make([]map[string]any, len(items))
		for i, it := range items {
			objs[i] = it.obj
		}
		return a.writeJSON(map[string]any{"ok": true, "command": "show", "items": objs})
	}
	for i, it := range items {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprint(a.stdout, it.text)
	}
	return nil
}

// renderShown renders one document that loop.Show read, with its derived
// facts: --json fields, and with --sentences notes in a statement's header.
func renderShown(sh loop.Shown, q loop.ShowQuery, sentences bool) shown {
	id, d := sh.ID, sh.Doc
	if q.Field != "" {
		obj := map[string]any{"id": id, "field": q.Field, "value": sh.FieldRaw}
		if sh.Step != nil {
			obj["at"], obj["seq"] = q.At.String(), sh.Step.Event.Seq
		}
		return shown{obj, sh.FieldText + "\n"}
	}
	proof := d.Get("proof").String()
	obj := map[string]any{"id": id, "kind": d.Kind, "status": d.Status(), "revision": d.Revision(), "document": json.RawMessage(d.Raw)}
	if sentences {
		obj["sentences"] = numbered(proof)
	}
	var buf bytes.Buffer
	if sh.Step != nil {
		obj["at"], obj["seq"] = q.At.String(), sh.Step.Event.Seq
		fmt.Fprintf(&buf, "%s as of %s (its last change by then: seq %d at %s, revision %d)\n", id, q.At, sh.Step.Event.Seq, sh.Step.Event.Time, sh.Step.Change.Revision)
	}
	notes := provedNotes(sh, obj)
	switch {
	case !sentences:
		json.Indent(&buf, bytes.TrimSpace(d.Raw), "", "  ")
		buf.WriteByte('\n')
	case d.Kind == model.KindProblem:
		// A problem has an objective, not a proof: the statements in its
		// progresses carry the proofs.
		fmt.Fprintf(&buf, "problem %s (%s, revision %d) has no proof: --sentences numbers a statement's proof, such as one in its progresses.\n", id, d.Status(), d.Revision())
	default:
		fmt.Fprintf(&buf, "%s %s (%s, revision %d, proof revision %d", d.Kind, id, d.Status(), d.Revision(), d.Get("proof_revision").Int())
		if d.Kind == model.KindStatement && len(notes) > 0 {
			buf.WriteString("; " + strings.Join(notes, "; "))
		}
		buf.WriteString(")\n")
		for _, sn := range numbered(proof) {
			fmt.Fprintf(&buf, "[%d] %s\n", sn.Number, sn.Text)
		}
	}
	return shown{obj, buf.String()}
}

// provedNotes adds the derived facts loop.Show found to obj and returns
// the notes a statement's --sentences header names: the verdict of a true
// statement (any other is not proved, for the reason its status gives)
// and its open issues by severity.
func provedNotes(sh loop.Shown, obj map[string]any) []string {
	pr := sh.Proved
	if pr == nil {
		return nil
	}
	obj["fully_proved"] = pr.FullyProved
	if !pr.FullyProved {
		obj["not_proved"], obj["not_proved_status"] = pr.NotProved, pr.Status
		if pr.Reopened {
			obj["reopened"] = true
		}
	}
	var notes []string
	if sh.Doc.Status() == model.StatementTrue {
		notes = append(notes, "fully proved")
		if !pr.FullyProved {
			notes[0] = "not fully proved: " + pr.Why()
		}
	}
	if sh.Doc.Kind == model.KindStatement {
		bySev := sh.OpenBySeverity
		obj["open_issues"] = bySev
		if n := bySev[model.SeverityCritical] + bySev[model.SeverityGap]; n > 0 {
			notes = append(notes, fmt.Sprintf("%s open: %d critical, %d gap", model.Count(n, "issue"), bySev[model.SeverityCritical], bySev[model.SeverityGap]))
		}
	}
	return notes
}

type sentence struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

func numbered(proof string) []sentence {
	out := []sentence{}
	for i, t := range model.Sentences(proof) {
		out = append(out, sentence{i + 1, t})
	}
	return out
}
