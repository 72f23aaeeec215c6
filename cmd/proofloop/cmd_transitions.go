package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
)

func (a *app) transitionsCommand() *cobra.Command {
	var wide, protocols bool
	c := &cobra.Command{
		Use:   "transitions [--wide | --protocols]",
		Short: "Print the transition table: what each skill acts on, leaves and needs; --protocols: the debate protocols",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "transitions", "transitions": transitionRows(), "holds": holdRows(),
					"severities": severityRows(), "protocols": protocolRows()})
			}
			if protocols {
				width := a.termWidth()
				if wide {
					width = 1 << 20
				}
				a.printProtocols(width)
				return nil
			}
			if wide {
				if err := a.wideTransitions(); err != nil {
					return err
				}
				a.printHolds(1 << 20)
				return a.printSeverities(0)
			}
			a.narrowTransitions(a.termWidth())
			a.printHolds(a.termWidth())
			return a.printSeverities(a.termWidth())
		},
	}
	c.Flags().BoolVar(&wide, "wide", false, "one line per skill, guards included, however wide it gets (the default wraps to the terminal's width, 80 when unknown)")
	c.Flags().BoolVar(&protocols, "protocols", false, "print the debate protocols: roles, limit, outcomes and each turn field with its rule (--json always has them)")
	return c
}

// actsOnText is a row's ACTS ON cell: the kind, then the statuses of each
// source of the call.
func actsOnText(r transitionRow) []string {
	var from []string
	for _, f := range r.ActsOn {
		s := strings.Join(f.Statuses, ", ")
		if f.Source != "" {
			s = f.Source + ": " + s
		}
		from = append(from, s)
	}
	return from
}

func (a *app) wideTransitions() error {
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SKILL\tROLES\tACTS ON\tLEAVES\tGUARDS\tGIVES A TURN TO")
	for _, r := range transitionRows() {
		var guards []string
		for _, g := range r.Guards {
			guards = append(guards, g.Text)
		}
		fmt.Fprintf(w, "%s\t%s\t%s %s\t%s\t%s\t%s\n", r.Skill, rolesText(r), r.Kind, strings.Join(actsOnText(r), "; "), r.Leaves, strings.Join(guards, "; "), turnsText(r))
	}
	return w.Flush()
}

// narrowTransitions prints the table within width columns: the ACTS ON
// and LEAVES cells wrap inside their columns, and each guard gets a line
// of its own under its skill. When the columns would be too narrow for a
// status name, each skill is a block instead: its name and roles, then a
// line each for what it acts on, leaves and needs.
func (a *app) narrowTransitions(width int) {
	rows := transitionRows()
	skillW, rolesW := len("SKILL"), len("ROLES")
	for _, r := range rows {
		skillW = max(skillW, len(r.Skill))
		rolesW = max(rolesW, len(rolesText(r)))
	}
	rest := width - skillW - rolesW - 3*2
	actsW := rest * 11 / 20
	if rest-actsW < 24 {
		for _, r := range rows {
			fmt.Fprintf(a.stdout, "%s (%s)\n", r.Skill, rolesText(r))
			a.hang(width, "  acts on: ", "    ", string(r.Kind)+" "+strings.Join(actsOnText(r), "; "))
			a.hang(width, "  leaves: ", "    ", r.Leaves)
			for _, g := range r.Guards {
				a.hang(width, "  guard: ", "    ", g.Text)
			}
			a.hang(width, "  turn: ", "    ", turnsText(r))
		}
		return
	}
	widths := []int{skillW, rolesW, actsW, rest - actsW}
	a.printCells(widths, [][]string{{"SKILL"}, {"ROLES"}, {"ACTS ON"}, {"LEAVES"}})
	for _, r := range rows {
		// "statement pending, ..."; a skill whose statuses depend on who
		// calls it gets the kind alone, then a line per source.
		var acts []string
		if from := actsOnText(r); len(r.ActsOn) == 1 && r.ActsOn[0].Source == "" {
			acts = wrap(string(r.Kind)+" "+from[0], widths[2], "  ")
		} else {
			acts = []string{string(r.Kind)}
			for _, f := range from {
				acts = append(acts, wrap(f, widths[2], "  ")...)
			}
		}
		a.printCells(widths, [][]string{{r.Skill}, {rolesText(r)}, acts, wrap(r.Leaves, widths[3], "")})
		for _, g := range r.Guards {
			a.hang(width, "  guard: ", "         ", g.Text)
		}
		a.hang(width, "  turn: ", "        ", turnsText(r))
	}
}

// rolesText is a row's ROLES cell: its roles, or "engine" for a rule that
// the debate engine applies itself (settle-dispute).
func rolesText(r transitionRow) string {
	if len(r.Roles) == 0 {
		return "engine"
	}
	return strings.Join(r.Roles, ", ")
}

// printCells prints one row whose cells may span several lines.
func (a *app) printCells(widths []int, cells [][]string) {
	lines := 0
	for _, c := range cells {
		lines = max(lines, len(c))
	}
	for i := range lines {
		var b strings.Builder
		for j, c := range cells {
			s := ""
			if i < len(c) {
				s = c[i]
			}
			if j < len(cells)-1 {
				s += strings.Repeat(" ", max(0, widths[j]-len(s))+2)
			}
			b.WriteString(s)
		}
		fmt.Fprintln(a.stdout, strings.TrimRight(b.String(), " "))
	}
}

// wrap breaks text at blanks into lines of at most width bytes (a longer
// word gets a line of its own); lines after the first start with indent.
func wrap(text string, width int, indent string) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
			if len(lines) > 0 {
				line = indent + w
			}
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = indent + w
		}
	}
	return append(lines, line)
}

type fromRow struct {
	Source   string   `json:"source,omitempty"`
	Statuses []string `json:"statuses"`
}

type guardRow struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// turnRow is a turn a rule gives: next and run offer an item in one of
// Statuses to Role, when the rule's guards that read the document, When and
// the table's holds (but those named in Despite) hold. A status in acts_on
// with no turn is only allowed.
type turnRow struct {
	Role     string     `json:"role"`
	Source   string     `json:"source,omitempty"`
	Statuses []string   `json:"statuses"`
	When     []guardRow `json:"when"`
	Despite  []string   `json:"despite,omitempty"`
	// Priority orders the turns given on one state: only those of the
	// highest priority are given (model.From.Priority).
	Priority int `json:"priority,omitempty"`
}

// holdRows are the table's holds (model.Holds): conditions every turn
// shares.
func holdRows() []guardRow {
	rows := []guardRow{}
	for _, h := range model.Holds {
		rows = append(rows, guardRow{h.Name, h.Text})
	}
	return rows
}

// printHolds prints the table's holds under its rows, within width
// columns.
func (a *app) printHolds(width int) {
	fmt.Fprintln(a.stdout)
	a.hang(width, "", "", "Where turns of several priorities hold on one state, only those of the highest are given (the formal track's, priority 1, come before the others).")
	a.hang(width, "", "", "Every turn above also needs the table's holds, save a turn given despite one (the way out of it):")
	for _, h := range holdRows() {
		a.hang(width, "  "+h.Name+": ", "    ", h.Text)
	}
}

type transitionRow struct {
	Skill  string     `json:"skill"`
	Roles  []string   `json:"roles"`
	Kind   model.Kind `json:"kind"`
	ActsOn []fromRow  `json:"acts_on"`
	Leaves string     `json:"leaves"`
	Guards []guardRow `json:"guards"`
	Turns  []turnRow  `json:"turns"`
}

// turnsText says which turns a row gives: "fix on has_gap; fix on
// awaiting_substatements when an issue is open", or "none".
func turnsText(r transitionRow) string {
	var out []string
	for _, t := range r.Turns {
		s := t.Role + " on " + strings.Join(t.Statuses, ", ")
		var when []string
		for _, g := range t.When {
			when = append(when, g.Text)
		}
		if len(when) > 0 {
			s += " when " + strings.Join(when, " and ")
		}
		if len(t.Despite) > 0 {
			s += ", despite " + strings.Join(t.Despite, " and ")
		}
		if t.Priority > 0 {
			s += fmt.Sprintf(", first (priority %d)", t.Priority)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}

func transitionRows() []transitionRow {
	var rows []transitionRow
	for _, r := range model.Table {
		row := transitionRow{Skill: r.Skill, Roles: []string{}, Kind: r.Kind, Leaves: r.Leaves, Guards: []guardRow{}, Turns: []turnRow{}}
		for _, ro := range r.Roles {
			row.Roles = append(row.Roles, string(ro))
		}
		for _, f := range r.BySource() {
			fr := fromRow{Source: string(f.Source)}
			for _, s := range f.Statuses {
				fr.Statuses = append(fr.Statuses, string(s))
			}
			row.ActsOn = append(row.ActsOn, fr)
		}
		for _, f := range r.From {
			if f.Turn != "" {
				t := turnRow{Role: string(f.Turn), Source: string(f.Source), When: []guardRow{}}
				for _, s := range f.Statuses {
					t.Statuses = append(t.Statuses, string(s))
				}
				for _, g := range f.When {
					t.When = append(t.When, guardRow{g.Name, g.Text})
				}
				t.Despite, t.Priority = f.Despite, f.Priority
				row.Turns = append(row.Turns, t)
			}
		}
		for _, g := range r.Guards {
			row.Guards = append(row.Guards, guardRow{g.Name, g.Text})
		}
		rows = append(rows, row)
	}
	return rows
}
