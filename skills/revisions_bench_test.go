package skills

import (
	"fmt"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// BenchmarkPatchKeptRevisions: a patch appends one line to
// proofs/<id>.jsonl and reads none of it, so it costs the same with 20
// revisions kept as with 1. Only the patch is timed; the rejection that
// opens the issue it answers is not.
func BenchmarkPatchKeptRevisions(b *testing.B) {
	for _, kept := range []int{1, 20} {
		b.Run(fmt.Sprintf("kept=%d", kept), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := store.Init(dir); err != nil {
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
			if _, err := NewProblem(s, store.TxOptions{Command: "new-problem"}, NewProblemParams{Name: "b", Objective: "B."}); err != nil {
				b.Fatal(err)
			}
			id := "stmt_b_wrap"
			run("prob-wrapup-statement", map[string][]string{"problem_path": {"prob_b"}, "claim": {"C."}, "purpose": {"P."}})
			run("state-complete-proof", map[string][]string{"statement_path": {id}, "strategy": {"direct"}, "proof_text": {"Step 1: A. Step 2: B. Hence C."}})
			issue := 0
			patch := func() {
				run("fix-patch-proof", map[string][]string{"statement_path": {id}, "issue_number": {fmt.Sprint(issue)},
					"sentence_range": {"2"}, "replacement_text": {fmt.Sprintf("Step 2: B, case %d.", issue)}, "change_description": {"x"}})
			}
			reject := func() {
				issue++
				run("check-reject-proof", map[string][]string{"statement_path": {id}, "sentence_number": {"2"},
					"sentence_text": {"Step 2"}, "error_type": {"gap"}, "explanation": {"Why?"}})
			}
			for range kept - 1 {
				reject()
				patch()
			}
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				reject()
				b.StartTimer()
				patch()
			}
		})
	}
}
