package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

func (a *app) skillsCommand() *cobra.Command {
	var wide bool
	c := &cobra.Command{
		Use:   "skills [--wide]",
		Short: "Print the skill catalog: roles, purpose, parameters, statuses acted on and left; and the debate protocols",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			cat, err := skills.Catalog()
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "skills", "skills": cat, "debates": debateRows()})
			}
			if !wide {
				a.narrowSkills(a.termWidth(), cat)
				return nil
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
			fmt.Fprintln(a.stdout, "\nDebate protocols (`proofloop transitions --protocols` prints their turn fields):")
			w = tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "  PROTOCOL\tROLES\tLIMIT\tOUTCOMES\tFILE")
			for _, d := range debateRows() {
				soft := ""
				if d.Limit.Soft {
					soft = " (soft)"
				}
				fmt.Fprintf(w, "  %s\t%s\t%d %s%s\t%s\t%s\n", d.Name, strings.Join(d.Roles, ", "), d.Limit.N, d.Limit.Unit, soft, strings.Join(d.Outcomes, ", "), d.File)
			}
			return w.Flush()
		},
	}
	c.Flags().BoolVar(&wide, "wide", false, "one table line per skill, parameter and protocol, however wide (the default wraps to the terminal's width, 80 when unknown)")
	return c
}

// narrowSkills prints the catalog within width columns: a block per skill
// (name and roles, what it acts on and leaves, its purpose, its parameters
// with their help under them), then the debate protocols.
func (a *app) narrowSkills(width int, cat []skills.Entry) {
	for i, e := range cat {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprintf(a.stdout, "%s (%s)\n", e.Name, joinRoles(e))
		a.hang(width, "  acts on: ", "    ", actsOn(e))
		a.hang(width, "  leaves: ", "    ", e.Leaves)
		a.hang(width, "  ", "  ", e.Purpose)
		var rows [][]string
		for _, p := range e.Params {
			rows = append(rows, []string{"    " + p.Flag, paramType(p) + ": " + p.Help})
		}
		a.hangTable(width, rows)
	}
	fmt.Fprintln(a.stdout)
	a.hang(width, "", "", "Debate protocols (`proofloop transitions --protocols` prints their turn fields):")
	for _, d := range debateRows() {
		soft := ""
		if d.Limit.Soft {
			soft = " (soft)"
		}
		a.hang(width, "  "+d.Name+": ", "    ", fmt.Sprintf("roles %s; limit %d %s%s; outcomes %s", strings.Join(d.Roles, ", "), d.Limit.N, d.Limit.Unit, soft, strings.Join(d.Outcomes, ", ")))
		a.hang(width, "    file: ", "      ", d.File)
	}
}

// paramType is a parameter's type as the narrow catalog prints it:
// "enum (a | b), repeatable, required", with blanks to wrap at.
func paramType(p skills.ParamEntry) string {
	typ := string(p.Type)
	if len(p.Enum) > 0 {
		typ += " (" + strings.Join(p.Enum, " | ") + ")"
	}
	if p.List {
		typ += ", repeatable"
	}
	if p.Required {
		return typ + ", required"
	}
	return typ + ", optional"
}

// debateRow is a protocol as `skills --json` lists it: the same row
// `transitions --protocols` prints, and the generated file that tells an
// agent its commands and turn format.
type debateRow struct {
	protocolRow
	File string `json:"file"`
}

func debateRows() []debateRow {
	var out []debateRow
	for i, p := range protocolRows() {
		out = append(out, debateRow{p, model.Protocols[i].Doc.Path})
	}
	return out
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
