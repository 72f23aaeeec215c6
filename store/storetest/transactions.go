package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// testCreateThenUpdate: a created document is at revision 1 with equal
// timestamps; several sets in one transaction are one write, revision 2;
// each commit takes the next seq and says what it changed.
func testCreateThenUpdate(t *testing.T, s *store.Store) {
	c, err := s.Update(store.TxOptions{Command: "test-create", Actor: "alice"}, func(tx *store.Tx) error {
		d, err := tx.Create("prob_x", problem("show x"))
		if err == nil && d.Revision() != 0 {
			t.Errorf("a created document's Revision() in its transaction = %d; want 0", d.Revision())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Seq != 1 || len(c.Changed) != 1 || c.Changed[0].Revision() != 1 {
		t.Errorf("create: seq %d, %d changed; want seq 1, one document at revision 1", c.Seq, len(c.Changed))
	}
	p := read(t, s, "prob_x")
	if p.ID != "prob_x" || p.Revision != 1 || p.CreatedAt == "" || p.CreatedAt != p.UpdatedAt || p.Objective != "show x" {
		t.Errorf("created %+v; want id prob_x, revision 1, created_at = updated_at", p)
	}
	c, err = s.Update(store.TxOptions{Command: "test-set", Target: "prob_x"}, func(tx *store.Tx) error {
		d, err := tx.Get("prob_x")
		if err != nil {
			return err
		}
		for _, h := range []string{"h1", "h2"} {
			if err := d.Set("hypothesis.-1", h); err != nil {
				return err
			}
		}
		return d.Set("objective", "show x again")
	})
	if err != nil {
		t.Fatal(err)
	}
	p2 := read(t, s, "prob_x")
	if p2.Revision != 2 || p2.CreatedAt != p.CreatedAt || !slices.Equal(p2.Hypothesis, []string{"h1", "h2"}) || p2.Objective != "show x again" {
		t.Errorf("after update %+v; want revision 2, created_at %s, hypothesis [h1 h2]", p2, p.CreatedAt)
	}
	if c.Seq != 2 || lastSeq(t, s) != 2 {
		t.Errorf("update seq = %d, LastSeq %d; want 2 and 2", c.Seq, lastSeq(t, s))
	}
	steps, err := s.History("prob_x")
	if err != nil || len(steps) != 2 {
		t.Fatalf("History(prob_x) = %d steps, %v; want 2", len(steps), err)
	}
	created, updated := steps[0].Event, steps[1].Event
	if created.Seq != 1 || created.Command != "test-create" || created.Actor == nil || *created.Actor != "alice" ||
		created.Time != p.CreatedAt || len(created.Changes) != 1 || created.Changes[0].Before != nil ||
		created.Changes[0].After != model.ProblemPending || created.Changes[0].Revision != 1 {
		t.Errorf("create event %+v; want seq 1 by alice at %s, prob_x from nothing to pending at revision 1", created, p.CreatedAt)
	}
	if updated.Seq != 2 || updated.Actor != nil || updated.Time != p2.UpdatedAt || len(updated.Changes) != 1 || updated.Changes[0].Before == nil ||
		*updated.Changes[0].Before != model.ProblemPending || updated.Changes[0].Revision != 2 || !slices.Equal(updated.IDs, []string{"prob_x"}) {
		t.Errorf("update event %+v; want seq 2 at %s, no actor, prob_x pending to pending at revision 2", updated, p2.UpdatedAt)
	}
	doctorClean(t, s)
}

func testReadOnlyWritesNothing(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x")
	before := state(t, s)
	c, err := s.Update(store.TxOptions{Command: "test-read"}, func(tx *store.Tx) error {
		_, err := tx.Get("prob_x")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Seq != 0 {
		t.Errorf("a transaction that changed nothing got seq %d; want 0 (no event)", c.Seq)
	}
	sameState(t, "read-only transaction", s, before)
}

// testFailedWritesNothing: a body that fails after changing one document,
// creating another, writing a lease and a derived file leaves no trace.
func testFailedWritesNothing(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x", "prob_y")
	before := state(t, s)
	boom := errors.New("boom")
	_, err := s.Update(store.TxOptions{Command: "test-fail"}, func(tx *store.Tx) error {
		d, err := tx.Get("prob_x")
		if err != nil {
			return err
		}
		d.Set("objective", "changed")
		if _, err := tx.Create("prob_z", problem("z")); err != nil {
			return err
		}
		tx.PutLease(store.NewLease("prob_y", "solve", "agent", "alice", tx.Clock(), time.Hour))
		if err := tx.WriteFile(".debates/2026-11-22-x.md", []byte("# x\n")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update = %v; want the body's error", err)
	}
	sameState(t, "failed transaction", s, before)
}

// testSchemaInvalidWritesNothing: one document that would fail its schema
// refuses the whole transaction, the valid change beside it included.
func testSchemaInvalidWritesNothing(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x", "prob_y")
	before := state(t, s)
	_, err := s.Update(store.TxOptions{Command: "test"}, func(tx *store.Tx) error {
		x, err := tx.Get("prob_x")
		if err != nil {
			return err
		}
		y, err := tx.Get("prob_y")
		if err != nil {
			return err
		}
		x.Set("hypothesis.-1", "fine")
		return y.Set("objective", "") // minLength 1
	})
	wantCode(t, "schema-invalid result", err, store.CodeInternal)
	if err != nil && !strings.Contains(err.Error(), "problem/prob_y.json") {
		t.Errorf("error %q does not name the document that fails its schema", err)
	}
	sameState(t, "schema-invalid transaction", s, before)
	_, err = s.Update(store.TxOptions{Command: "test"}, func(tx *store.Tx) error {
		_, err := tx.Create("prob_z", map[string]any{"status": "pending", "objective": "no lists"})
		return err
	})
	if err == nil {
		t.Error("Update created a document that fails its schema")
	}
	sameState(t, "schema-invalid create", s, before)
}

func testExpectRevision(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x")
	set := func(expect int) error {
		_, err := s.Update(store.TxOptions{Command: "test-set", Target: "prob_x", ExpectRevision: &expect}, func(tx *store.Tx) error {
			d, err := tx.Get("prob_x")
			if err != nil {
				return err
			}
			return d.Set("hypothesis.-1", fmt.Sprintf("at %d", expect))
		})
		return err
	}
	if err := set(1); err != nil {
		t.Fatalf("expect revision 1 at revision 1: %v", err)
	}
	before := state(t, s)
	for _, stale := range []int{0, 1, 3} {
		wantCode(t, fmt.Sprintf("expect revision %d at revision 2", stale), set(stale), store.CodeConflict)
	}
	sameState(t, "stale --expect-revision", s, before)
	if err := set(2); err != nil {
		t.Errorf("expect revision 2 at revision 2: %v", err)
	}
	// A target the transaction creates is at revision 0.
	for _, c := range []struct {
		expect int
		want   store.Code
	}{{3, store.CodeConflict}, {0, ""}} {
		_, err := s.Update(store.TxOptions{Command: "test-create", Target: "prob_new", ExpectRevision: &c.expect}, func(tx *store.Tx) error {
			_, err := tx.Create("prob_new", problem("new"))
			return err
		})
		wantCode(t, fmt.Sprintf("create with expect revision %d", c.expect), err, c.want)
	}
}

func testRefusals(t *testing.T, s *store.Store) {
	Create(t, s, "prob_x")
	before := state(t, s)
	for _, c := range []struct {
		name string
		fn   func(tx *store.Tx) error
		want store.Code
	}{
		{"create existing", func(tx *store.Tx) error { _, err := tx.Create("prob_x", problem("again")); return err }, store.CodeConflict},
		{"create bad id", func(tx *store.Tx) error { _, err := tx.Create("prob_X", problem("x")); return err }, store.CodeInvalidInput},
		{"create path id", func(tx *store.Tx) error { _, err := tx.Create("prob_x/../../evil", problem("x")); return err }, store.CodeInvalidInput},
		{"get missing", func(tx *store.Tx) error { _, err := tx.Get("prob_missing"); return err }, store.CodeNotFound},
		{"get bad id", func(tx *store.Tx) error { _, err := tx.Get("../config"); return err }, store.CodeInvalidInput},
		{"get dotdot", func(tx *store.Tx) error { _, err := tx.Get(".."); return err }, store.CodeInvalidInput},
	} {
		_, err := s.Update(store.TxOptions{Command: "test"}, c.fn)
		wantCode(t, c.name, err, c.want)
	}
	_, err := s.Read("prob_nope")
	wantCode(t, "Read of a missing document", err, store.CodeNotFound)
	sameState(t, "refused transactions", s, before)
}
