// Command tabulate prints make bench's one table: the rows every benchmark
// package appended to the rows file (bench/table), and make test's own
// figure from the log of its last run here.
//
//	go run ./bench/tabulate [-test-log bin/test.log] [-readme README.md] ROWS
//
// With -readme it also writes the README's summary of issue 38's figures
// (summary.go).
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/proofloop/proofloop/bench/table"
)

// done is gotestsum's last line: "DONE 1667 tests, 41 skipped in 381.234s".
var done = regexp.MustCompile(`(?m)^DONE (\d+ tests.*) in ([0-9.]+)s$`)

func main() {
	testLog := flag.String("test-log", "", "make test's log (bin/test.log): its time is the table's last row")
	readme := flag.String("readme", "", "also write the summary table into this file (README.md), between its markers")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: tabulate [-test-log bin/test.log] ROWS")
		os.Exit(2)
	}
	rows, err := table.Read(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *testLog != "" {
		rows = append(rows, testRow(*testLog))
	}
	table.Write(os.Stdout, rows)
	if *readme != "" {
		if err := writeSummary(*readme, rows); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// testRow is make test's time, from the log its last run here left: make
// bench does not run make test itself (it takes minutes and would measure
// the bench's own load).
func testRow(path string) table.Row {
	r := table.Row{Figure: "make test, the test phase of its last run here (" + path + ")", Target: "≤ 600 s"}
	raw, err := os.ReadFile(path)
	m := done.FindAllSubmatch(raw, -1)
	if err != nil || len(m) == 0 {
		r.Measured = "not measured: run make test first"
		return r
	}
	last := m[len(m)-1]
	secs, _ := strconv.ParseFloat(string(last[2]), 64)
	r.Measured = fmt.Sprintf("%.0f s (%s)", secs, last[1])
	r.Verdict = table.AtMost(secs, 600)
	return r
}
