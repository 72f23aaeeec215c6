// Package table is make bench's one table. Each benchmark that measures a
// figure of the issues records a row here: the figure, what was measured
// (each a ratio to its reference measured in the same run), its target,
// and met or missed. The benchmarks live in several packages, each its own
// test process, so a row is also appended as one JSON line to the file
// $PROOFLOOP_BENCH_ROWS names; `go run ./bench/tabulate FILE` prints that
// file as one table (make bench does). Without the variable, a package's
// own rows are printed when its run ends (Print, from its TestMain).
package table

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// RowsEnv names the file that collects the rows of one make bench.
const RowsEnv = "PROOFLOOP_BENCH_ROWS"

// Row is one figure.
type Row struct {
	Figure   string `json:"figure"`
	Measured string `json:"measured"`
	Target   string `json:"target,omitempty"`
	Verdict  string `json:"verdict,omitempty"` // "met", "missed by N%", or "" when there is no target
}

var (
	mu   sync.Mutex
	rows []Row
)

// Record keeps a row. A figure recorded again (Go probes a benchmark with
// b.N = 1 before the counted run) replaces the earlier row when printed.
func Record(figure, measured, target, verdict string) {
	r := Row{figure, measured, target, verdict}
	mu.Lock()
	defer mu.Unlock()
	rows = append(rows, r)
	// Now, so that a run cut short still shows what it measured.
	fmt.Fprintf(os.Stderr, "bench: %s: %s (target %s) %s\n", figure, measured, target, verdict)
	if path := os.Getenv(RowsEnv); path != "" {
		line, _ := json.Marshal(r)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
}

// AtMost says whether got meets a target of at most limit.
func AtMost(got, limit float64) string {
	if got <= limit {
		return "met"
	}
	if pct := 100 * (got/limit - 1); pct >= 1 {
		return fmt.Sprintf("missed by %.0f%%", pct)
	}
	return "missed by <1%"
}

// Within says whether got lies in [lo, hi].
func Within(got, lo, hi float64) string {
	if got >= lo && got <= hi {
		return "met"
	}
	return "missed"
}

// Print writes this process's rows as a table, unless they go to the rows
// file, whose table make bench prints once at the end.
func Print(w io.Writer) {
	mu.Lock()
	defer mu.Unlock()
	if os.Getenv(RowsEnv) == "" {
		Write(w, rows)
	}
}

// Write writes rows as one Markdown table, each figure once (its last row)
// in the order first recorded.
func Write(w io.Writer, rs []Row) {
	last := map[string]Row{}
	var order []string
	for _, r := range rs {
		if _, ok := last[r.Figure]; !ok {
			order = append(order, r.Figure)
		}
		last[r.Figure] = r
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "proofloop benchmark table (medians of exec'd processes unless said; ratios within one run):")
	fmt.Fprintln(w, "| figure | measured | target | |\n|---|---|---|---|")
	for _, f := range order {
		r := last[f]
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Figure, r.Measured, r.Target, r.Verdict)
	}
}

// Read reads a rows file.
func Read(path string) ([]Row, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []Row
	dec := json.NewDecoder(bytes.NewReader(raw))
	for dec.More() {
		var r Row
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}
