package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// TestDoctorChecksCheckers: checkers.jsonl is derived from the records the
// log's events carry. The full doctor finds a line edited, removed or
// added by hand (checkers_mismatch), and RebuildCheckers (doctor
// --reindex) writes it again from the log, after which doctor is clean.
func TestDoctorChecksCheckers(t *testing.T) {
	rec := func(missed int) model.CheckerRecord {
		return model.CheckerRecord{Source: model.RecordEval, Role: model.RoleCheck, AgentLabel: model.AgentLabel{Agent: "yes", Model: "m"},
			Set: "shipped", Counts: model.Counts{Items: missed, MissedFlawed: missed}}
	}
	for _, c := range []struct {
		name string
		edit func(string) string
	}{
		{"edited", func(s string) string { return strings.Replace(s, `"missed_flawed":2`, `"missed_flawed":0`, 1) }},
		{"removed", func(s string) string { return s[strings.Index(s, "\n")+1:] }},
		{"added", func(s string) string { return s + strings.SplitAfter(s, "\n")[0] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "contents")
			if _, err := store.Init(dir); err != nil {
				t.Fatal(err)
			}
			s, err := store.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, n := range []int{1, 2} {
				if _, err := s.Update(store.TxOptions{Command: "eval"}, func(tx *store.Tx) error {
					tx.Record()
					r := rec(n)
					r.At = tx.Now()
					return tx.AppendCheckerRecords([]model.CheckerRecord{r})
				}); err != nil {
					t.Fatal(err)
				}
			}
			if r, err := Full(s); err != nil || len(r.Findings) > 0 {
				t.Fatalf("before the edit: %v %+v", err, r)
			}
			p := filepath.Join(dir, store.CheckersFile)
			raw, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte(c.edit(string(raw))), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Full(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Findings) != 1 || r.Findings[0].Code != "checkers_mismatch" {
				t.Fatalf("findings = %+v; want one checkers_mismatch", r.Findings)
			}
			if changed, err := s.RebuildCheckers(); err != nil || !changed {
				t.Fatalf("RebuildCheckers = %v, %v; want a change", changed, err)
			}
			if got, _ := os.ReadFile(p); string(got) != string(raw) {
				t.Errorf("rebuilt:\n%s\nwant:\n%s", got, raw)
			}
			if r, err := Full(s); err != nil || len(r.Findings) > 0 {
				t.Fatalf("after the rebuild: %v %+v", err, r.Findings)
			}
			if changed, err := s.RebuildCheckers(); err != nil || changed {
				t.Errorf("a second RebuildCheckers = %v, %v; want no change", changed, err)
			}
		})
	}
}
