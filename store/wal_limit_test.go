package store

import (
	"bytes"
	"testing"
)

// TestCheckpointCountsTransactions: past walLimit the log is checkpointed
// once it holds walLines transactions, not at the first commit past the
// size (a big document's line is hundreds of KB), and past walMax always.
func TestCheckpointCountsTransactions(t *testing.T) {
	if bootOnce() == "" {
		t.Skip("no boot id here: every commit checkpoints")
	}
	defer func(l, m int64, n int) { walLimit, walMax, walLines = l, m, n }(walLimit, walMax, walLines)
	walLimit, walMax, walLines = 1, 1<<40, 4
	s, dir := testStore(t)
	logged := func() int {
		return bytes.Count(readFile(t, dir, WALFile), []byte("\n")) - 1 // the header
	}
	mustCreate(t, s, "prob_a")
	start := logged()
	for i := range 6 {
		if err := addHypothesis(s, "prob_a"); err != nil {
			t.Fatal(err)
		}
		if got := logged(); got == 0 {
			if start+i+1 < walLines {
				t.Fatalf("the log was checkpointed at its %d-th transaction; want %d first", start+i+1, walLines)
			}
			walMax = 1 // now every commit
			if err := addHypothesis(s, "prob_a"); err != nil {
				t.Fatal(err)
			}
			if got := logged(); got != 0 {
				t.Errorf("past walMax the log holds %d transactions; want it checkpointed", got)
			}
			return
		}
	}
	t.Errorf("the log holds %d transactions past walLimit; want a checkpoint at %d", logged(), walLines)
}
