package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
)

func (a *app) skillsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "skills",
		Short: "Print the skill catalog: roles, purpose, parameters, statuses acted on and left",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			cat, err := skills.Catalog()
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "skills", "skills": cat})
			}
			w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "SKILL\tROLES\tACTS ON\tLEAVES\tPURPOSE")
			for _, e := range cat {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", e.Name, joinRoles(e), actsOn(e), e.Leaves, e.Purpose)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			for _, e := range cat {
				fmt.Fprintf(a.stdout, "\n%s parameters:\n", e.Name)
				w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
				for _, p := range e.Params {
					req := "optional"
					if p.Required {
						req = "required"
					}
					typ := string(p.Type)
					if len(p.Enum) > 0 {
						typ += " (" + strings.Join(p.Enum, "|") + ")"
					}
					if p.List {
						typ += ", repeatable"
					}
					fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", p.Flag, typ, req, p.Help)
				}
				if err := w.Flush(); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func joinRoles(e skills.Entry) string {
	out := make([]string, len(e.Roles))
	for i, r := range e.Roles {
		out[i] = string(r)
	}
	return strings.Join(out, ", ")
}

func actsOn(e skills.Entry) string {
	var parts []string
	for _, f := range e.ActsOn {
		sts := make([]string, len(f.Statuses))
		for i, s := range f.Statuses {
			sts[i] = string(s)
		}
		s := strings.Join(sts, ", ")
		if f.Source != "" {
			s = string(f.Source) + ": " + s
		}
		parts = append(parts, s)
	}
	return string(e.Kind) + " " + strings.Join(parts, "; ")
}
