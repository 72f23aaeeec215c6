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
// added by hand (checkers_mismatch), and so does the routine one, from the
// verified point the clean full check left (status --checkers and
// verify_min_reliability read the file, so a forged figure must not wait
// for a --full). RebuildCheckers (doctor --reindex) writes it again from
// the log, after which doctor is clean.
func TestDoctorChecksCheckers(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(string) string
	}{
		{"edited", func(s string) string { return strings.Replace(s, `"missed_flawed":2`, `"missed_flawed":0`, 1) }},
		{"removed", func(s string) string { return s[strings.Index(s, "\n")+1:] }},
		{"added", func(s string) string { return s + strings.SplitAfter(s, "\n")[0] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir := testStore(t)
			appendEval(t, s, 1)
			appendEval(t, s, 2)
			if r, err := Full(s); err != nil || len(r.Findings) > 0 {
				t.Fatalf("before the edit: %v %+v", err, r)
			}
			p := filepath.Join(dir, store.CheckersFile)
			raw, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte(c.edit(string(raw))), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, check := range []func(*store.Store) (*Report, error){Routine, Full} {
				r, err := check(s)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Findings) != 1 || r.Findings[0].Code != "checkers_mismatch" {
					t.Fatalf("%s check: findings = %+v; want one checkers_mismatch", r.Mode, r.Findings)
				}
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

// TestRoutineChecksCheckersSince: after the verified point, the routine
// doctor holds the lines appended since to the records of the events
// since: a legitimate append is clean, a line of those edited, or a line
// appended with no event, is checkers_mismatch.
func TestRoutineChecksCheckersSince(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(string) string
		want string
	}{
		{"none", func(s string) string { return s }, ""},
		{"edited", func(s string) string { return strings.Replace(s, `"missed_flawed":3`, `"missed_flawed":0`, 1) }, "line 3 differs"},
		{"added", func(s string) string { return s + strings.SplitAfter(s, "\n")[0] }, "it has 2 records after line 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir := testStore(t)
			appendEval(t, s, 1)
			appendEval(t, s, 2)
			if r, err := Full(s); err != nil || len(r.Findings) > 0 {
				t.Fatalf("full: %v %+v", err, r)
			}
			appendEval(t, s, 3)
			p := filepath.Join(dir, store.CheckersFile)
			raw, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte(c.edit(string(raw))), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Routine(s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Mode != ModeRoutine {
				t.Fatalf("mode %s; want the routine check", r.Mode)
			}
			switch {
			case c.want == "" && len(r.Findings) > 0:
				t.Errorf("findings = %+v; want none", r.Findings)
			case c.want != "" && (len(r.Findings) != 1 || r.Findings[0].Code != "checkers_mismatch" || !strings.Contains(r.Findings[0].Message, c.want)):
				t.Errorf("findings = %+v; want one checkers_mismatch saying %q", r.Findings, c.want)
			}
		})
	}
}

// appendEval appends, as an eval run would, one checker record that
// missed n flawed proofs of n.
func appendEval(t *testing.T, s *store.Store, n int) {
	t.Helper()
	if _, err := s.Update(store.TxOptions{Command: "eval"}, func(tx *store.Tx) error {
		tx.Record()
		r := model.CheckerRecord{Source: model.RecordEval, Role: model.RoleCheck, AgentLabel: model.AgentLabel{Agent: "yes", Model: "m"},
			Set: "shipped", Counts: model.Counts{Items: n, MissedFlawed: n}, At: tx.Now()}
		return tx.AppendCheckerRecords([]model.CheckerRecord{r})
	}); err != nil {
		t.Fatal(err)
	}
}
