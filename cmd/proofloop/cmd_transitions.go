package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
)

func (a *app) transitionsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "transitions",
		Short: "Print the transition table: what each skill acts on, leaves and needs",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "transitions", "transitions": transitionRows()})
			}
			w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "SKILL\tROLES\tACTS ON\tLEAVES\tGUARDS")
			for _, r := range transitionRows() {
				var from, guards []string
				for _, f := range r.ActsOn {
					s := strings.Join(f.Statuses, ", ")
					if f.Source != "" {
						s = f.Source + ": " + s
					}
					from = append(from, s)
				}
				for _, g := range r.Guards {
					guards = append(guards, g.Text)
				}
				fmt.Fprintf(w, "%s\t%s\t%s %s\t%s\t%s\n", r.Skill, strings.Join(r.Roles, ", "), r.Kind, strings.Join(from, "; "), r.Leaves, strings.Join(guards, "; "))
			}
			return w.Flush()
		},
	}
}

type fromRow struct {
	Source   string   `json:"source,omitempty"`
	Statuses []string `json:"statuses"`
}

type guardRow struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

type transitionRow struct {
	Skill  string     `json:"skill"`
	Roles  []string   `json:"roles"`
	Kind   model.Kind `json:"kind"`
	ActsOn []fromRow  `json:"acts_on"`
	Leaves string     `json:"leaves"`
	Guards []guardRow `json:"guards"`
}

func transitionRows() []transitionRow {
	var rows []transitionRow
	for _, r := range model.Table {
		row := transitionRow{Skill: r.Skill, Kind: r.Kind, Leaves: r.Leaves, Guards: []guardRow{}}
		for _, ro := range r.Roles {
			row.Roles = append(row.Roles, string(ro))
		}
		for _, f := range r.From {
			fr := fromRow{Source: string(f.Source)}
			for _, s := range f.Statuses {
				fr.Statuses = append(fr.Statuses, string(s))
			}
			row.ActsOn = append(row.ActsOn, fr)
		}
		for _, g := range r.Guards {
			row.Guards = append(row.Guards, guardRow{g.Name, g.Text})
		}
		rows = append(rows, row)
	}
	return rows
}
