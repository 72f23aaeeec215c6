package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/bench/table"
)

// TestTestRow reads make test's time from the last DONE line of its log
// (a log holds one per run when runs were appended), and says so when
// there is none.
func TestTestRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.log")
	log := "ok  \tgithub.com/proofloop/proofloop/store\t12.1s\nDONE 1553 tests, 33 skipped, 4 failures in 1344.794s\n" +
		"ok  \tgithub.com/proofloop/proofloop/model\t1.0s\nDONE 1667 tests, 41 skipped in 381.2s\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := testRow(path); r.Measured != "381 s (1667 tests, 41 skipped)" || r.Verdict != "met" {
		t.Errorf("testRow = %+v; want 381 s (1667 tests, 41 skipped), met", r)
	}
	if r := testRow(filepath.Join(t.TempDir(), "none")); r.Measured != "not measured: run make test first" || r.Verdict != "" {
		t.Errorf("testRow of no log = %+v", r)
	}
}

// TestSummary: the README's summary gathers each line's rows by figure
// (the last of a figure counting), shows each one's ratio or time, is met
// only when all are, and says which were not measured; it replaces only
// what lies between its markers.
func TestSummary(t *testing.T) {
	rows := []table.Row{
		{Figure: "skill call (check-reject-proof) vs floor (bench/minimal)", Measured: "9.0 vs 2.0 ms: 4.50×", Verdict: "missed by 125%"},
		{Figure: "skill call (check-reject-proof) vs floor (bench/minimal)", Measured: "4.0 vs 2.0 ms: 2.00×", Verdict: "met"},
		{Figure: "skill call (state-complete-proof) vs floor (bench/minimal)", Measured: "3.0 vs 2.0 ms: 1.50×", Verdict: "met"},
		{Figure: "skill call (fix-patch-proof) vs floor (bench/minimal)", Measured: "5.0 vs 2.0 ms: 2.50×", Verdict: "missed by 25%"},
		{Figure: "doctor (routine) at 100k", Measured: "420 ms = 30.0× one skill call (14.00 ms)", Verdict: "met"},
	}
	got := summaryTable(rows)
	for _, want := range []string{
		"| a skill call / the floor (read, write, fsync, rename): reject, complete, patch | 2.00×, 1.50×, 2.50× | ≤ 2× | missed |",
		"| routine `doctor` at 100k statements | 420 ms | ≤ 0.5 s | met |",
		"| `status --json` at 100k | not measured | ≤ 0.5 s | not measured |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	path := filepath.Join(t.TempDir(), "README.md")
	readme := "# x\n\nbefore\n" + summaryStart + "\nold table\n" + summaryEnd + "\nafter\n"
	if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeSummary(path, rows); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if want := "# x\n\nbefore\n" + summaryStart + "\n" + got + summaryEnd + "\nafter\n"; string(raw) != want {
		t.Errorf("README after writeSummary:\n%s\nwant:\n%s", raw, want)
	}
	if err := os.WriteFile(path, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeSummary(path, rows); err == nil {
		t.Error("writeSummary of a file without markers succeeded")
	}
}
