package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bigProblem is a problem past schemas' wholeBelow, so that a commit checks
// only what it changed (ValidateChange) and the read's whole check is the
// one that sees the rest.
func bigProblem(t *testing.T, s *Store, id string) {
	t.Helper()
	_, err := s.Update(TxOptions{Command: "test-create"}, func(tx *Tx) error {
		_, err := tx.Create(id, problem(strings.Repeat("The sum of the first n odd numbers is n^2. ", 1000)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// addHypothesis is a transaction that reads id and changes it.
func addHypothesis(s *Store, id string) error {
	_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		d, err := tx.Get(id)
		if err != nil {
			return err
		}
		return d.Set("hypothesis.-1", "n >= 1")
	})
	return err
}

// putSum writes a sum into the index by hand.
func putSum(t *testing.T, s *Store, id, sum string) {
	t.Helper()
	db, err := s.openIndex(true)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(btx *bolt.Tx) error {
		b, err := btx.CreateBucketIfNotExists(bucketSums)
		if err != nil {
			return err
		}
		return b.Put([]byte(id), []byte(sum))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCheckedSum: a document whose bytes are the ones its last commit (or
// the index's rebuild) checked is read without the whole check; a hand
// edit of it, or of its sum in the index, is checked whole, and a hand
// edit that breaks the schema or strict JSON is refused with nothing
// written, as before sums.
func TestCheckedSum(t *testing.T) {
	const id = "prob_big"
	p := filepath.Join("problem", id+".json")
	setup := func(t *testing.T) (*Store, string) {
		s, dir := testStore(t)
		bigProblem(t, s, id)
		if err := addHypothesis(s, id); err != nil {
			t.Fatal(err)
		}
		return s, dir
	}
	checks := func(t *testing.T, s *Store, want int64) {
		t.Helper()
		n := wholeChecks.Load()
		if err := addHypothesis(s, id); err != nil {
			t.Fatalf("a transaction on %s: %v", id, err)
		}
		if got := wholeChecks.Load() - n; got != want {
			t.Errorf("whole checks of %s on read = %d; want %d", id, got, want)
		}
	}

	t.Run("as committed", func(t *testing.T) {
		s, _ := setup(t)
		checks(t, s, 0)
		checks(t, s, 0) // and as this transaction committed it
	})
	t.Run("rebuilt index", func(t *testing.T) {
		s, _ := setup(t)
		if _, err := s.Reindex(); err != nil {
			t.Fatal(err)
		}
		checks(t, s, 0)
	})
	t.Run("valid hand edit", func(t *testing.T) {
		s, dir := setup(t)
		raw := readFile(t, dir, p)
		if err := os.WriteFile(filepath.Join(dir, p), append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		checks(t, s, 1)
		checks(t, s, 0)
	})
	t.Run("sum edited", func(t *testing.T) {
		s, _ := setup(t)
		putSum(t, s, id, strings.Repeat("0", 64))
		checks(t, s, 1)
	})
	for name, edit := range map[string]func(string) string{
		"fails its schema": func(raw string) string {
			return strings.Replace(raw, `"status": "pending"`, `"status": "bogus"`, 1)
		},
		"duplicate key": func(raw string) string {
			return strings.Replace(raw, `"status": "pending"`, `"status": "solved", "status": "pending"`, 1)
		},
		"not JSON": func(raw string) string { return raw[:len(raw)/2] },
	} {
		t.Run(name, func(t *testing.T) {
			s, dir := setup(t)
			raw := string(readFile(t, dir, p))
			if edited := edit(raw); edited == raw {
				t.Fatal("the edit changed nothing")
			} else if err := os.WriteFile(filepath.Join(dir, p), []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			wantCode(t, "a transaction on a hand-edited "+id, addHypothesis(s, id), CodeStoreDamaged)
			sameFiles(t, dir, before)
		})
	}
	// The limit, in docs/decisions.md: a hand edit whose sum is written
	// into the index too is read as checked. doctor --full, which checks
	// every document whole, still finds it.
	t.Run("both forged", func(t *testing.T) {
		s, dir := setup(t)
		raw := strings.Replace(string(readFile(t, dir, p)), `"status": "pending"`, `"status": "bogus"`, 1)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(raw), 0o644); err != nil {
			t.Fatal(err)
		}
		putSum(t, s, id, docSum("problem", []byte(raw)))
		_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
			_, err := tx.Get(id)
			return err
		})
		if err != nil {
			t.Errorf("reading a document forged with its sum: %v; want it read as checked", err)
		}
		r, err := RunDoctor(s) // the full check
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range r.Findings {
			found = found || f.Path == p
		}
		if !found {
			t.Errorf("doctor --full findings %v; want one for %s", r.Findings, p)
		}
	})
}

// TestSetKeepsTheBytesRead: sets written in place (a value no longer than
// the one before) change the Doc's own copy, never the bytes it was read
// as, which are the base of the event's patch.
func TestSetKeepsTheBytesRead(t *testing.T) {
	read := []byte(`{"id":"prob_x","status":"pending","revision":3,"updated_at":"2026-11-22T10:04:05Z","hypothesis":[]}`)
	orig := string(read)
	d := &Doc{ID: "prob_x", Raw: read, orig: read}
	for _, set := range []struct {
		path string
		v    any
	}{{"revision", 4}, {"status", "solved"}, {"updated_at", "2026-11-23T10:04:05Z"}, {"revision", 5}, {"hypothesis.-1", "h"}, {"status", "pending"}} {
		if err := d.Set(set.path, set.v); err != nil {
			t.Fatal(err)
		}
	}
	if string(read) != orig || string(d.orig) != orig {
		t.Errorf("the bytes read became %s; want them kept: %s", read, orig)
	}
	want := `{"id":"prob_x","status":"pending","revision":5,"updated_at":"2026-11-23T10:04:05Z","hypothesis":["h"]}`
	if string(d.Raw) != want {
		t.Errorf("after the sets: %s; want %s", d.Raw, want)
	}
}

// TestReadThenOnlyDerivedFile: a transaction that reads a document (which
// opens the index for its sum) and writes only a derived file commits:
// the index's stamp is read from the index already open, not from a second
// open that waits on bbolt's lock the first holds.
func TestReadThenOnlyDerivedFile(t *testing.T) {
	s, _ := testStore(t)
	s.LockTimeout = 100 * time.Millisecond
	mustCreate(t, s, "prob_a")
	_, err := s.Update(TxOptions{Command: "test"}, func(tx *Tx) error {
		if _, err := tx.Get("prob_a"); err != nil {
			return err
		}
		return tx.WriteFile(".debates/2026-11-22-a.md", []byte("# a\n"))
	})
	if err != nil {
		t.Fatalf("a transaction that read a document and wrote a transcript: %v", err)
	}
}
