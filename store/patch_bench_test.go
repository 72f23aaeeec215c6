package store

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tidwall/sjson"

	"github.com/proofloop/proofloop/bench/table"
)

// BenchmarkPatchShare measures what the audit trail (issue 14) adds to the
// hot path: a transaction that appends one entry to a large document (a
// 100 KB field and 300 list entries, like a statement with a long proof and
// many issues) against the patch and the seal of the same change alone. The
// share is patch+seal over transaction, within one run.
func BenchmarkPatchShare(b *testing.B) {
	var tx, ps float64 // ns per op of each, for the share
	defer func() {
		if tx > 0 && ps > 0 {
			table.Record("the audit trail's share of a write (patch + seal / the transaction, in-process)",
				fmt.Sprintf("%.2f / %.2f ms: %.1f%%", ps/1e6, tx/1e6, 100*ps/tx), "≤ 10%", table.AtMost(ps/tx, 0.10))
		}
	}()
	big := problem(strings.Repeat("A long objective sentence. ", 4000))
	for i := range 300 {
		big.Hypothesis = append(big.Hypothesis, fmt.Sprintf("hypothesis %d of a long list", i))
	}
	b.Run("transaction", func(b *testing.B) {
		s, _ := benchStore(b)
		if _, err := s.Update(TxOptions{Command: "bench"}, func(tx *Tx) error {
			_, err := tx.Create("prob_big", big)
			return err
		}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := range b.N {
			if _, err := s.Update(TxOptions{Command: "bench"}, func(tx *Tx) error {
				d, err := tx.Get("prob_big")
				if err != nil {
					return err
				}
				return d.Set("hypothesis.-1", fmt.Sprintf("added %d", i))
			}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		tx = float64(b.Elapsed()) / float64(b.N)
	})
	b.Run("patch+seal", func(b *testing.B) {
		before, err := Marshal(big)
		if err != nil {
			b.Fatal(err)
		}
		after, _ := sjson.SetBytes(before, "hypothesis.-1", "added")
		ev := Event{Seq: 7, Time: "2026-11-22T10:04:05Z", Command: "bench", IDs: []string{"prob_big"}}
		b.ResetTimer()
		for range b.N {
			p, err := Patch(before, after)
			if err != nil {
				b.Fatal(err)
			}
			ev.Changes = []Change{{ID: "prob_big", Kind: "problem", After: "pending", Revision: 2, Patch: p}}
			if _, _, err := Seal(ev, strings.Repeat("0", 64)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		ps = float64(b.Elapsed()) / float64(b.N)
	})
}

func benchStore(b *testing.B) (*Store, string) {
	b.Helper()
	dir := b.TempDir() + "/contents"
	if _, err := Init(dir); err != nil {
		b.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, dir
}
