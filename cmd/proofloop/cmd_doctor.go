package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/store"
)

func (a *app) doctorCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check every file and cross-reference, finish or discard a leftover journal, sweep temp files",
		Long:  "doctor schema-checks every file and every cross-reference (parent, context, preliminaries,\nprogresses, sub_statements), finishes or discards a leftover journal and removes stale temp\nfiles. It exits 6 when the store is damaged, listing each finding.",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := a.open()
			if err != nil && store.CodeOf(err) != store.CodeStoreDamaged {
				return err
			}
			if err != nil { // a damaged config.json: doctor still checks the rest
				s, err = store.Open(a.root)
				if err != nil {
					return err
				}
			}
			defer s.Close()
			r, err := s.Doctor()
			if err != nil {
				return err
			}
			if len(r.Findings) > 0 {
				err := store.Errorf(store.CodeStoreDamaged, "the store is damaged: %d finding(s)", len(r.Findings)).
					WithHint("repair or restore each file listed, then run doctor again")
				return &withReport{err, map[string]any{"report": r}, r}
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "doctor", "report": r})
			}
			fmt.Fprintf(a.stdout, "The store is consistent: %d problems, %d statements, %d events; journal: %s; %d stale temp files removed.\n",
				r.Problems, r.Statements, r.Events, r.Journal, len(r.Swept))
			return nil
		},
	}
}

// withReport is an error that carries extra fields for the JSON error
// object and a report to print for a person.
type withReport struct {
	error
	extra  map[string]any
	report *store.Report
}

func (w *withReport) Unwrap() error { return w.error }

func (w *withReport) printText(a *app) {
	for _, f := range w.report.Findings {
		fmt.Fprintf(a.stdout, "%s: %s\n", f.Path, f.Message)
	}
}
