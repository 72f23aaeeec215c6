package pgstore_test

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/proofloop/proofloop/internal/pgtest"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/pgstore"
)

var cluster pgtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	cluster.Done()
	os.Exit(code)
}

// open gives a store on a fresh, migrated and initialised database.
func open(t *testing.T) *store.Store {
	dsn := cluster.NewMigratedDB(t)
	b, err := pgstore.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.InitBackend(b); err != nil {
		t.Fatal(err)
	}
	s, err := store.OpenBackend(t.TempDir(), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func problem(objective string) *model.Problem {
	return &model.Problem{Status: model.ProblemPending, Objective: objective, Hypothesis: []string{}, Preliminaries: []string{}, Progresses: []string{}}
}

// TestDeadlockRetried: two transactions lock two documents in opposite
// orders, each waiting for the other to hold its first: PostgreSQL aborts
// one as a deadlock, Update runs it again, and both commit. The log is
// 1..4 without a gap: the aborted runs left nothing.
func TestDeadlockRetried(t *testing.T) {
	s := open(t)
	for _, id := range []string{"prob_a", "prob_b"} {
		if _, err := s.Update(store.TxOptions{Command: "new-problem"}, func(tx *store.Tx) error {
			_, err := tx.Create(id, problem("Show "+id+"."))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	var runs atomic.Int32
	var held sync.WaitGroup // both first locks taken, on the first runs only
	held.Add(2)
	var once [2]sync.Once
	bump := func(n int, first, second string) error {
		_, err := s.Update(store.TxOptions{Command: "test"}, func(tx *store.Tx) error {
			runs.Add(1)
			d, err := tx.Get(first)
			if err != nil {
				return err
			}
			once[n].Do(func() { held.Done(); held.Wait() })
			if _, err := tx.Get(second); err != nil {
				return err
			}
			return d.Set("rationale", "bumped by "+first)
		})
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = bump(0, "prob_a", "prob_b") })
	wg.Go(func() { errs[1] = bump(1, "prob_b", "prob_a") })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("transaction %d: %v", i, err)
		}
	}
	// At least one run more than the two: the deadlock's victim ran again.
	// A retry that starts before the survivor commits may meet a
	// serialization failure and run once more, on a loaded machine; that
	// is the retry working too, so the count is not pinned.
	if n := runs.Load(); n < 3 {
		t.Errorf("the transactions ran %d times; want at least 3 (the deadlock victim run again)", n)
	}
	var seqs []int
	if err := s.Backend().Events(0, func(seq int, _ []byte) error { seqs = append(seqs, seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 4 || seqs[3] != 4 {
		t.Errorf("events %v; want 1..4", seqs)
	}
}

// TestRetriesBounded: a transaction that keeps meeting a concurrent one is
// run MaxAttempts times, then fails with conflict (exit 5).
func TestRetriesBounded(t *testing.T) {
	s := open(t)
	runs := 0
	_, err := s.Update(store.TxOptions{Command: "test"}, func(tx *store.Tx) error {
		runs++
		return store.Errorf(store.CodeConflict, "simulated").Wrap(store.ErrRetry)
	})
	if store.CodeOf(err) != store.CodeConflict || runs != store.MaxAttempts {
		t.Errorf("got %v after %d runs; want conflict after %d", err, runs, store.MaxAttempts)
	}
}

// TestGetManyKeepsPairsAsked: GetMany (and LockLog, which shares its
// statement) asks the index for its buckets' keys as two lists, which also
// match pairs not asked for (items/b when items/a and meta/b were): it
// returns exactly the pairs asked for that exist, an empty value as empty.
func TestGetManyKeepsPairsAsked(t *testing.T) {
	s := open(t)
	b := s.Backend()
	bt, err := b.Begin(store.BeginOptions{LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer bt.Rollback()
	rows := []store.KVOp{{B: "items", K: "a", V: "1"}, {B: "items", K: "b", V: "2"}, {B: "meta", K: "a", V: "3"}, {B: "meta", K: "b", V: ""}}
	if err := bt.ReplaceIndex(rows); err != nil {
		t.Fatal(err)
	}
	if _, err := bt.Commit(nil, nil); err != nil {
		t.Fatal(err)
	}
	get := []store.KVKey{{Bucket: "items", Key: "a"}, {Bucket: "meta", Key: "b"}, {Bucket: "meta", Key: "c"}}
	got, err := b.(store.GetMany).GetMany(get)
	if err != nil {
		t.Fatal(err)
	}
	want := map[store.KVKey]string{{Bucket: "items", Key: "a"}: "1", {Bucket: "meta", Key: "b"}: ""}
	if len(got) != len(want) {
		t.Errorf("GetMany(%v) = %q; want %q", get, got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g == nil || string(g) != v {
			t.Errorf("GetMany(%v)[%v] = %q (present %v); want %q", get, k, g, ok, v)
		}
	}
}

// TestSealedIndexParts: the statement that seals an event applies the
// index changes sealed with it, deletions and upserts, whichever of the two
// it has (it leaves out a part with nothing to do): a deletion left undone
// would keep a stale row that no reader checks against the documents.
func TestSealedIndexParts(t *testing.T) {
	s := open(t)
	b := s.Backend()
	commit := func(ops ...store.KVOp) {
		t.Helper()
		bt, err := b.Begin(store.BeginOptions{LockTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer bt.Rollback()
		if _, err := bt.Commit(nil, func(seq int, prev string) ([]byte, []store.KVOp, error) {
			line, _, err := store.Seal(store.Event{Seq: seq, Time: "2026-01-01T00:00:00Z", Command: "test", IDs: []string{}, Changes: []store.Change{}}, prev)
			return line, ops, err
		}); err != nil {
			t.Fatal(err)
		}
	}
	get := []store.KVKey{{Bucket: "items", Key: "a"}, {Bucket: "items", Key: "b"}, {Bucket: "items", Key: "c"}}
	index := func() map[store.KVKey][]byte {
		t.Helper()
		vals, err := b.(store.GetMany).GetMany(get)
		if err != nil {
			t.Fatal(err)
		}
		return vals
	}
	commit(store.KVOp{B: "items", K: "a", V: "1"}, store.KVOp{B: "items", K: "b", V: "2"})
	commit(store.KVOp{B: "items", K: "a", D: true}) // deletions only
	commit(store.KVOp{B: "items", K: "b", D: true}, store.KVOp{B: "items", K: "c", V: "3"})
	commit() // neither
	got := index()
	if len(got) != 1 || string(got[get[2]]) != "3" {
		t.Errorf("the index holds %q; want only items/c = 3", got)
	}
}
