package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

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
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			if revGiven := cmd.Flags().Changed("proof-revision"); revGiven || diffRange != "" {
				if at != "" {
					return store.Errorf(store.CodeUsage, "--at and --proof-revision/--diff do not go together: a kept revision is the same at any time")
				}
				return a.showRevisions(s, args, revGiven, proofRevision, diffRange, sentences, field)
			}
			var point *store.Point
			if at != "" {
				p, err := store.ParsePoint(at)
				if err != nil {
					return err
				}
				point = &p
			}
			items := make([]shown, 0, len(args))
			for _, arg := range args {
				id, _, err := s.ParseRef(arg)
				if err != nil {
					return err
				}
				var d *store.Doc
				var step *store.Step
				if point != nil {
					d, step, err = s.At(id, *point)
				} else {
					d, err = s.Read(id)
				}
				if err != nil {
					return err
				}
				it, err := showDoc(id, d, sentences, field)
				if err != nil {
					return err
				}
				if step != nil {
					it.obj["at"], it.obj["seq"] = point.String(), step.Event.Seq
				}
				if step != nil && field == "" {
					it.text = fmt.Sprintf("%s as of %s (its last change by then: seq %d at %s, revision %d)\n", id, point, step.Event.Seq, step.Event.Time, step.Change.Revision) + it.text
				}
				// Whether it is fully proved is a fact of now, not of --at.
				if step == nil && field == "" {
					if err := addProved(s, id, d, &it); err != nil {
						return err
					}
				}
				items = append(items, it)
			}
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
		},
	}
	c.Flags().BoolVar(&sentences, "sentences", false, "number the proof's sentences, as checkers cite them")
	c.Flags().StringVar(&at, "at", "", "show the document as it was at `SEQ|TIME`, rebuilt from the event log")
	c.Flags().IntVar(&proofRevision, "proof-revision", 0, "print that kept proof revision of one statement (with --sentences, numbered)")
	c.Flags().StringVar(&diffRange, "diff", "", "print a unified diff of two kept proof revisions A..B of one statement, one sentence per line")
	c.Flags().StringVar(&field, "field", "", "print one field, e.g. status or validate.issues.0.sentence (a gjson path; # counts a list: validate.issues.#)")
	return c
}

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
	var from, to int
	if diffRange != "" {
		var err error
		if from, to, err = parseDiffRange(diffRange); err != nil {
			return err
		}
	}
	id, _, err := s.ParseRef(args[0])
	if err != nil {
		return err
	}
	d, err := s.Read(id)
	if err != nil {
		return err
	}
	var it shown
	if diffRange != "" {
		it, err = showDiff(s, id, d, from, to)
	} else {
		it, err = showRevision(s, id, d, n, sentences)
	}
	if err != nil {
		return err
	}
	if a.json {
		it.obj["ok"], it.obj["command"] = true, "show"
		return a.writeJSON(it.obj)
	}
	fmt.Fprint(a.stdout, it.text)
	return nil
}

// shown is one document as show prints it: obj for --json, text otherwise.
type shown struct {
	obj  map[string]any
	text string
}

func showDoc(id string, d *store.Doc, sentences bool, field string) (shown, error) {
	if field != "" {
		v := d.Get(field)
		if !v.Exists() {
			return shown{}, store.Errorf(store.CodeNotFound, "%s has no field %s", id, field)
		}
		return shown{map[string]any{"id": id, "field": field, "value": json.RawMessage(v.Raw)}, v.String() + "\n"}, nil
	}
	proof := d.Get("proof").String()
	obj := map[string]any{"id": id, "kind": d.Kind, "status": d.Status(), "revision": d.Revision(), "document": json.RawMessage(d.Raw)}
	if sentences {
		obj["sentences"] = numbered(proof)
	}
	var buf bytes.Buffer
	switch {
	case !sentences:
		json.Indent(&buf, bytes.TrimSpace(d.Raw), "", "  ")
		buf.WriteByte('\n')
	case d.Kind == model.KindProblem:
		// A problem has an objective, not a proof: the statements in its
		// progresses carry the proofs.
		fmt.Fprintf(&buf, "problem %s (%s, revision %d) has no proof: --sentences numbers a statement's proof, such as one in its progresses.\n", id, d.Status(), d.Revision())
	default:
		fmt.Fprintf(&buf, "%s %s (%s, revision %d, proof revision %d)\n", d.Kind, id, d.Status(), d.Revision(), d.Get("proof_revision").Int())
		for _, sn := range numbered(proof) {
			fmt.Fprintf(&buf, "[%d] %s\n", sn.Number, sn.Text)
		}
	}
	return shown{obj, buf.String()}, nil
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
