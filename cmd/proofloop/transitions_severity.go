package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/proofloop/proofloop/model"
)

// severityRow is one line of the table of default severities.
type severityRow struct {
	ErrorType string `json:"error_type"`
	Severity  string `json:"severity"`
	Means     string `json:"means"`
}

func severityRows() []severityRow {
	var rows []severityRow
	for _, e := range model.ErrorSeverity {
		rows = append(rows, severityRow{e.ErrorType, e.Severity, e.Why})
	}
	return rows
}

// printSeverities prints, under the transition table, the severity an
// issue gets by default from its error type (--severity overrides it),
// wrapped to width (0: however wide).
func (a *app) printSeverities(width int) error {
	fmt.Fprintln(a.stdout)
	if width > 0 {
		a.hang(width, "", "", "Issue severity by error type (check-reject-proof and reopen; --severity overrides):")
		rows := [][]string{{"ERROR TYPE", "SEVERITY", "MEANS"}}
		for _, r := range severityRows() {
			rows = append(rows, []string{r.ErrorType, r.Severity, r.Means})
		}
		a.hangTable(width, rows)
		return nil
	}
	fmt.Fprintln(a.stdout, "Issue severity by error type (check-reject-proof and reopen; --severity overrides):")
	w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ERROR TYPE\tSEVERITY\tMEANS")
	for _, r := range severityRows() {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.ErrorType, r.Severity, r.Means)
	}
	return w.Flush()
}
