package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/proofloop/proofloop/bench/table"
)

// The README's table is the figures of issue 38 from make bench's rows,
// written between these two lines by `tabulate -readme README.md`.
const (
	summaryStart = "<!-- make bench's summary: written by go run ./bench/tabulate -readme README.md ROWS -->"
	summaryEnd   = "<!-- end of make bench's summary -->"
)

// summaryRow is one line of the README's table: the rows of make bench it
// gathers, by their figure, and its target.
type summaryRow struct {
	label, target string
	figures       []string
}

var summary = []summaryRow{
	{"a skill call / the floor (read, write, fsync, rename): reject, complete, patch", "≤ 2×", []string{
		"skill call (check-reject-proof) vs floor (bench/minimal)",
		"skill call (state-complete-proof) vs floor (bench/minimal)",
		"skill call (fix-patch-proof) vs floor (bench/minimal)"}},
	{"the same on a big statement (100 KB proof, 300 issues)", "≤ 2.5×", []string{
		"skill call (check-reject-proof) on a big statement (100 KB proof, 300 issues) vs floor",
		"skill call (state-complete-proof) on a big statement (100 KB proof, 300 issues) vs floor",
		"skill call (fix-patch-proof) on a big statement (100 KB proof, 300 issues) vs floor"}},
	{"a big statement / a small one: complete, reject, patch", "≤ 1.5×", []string{
		"state-complete-proof: big (100 KB proof, 300 issues) vs small",
		"check-reject-proof: big (100 KB proof, 300 issues) vs small",
		"fix-patch-proof: big (100 KB proof, 300 issues) vs small"}},
	{"`proofloop version` / a static hello world", "≤ 1.5×", []string{"proofloop version vs a hello-world Go binary"}},
	{"routine `doctor` at 100k statements", "≤ 0.5 s", []string{"doctor (routine) at 100k"}},
	{"`status --json` at 100k", "≤ 0.5 s", []string{"status --json (whole tree) at 100k"}},
	{"`doctor --full` at 100k: time, peak RSS", "≤ 15 s, ≤ 300 MB", []string{"doctor --full at 100k", "peak RSS of doctor --full at 100k"}},
	{"PostgreSQL / the file store, a serial skill call", "≤ 1.3×", []string{"skill call (check-reject-proof) on PostgreSQL vs the file store, serial"}},
}

// summaryTable renders the summary of rows, the last row of each figure
// counting (as in make bench's table).
func summaryTable(rows []table.Row) string {
	last := map[string]table.Row{}
	for _, r := range rows {
		last[r.Figure] = r
	}
	var b strings.Builder
	b.WriteString("| figure | measured | target | |\n|---|---|---|---|\n")
	for _, s := range summary {
		var got []string
		verdict := "met"
		for _, f := range s.figures {
			r, ok := last[f]
			switch {
			case !ok:
				got, verdict = append(got, "not measured"), "not measured"
			default:
				got = append(got, short(r.Measured))
				if r.Verdict != "met" && verdict == "met" {
					verdict = "missed"
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.label, strings.Join(got, ", "), s.target, verdict)
	}
	return b.String()
}

// short is a measurement's figure: the ratio after its last ": " (11.6 vs
// 2.6 ms: 4.40×), or what comes before " = " (1049 ms = 86.1× one skill
// call), or all of it.
func short(m string) string {
	if i := strings.LastIndex(m, ": "); i >= 0 {
		return m[i+2:]
	}
	if i := strings.Index(m, " = "); i >= 0 {
		return m[:i]
	}
	return m
}

// writeSummary replaces the summary between its two marker lines in the
// file at path (the README) with the table of rows.
func writeSummary(path string, rows []table.Row) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i, j := bytes.Index(raw, []byte(summaryStart+"\n")), bytes.Index(raw, []byte(summaryEnd))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no summary between %q and %q", path, summaryStart, summaryEnd)
	}
	out := append(append(append([]byte{}, raw[:i+len(summaryStart)+1]...), summaryTable(rows)...), raw[j:]...)
	return os.WriteFile(path, out, 0o644)
}
