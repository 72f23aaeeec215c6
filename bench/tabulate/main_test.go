package main

import (
	"os"
	"path/filepath"
	"testing"
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
