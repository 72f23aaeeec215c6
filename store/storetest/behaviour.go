package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// testEventsChainAndHistory: every commit is one event, seq 1..N without a
// gap, each chained to the one before by its hash; a document's history
// lists its changes with the patch from its previous revision, and --at
// rebuilds an old revision from those patches.
func testEventsChainAndHistory(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x", "prob_y")
	for _, h := range []string{"h1", "h2"} {
		if _, err := appendTo(s, "prob_x", h); err != nil {
			t.Fatal(err)
		}
	}
	steps, err := s.History("prob_x")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("History(prob_x) has %d steps; want 3 (create, two appends)", len(steps))
	}
	for i, st := range steps {
		if st.Event.Seq != i+1 || st.Change.ID != "prob_x" || st.Change.Revision != i+1 || len(st.Change.Patch) == 0 {
			t.Errorf("step %d: seq %d, change %s at revision %d, patch %s; want seq %d, prob_x at revision %d with a patch",
				i, st.Event.Seq, st.Change.ID, st.Change.Revision, st.Change.Patch, i+1, i+1)
		}
		if i > 0 && (st.Event.Prev != steps[i-1].Event.Hash || st.Event.Hash == "") {
			t.Errorf("event %d: prev %q; want the hash of event %d, %q", st.Event.Seq, st.Event.Prev, i, steps[i-1].Event.Hash)
		}
	}
	if ev := steps[0].Event; !slices.Equal(ev.IDs, []string{"prob_x", "prob_y"}) || ev.Command != "test-create" {
		t.Errorf("create event names %v, command %q; want [prob_x prob_y], test-create", ev.IDs, ev.Command)
	}
	d, step, err := s.At("prob_x", store.Point{Seq: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := d.Problem(); step.Event.Seq != 2 || p == nil || !slices.Equal(p.Hypothesis, []string{"h1"}) || p.Revision != 2 {
		t.Errorf("At(prob_x, seq 2) = %s (seq %d); want revision 2 with hypothesis [h1]", d.Raw, step.Event.Seq)
	}
	other, err := s.History("prob_y")
	if err != nil || len(other) != 1 {
		t.Errorf("History(prob_y) = %d steps, %v; want the create alone", len(other), err)
	}
	doctorClean(t, s) // verifies the chain and replays every patch
}

// testDelete: a deleted document is gone, and its history keeps the record.
func testDelete(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x", "prob_y")
	if _, err := s.Update(store.TxOptions{Command: "test-delete"}, func(tx *store.Tx) error { return tx.Delete("prob_x") }); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read("prob_x")
	wantCode(t, "Read of a deleted document", err, store.CodeNotFound)
	if ids, err := s.List(model.KindProblem); err != nil || !slices.Equal(ids, []string{"prob_y"}) {
		t.Errorf("List(problem) = %v, %v; want [prob_y]", ids, err)
	}
	steps, err := s.History("prob_x")
	if err != nil || len(steps) != 2 || !steps[1].Change.Deleted {
		t.Errorf("History(prob_x) = %d steps, %v; want the create and the deletion", len(steps), err)
	}
}

// testIndex: the index follows every commit in the same transaction, and a
// rebuild from the documents gives the same rows.
func testIndex(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x")
	if _, err := s.Update(store.TxOptions{Command: "test-sub"}, func(tx *store.Tx) error {
		parent := "prob_x"
		sub := problem("a subproblem")
		sub.Parent = &parent
		if _, err := tx.Create("prob_x_sub1", sub); err != nil {
			return err
		}
		d, err := tx.Get("prob_x")
		if err != nil {
			return err
		}
		return d.Set("preliminaries.-1", "prob_x_sub1")
	}); err != nil {
		t.Fatal(err)
	}
	rows := func() map[string]store.Row {
		m := map[string]store.Row{}
		if err := s.View(func(v *store.IndexView) error {
			return v.Rows(func(r *store.Row) error { m[r.ID] = *r; return nil })
		}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	got := rows()
	x, sub := got["prob_x"], got["prob_x_sub1"]
	if len(got) != 2 || x.Revision != 2 || !slices.Equal(x.Children, []string{"prob_x_sub1"}) ||
		sub.Parent != "prob_x" || sub.Root != "prob_x" || sub.Depth != 1 || sub.Status != model.ProblemPending {
		t.Errorf("index rows %+v; want prob_x at revision 2 with child prob_x_sub1, which is pending at depth 1 under root prob_x", got)
	}
	var locs []store.EventLoc
	if err := s.View(func(v *store.IndexView) error { var err error; locs, err = v.Events("prob_x"); return err }); err != nil {
		t.Fatal(err)
	}
	if len(locs) != 2 || locs[0].Seq != 1 || locs[1].Seq != 2 {
		t.Errorf("index events of prob_x = %+v; want seqs 1 and 2", locs)
	}
	if _, err := s.Reindex(); err != nil {
		t.Fatal(err)
	}
	if again := rows(); fmt.Sprint(again) != fmt.Sprint(got) {
		t.Errorf("rows after Reindex = %+v; want the same as before, %+v", again, got)
	}
	doctorClean(t, s)
}

// testLeases: a lease is written in a transaction, read back, recorded in
// its item's events and the index, ends when released, and a past token is
// found again; a lease that expires stops being live on the store's clock.
func testLeases(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x")
	var l *store.Lease
	c, err := s.Update(store.TxOptions{Command: "test-claim", Actor: "alice"}, func(tx *store.Tx) error {
		l = store.NewLease("prob_x", "solve", "agent-1", "alice", tx.Clock(), time.Hour)
		tx.PutLease(l)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Seq != 2 || c.Event.LeaseHolder == nil || *c.Event.LeaseHolder != "agent-1" || !slices.Equal(c.Event.IDs, []string{"prob_x"}) {
		t.Errorf("claim event %+v; want seq 2, held by agent-1, naming prob_x", c.Event)
	}
	got, err := s.ReadLease("prob_x")
	if err != nil || got == nil || got.Token != l.Token || got.Holder != "agent-1" || got.Actor != "alice" || !got.Live(time.Now()) {
		t.Fatalf("ReadLease = %+v, %v; want the live lease of agent-1 for alice with token %s", got, err, l.Token)
	}
	if err := s.View(func(v *store.IndexView) error {
		r, err := v.Row("prob_x")
		if err == nil && (r.Lease == nil || r.Lease.Holder != "agent-1" || r.Lease.Released) {
			t.Errorf("index row lease %+v; want agent-1's, not released", r.Lease)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(store.TxOptions{Command: "test-release"}, func(tx *store.Tx) error {
		cur, err := tx.Lease("prob_x")
		if err != nil {
			return err
		}
		now := store.Timestamp(tx.Clock())
		cur.ReleasedAt = &now
		tx.PutLease(cur)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadLease("prob_x"); err != nil || got == nil || got.Live(time.Now()) {
		t.Errorf("ReadLease after release = %+v, %v; want a lease that is not live", got, err)
	}
	past, err := s.PastLeaseOf("prob_x", l.Token)
	if err != nil || past == nil || past.Holder != "agent-1" || past.ReleasedAt == "" {
		t.Errorf("PastLeaseOf(token) = %+v, %v; want agent-1's lease, released", past, err)
	}
	if past, err := s.PastLeaseOf("prob_x", "0123"); err != nil || past != nil {
		t.Errorf("PastLeaseOf(unknown token) = %+v, %v; want nil", past, err)
	}

	// Expiry is judged by the store's clock (PostgreSQL's now(), not the
	// client's): a lease of 300ms is live at once and not after 1s.
	var short *store.Lease
	if _, err := s.Update(store.TxOptions{Command: "test-claim"}, func(tx *store.Tx) error {
		short = store.NewLease("prob_x", "solve", "agent-2", "bob", tx.Clock(), 300*time.Millisecond)
		tx.PutLease(short)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	live := func() bool {
		var ok bool
		if _, err := s.Update(store.TxOptions{Command: "test-look"}, func(tx *store.Tx) error {
			cur, err := tx.Lease("prob_x")
			ok = cur.Live(tx.Clock())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !live() {
		t.Errorf("a 300ms lease is not live right after its claim")
	}
	time.Sleep(time.Second)
	if live() {
		t.Errorf("a 300ms lease is still live 1s after its claim")
	}
	doctorClean(t, s)
}

// testProofRevisions: every kept revision of a proof is appended in the
// transaction that changes the proof, read back in order, and the first
// one kept is marked on the statement.
func testProofRevisions(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x")
	proof := func(n int) string { return fmt.Sprintf("Step %d: it holds.", n) }
	for n := 1; n <= 3; n++ {
		_, err := s.Update(store.TxOptions{Command: "test-prove", Actor: "alice"}, func(tx *store.Tx) error {
			var d *store.Doc
			var err error
			text := proof(n)
			if n == 1 {
				d, err = tx.Create("stmt_x_wrap", model.Statement{Status: model.StatementPending, Claim: "x holds",
					Premises: []string{}, Context: "prob_x", Proof: &text, ProofRevision: 1, SubStatements: []string{},
					Validate: model.Validate{Issues: []model.Issue{}, Responses: []model.Response{}, Confirmations: []model.Confirmation{}}})
			} else if d, err = tx.Get("stmt_x_wrap"); err == nil {
				if err = d.Set("proof", text); err == nil {
					err = d.Set("proof_revision", n)
				}
			}
			if err != nil {
				return err
			}
			actor := "alice"
			return tx.KeepProofRevision(d, model.ProofRevision{Revision: n, Text: text, Actor: &actor, At: tx.Now(), Cause: "complete"})
		})
		if err != nil {
			t.Fatalf("revision %d: %v", n, err)
		}
	}
	kept, err := s.ProofRevisions("stmt_x_wrap")
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 3 {
		t.Fatalf("%d kept revisions; want 3", len(kept))
	}
	for i, r := range kept {
		if r.Revision != i+1 || r.Text != proof(i+1) {
			t.Errorf("kept revision %d = %d %q; want %d %q", i, r.Revision, r.Text, i+1, proof(i+1))
		}
	}
	d, err := s.Read("stmt_x_wrap")
	if err != nil || d.Get("revisions_kept_from").Int() != 1 {
		t.Errorf("revisions_kept_from = %v (%v); want 1", d.Get("revisions_kept_from"), err)
	}
}

// testNoLostUpdate: concurrent transactions that each read two documents
// and append to both serialise: none is lost, none sees the other half
// done, and the log has one event per transaction. (The file store's
// multi-process and kill -9 versions are in store/, beside its journal.)
func testNoLostUpdate(t *testing.T, s *store.Store) {
	Create(t, s, "prob_a", "prob_b")
	const workers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				tag := fmt.Sprintf("w%d-%d", w, i)
				_, err := s.Update(store.TxOptions{Command: "test-append"}, func(tx *store.Tx) error {
					a, err := tx.Get("prob_a")
					if err != nil {
						return err
					}
					b, err := tx.Get("prob_b")
					if err != nil {
						return err
					}
					if ha, hb := a.Get("hypothesis").Raw, b.Get("hypothesis").Raw; ha != hb {
						return fmt.Errorf("prob_a and prob_b disagree before %s: %s vs %s", tag, ha, hb)
					}
					for _, d := range []*store.Doc{a, b} {
						if err := d.Set("hypothesis.-1", tag); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					errs <- fmt.Errorf("%s: %w", tag, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	a, b := read(t, s, "prob_a"), read(t, s, "prob_b")
	if len(a.Hypothesis) != workers*each || !slices.Equal(a.Hypothesis, b.Hypothesis) || a.Revision != workers*each+1 {
		t.Errorf("prob_a has %d hypotheses at revision %d (prob_b %d); want %d in both, revision %d",
			len(a.Hypothesis), a.Revision, len(b.Hypothesis), workers*each, workers*each+1)
	}
	if n := lastSeq(t, s); n != workers*each+1 {
		t.Errorf("LastSeq = %d; want %d (the create and one event per transaction)", n, workers*each+1)
	}
	doctorClean(t, s)
}
