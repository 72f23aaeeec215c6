package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/bench/table"
	"github.com/proofloop/proofloop/store"
)

// BenchmarkPatchKeptRevisions: a patch appends one line to
// proofs/<id>.jsonl and reads none of it, so it costs the same with 20
// revisions kept as with 1. Two statements of one store, the same in every
// field, differ only in their kept-revision file (1 line, or 20); their
// patches alternate, and each one's median is reported (ms/patch-1-kept,
// ms/patch-20-kept) with their ratio. The rejection that opens the issue a
// patch answers is not timed.
func BenchmarkPatchKeptRevisions(b *testing.B) {
	dir := b.TempDir()
	if _, err := store.Init(dir); err != nil {
		b.Fatal(err)
	}
	// Every iteration spends a round of each statement: a budget that
	// -benchtime cannot spend keeps them at revise, where a rejection
	// leaves has_gap for the patch.
	cfg, err := os.ReadFile(filepath.Join(dir, store.ConfigFile))
	if err == nil {
		cfg, err = sjson.SetBytes(cfg, "max_rounds", 1000)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, store.ConfigFile), cfg, 0o644)
	}
	if err != nil {
		b.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	run := func(name string, flags map[string][]string) {
		sk, _ := Find(name)
		in, err := ParseInput(sk, flags, nil, Source{Max: 1 << 22})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Execute(s, sk, store.TxOptions{Command: name, Actor: "bench-" + name}, in); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
	}
	ids := []string{"stmt_one_wrap", "stmt_twenty_wrap"}
	for _, name := range []string{"one", "twenty"} {
		if _, err := NewProblem(s, store.TxOptions{Command: "new-problem"}, NewProblemParams{Name: name, Objective: "B."}); err != nil {
			b.Fatal(err)
		}
		run("prob-wrapup-statement", map[string][]string{"problem_path": {"prob_" + name}, "claim": {"C."}, "purpose": {"P."}})
		run("state-complete-proof", map[string][]string{"statement_path": {"stmt_" + name + "_wrap"}, "strategy": {"direct"}, "proof_text": {"Step 1: A. Step 2: B. Hence C."}})
	}
	// 19 more kept lines for the second, through a transaction that changes
	// no document: the files differ, the statements do not.
	if _, err := s.Update(store.TxOptions{Command: "bench"}, func(tx *store.Tx) error {
		for r := 2; r <= 20; r++ {
			line := fmt.Sprintf(`{"revision":%d,"text":"Step 1: A. Step 2: B, case %d. Hence C.","strategy":"direct","actor":"bench","at":"2026-11-22T10:04:05Z","cause":"patch","issues":[%d]}`+"\n", r, r, r-1)
			if err := tx.AppendFile(store.ProofsFile(ids[1]), []byte(line)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	issue := map[string]int{}
	took := map[string][]time.Duration{}
	for i := 0; b.Loop(); i++ {
		order := ids
		if i%2 == 1 {
			order = []string{ids[1], ids[0]}
		}
		for _, id := range order {
			b.StopTimer()
			issue[id]++
			run("check-reject-proof", map[string][]string{"statement_path": {id}, "sentence_number": {"2"},
				"sentence_text": {"Step 2"}, "error_type": {"gap"}, "explanation": {"Why?"}})
			b.StartTimer()
			start := time.Now()
			run("fix-patch-proof", map[string][]string{"statement_path": {id}, "issue_number": {fmt.Sprint(issue[id])},
				"sentence_range": {"2"}, "replacement_text": {fmt.Sprintf("Step 2: B, case %d.", issue[id])}, "change_description": {"x"}})
			took[id] = append(took[id], time.Since(start))
		}
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2]) / 1e6
	}
	one, twenty := median(took[ids[0]]), median(took[ids[1]])
	b.ReportMetric(one, "ms/patch-1-kept")
	b.ReportMetric(twenty, "ms/patch-20-kept")
	b.ReportMetric(twenty/one, "ratio")
	table.Record("a patch with 20 kept proof revisions vs 1 (in-process)", fmt.Sprintf("%.2f vs %.2f ms: %.2f×", twenty, one, twenty/one), "0.8-1.2×", table.Within(twenty/one, 0.8, 1.2))
}
