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
	var field string
	c := &cobra.Command{
		Use:   "show ID [--sentences] [--field PATH]",
		Short: "Print a problem or statement; --sentences numbers the proof as checkers cite it",
		Args:  oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			id, _, err := s.ParseRef(args[0])
			if err != nil {
				return err
			}
			d, err := s.Read(id)
			if err != nil {
				return err
			}
			if field != "" {
				v := d.Get(field)
				if !v.Exists() {
					return store.Errorf(store.CodeNotFound, "%s has no field %s", id, field)
				}
				if a.json {
					return a.writeJSON(map[string]any{"ok": true, "command": "show", "id": id, "field": field, "value": json.RawMessage(v.Raw)})
				}
				fmt.Fprintln(a.stdout, v.String())
				return nil
			}
			proof := d.Get("proof").String()
			if a.json {
				out := map[string]any{"ok": true, "command": "show", "id": id, "kind": d.Kind,
					"status": d.Status(), "revision": d.Revision(), "document": json.RawMessage(d.Raw)}
				if sentences {
					out["sentences"] = numbered(proof)
				}
				return a.writeJSON(out)
			}
			if !sentences {
				var buf bytes.Buffer
				json.Indent(&buf, d.Raw, "", "  ")
				fmt.Fprintln(a.stdout, buf.String())
				return nil
			}
			if d.Kind == model.KindProblem {
				// A problem has an objective, not a proof: the statements
				// in its progresses carry the proofs.
				fmt.Fprintf(a.stdout, "problem %s (%s, revision %d) has no proof: --sentences numbers a statement's proof, such as one in its progresses.\n", id, d.Status(), d.Revision())
				return nil
			}
			fmt.Fprintf(a.stdout, "%s %s (%s, revision %d, proof revision %d)\n", d.Kind, id, d.Status(), d.Revision(), d.Get("proof_revision").Int())
			for _, sn := range numbered(proof) {
				fmt.Fprintf(a.stdout, "[%d] %s\n", sn.Number, sn.Text)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&sentences, "sentences", false, "number the proof's sentences, as checkers cite them")
	c.Flags().StringVar(&field, "field", "", "print one field, e.g. status or validate.issues.0.sentence (a gjson path; # counts a list: validate.issues.#)")
	return c
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
